package hypothesis

import (
	"fmt"
	"math"

	"github.com/pbl-lang/pbl/ir"
)

// kind is what an expression depends on. It decides when the expression
// is computed: a constant once at compilation, a parameter-only one once
// per hypothesis (a scalar), a column-only one once per data set (a
// vector of n), a mixed one once per hypothesis a column at a time (a
// loop over n per node).
type kind uint8

const (
	kConst  kind = iota // a number
	kParam              // of parameters only
	kColumn             // of columns only
	kMixed              // of both
)

// tag is the syntactic kind of a node.
type tag uint8

const (
	tNum tag = iota
	tParam
	tColumn
	tUnary
	tBinary
	tCall
)

// node is a compiled expression. Constant subtrees are folded into tNum.
type node struct {
	e    ir.Expr
	tag  tag
	kind kind
	op   ir.Op
	fn   ir.Func
	idx  int     // tParam, tColumn: the index
	val  float64 // tNum
	x, y *node   // operands: x for tUnary and tCall

	slot int       // kMixed: the index of its buffer in a work
	vec  []float64 // kColumn, once bound to data: its value per row

	// Set by a runPlan, for parameter-only nodes (runs.go).
	marked  bool // lastDep and other are set
	lastDep bool // reads the grid's last parameter
	other   bool // reads another parameter
	rslot   int  // lastDep and not a parameter: the index of its buffer in a runScratch
}

// compiler compiles the expressions of one space, numbering the buffers
// of mixed nodes.
type compiler struct {
	s     *ir.Space
	slots int
}

func (c *compiler) compile(e ir.Expr) *node {
	n := &node{e: e}
	switch e := e.(type) {
	case *ir.Num:
		n.tag, n.kind, n.val = tNum, kConst, e.Value
		return n
	case *ir.ParamRef:
		if e.Index < 0 || e.Index >= len(c.s.Params) {
			panic(fmt.Sprintf("hypothesis: parameter %q has index %d of %d", e.Name, e.Index, len(c.s.Params)))
		}
		n.tag, n.kind, n.idx = tParam, kParam, e.Index
		return n
	case *ir.ColumnRef:
		if e.Index < 0 || e.Index >= len(c.s.Columns) {
			panic(fmt.Sprintf("hypothesis: column %q has index %d of %d", e.Name, e.Index, len(c.s.Columns)))
		}
		n.tag, n.kind, n.idx = tColumn, kColumn, e.Index
		return n
	case *ir.Unary:
		n.tag, n.op, n.x = tUnary, e.Op, c.compile(e.X)
		n.kind = n.x.kind
	case *ir.Binary:
		n.tag, n.op, n.x, n.y = tBinary, e.Op, c.compile(e.X), c.compile(e.Y)
		n.kind = join(n.x.kind, n.y.kind)
	case *ir.Call:
		if len(e.Args) != 1 {
			panic(fmt.Sprintf("hypothesis: %s takes 1 argument, has %d", e.Fn, len(e.Args)))
		}
		n.tag, n.fn, n.x = tCall, e.Fn, c.compile(e.Args[0])
		n.kind = n.x.kind
	default:
		panic(fmt.Sprintf("hypothesis: unknown expression %T", e))
	}
	if n.kind == kConst {
		n.val = n.at(nil, nil)
		n.tag, n.x, n.y = tNum, nil, nil
	}
	if n.kind == kMixed {
		n.slot = c.slots
		c.slots++
	}
	return n
}

// join is the kind of an expression of two operands.
func join(a, b kind) kind {
	switch {
	case a == b:
		return a
	case a == kConst:
		return b
	case b == kConst:
		return a
	}
	return kMixed
}

// at evaluates n under parameters p for one row of column values (either
// may be nil when n does not read it). It is for one hypothesis or one
// row at a time: the prior, a parameter-only expression, a diagnosis, a
// prediction for a new instance.
func (n *node) at(p, row []float64) float64 {
	switch n.tag {
	case tNum:
		return n.val
	case tParam:
		return p[n.idx]
	case tColumn:
		return row[n.idx]
	case tUnary:
		return -n.x.at(p, row)
	case tBinary:
		return binop(n.op, n.x.at(p, row), n.y.at(p, row))
	}
	return call(n.fn, n.x.at(p, row))
}

func binop(op ir.Op, x, y float64) float64 {
	switch op {
	case ir.OpAdd:
		return x + y
	case ir.OpSub:
		return x - y
	case ir.OpMul:
		return x * y
	case ir.OpDiv:
		return x / y
	case ir.OpPow:
		return math.Pow(x, y)
	case ir.OpEq:
		return b2f(x == y)
	case ir.OpNe:
		return b2f(x != y)
	case ir.OpLt:
		return b2f(x < y)
	case ir.OpLe:
		return b2f(x <= y)
	case ir.OpGt:
		return b2f(x > y)
	case ir.OpGe:
		return b2f(x >= y)
	}
	panic(fmt.Sprintf("hypothesis: unknown binary operator %v", op))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func call(fn ir.Func, x float64) float64 {
	switch fn {
	case ir.FnExp:
		return math.Exp(x)
	case ir.FnLog:
		return math.Log(x)
	case ir.FnSqrt:
		return math.Sqrt(x)
	case ir.FnSigmoid:
		return sigmoid(x)
	case ir.FnAbs:
		return math.Abs(x)
	}
	panic(fmt.Sprintf("hypothesis: unknown function %v", fn))
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softplus is ln(1 + e^x) without overflow or loss of digits: −ln σ(−x).
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// work holds the buffers of one goroutine's column-at-a-time evaluation:
// one vector of n per mixed node.
type work struct {
	bufs [][]float64
}

func newWork(slots, rows int) *work {
	w := &work{bufs: make([][]float64, slots)}
	for i := range w.bufs {
		w.bufs[i] = make([]float64, rows)
	}
	return w
}

// operand returns n's value under parameters p as an operand of a vector
// kernel: a vector of n, or (nil, a scalar). It is called once per node
// and hypothesis, never per row. The tree must have been bound to the
// data (bindColumns).
func (n *node) operand(w *work, p []float64) ([]float64, float64) {
	switch n.kind {
	case kConst:
		return nil, n.val
	case kParam:
		return nil, n.at(p, nil)
	case kColumn:
		return n.vec, 0
	}
	dst := w.bufs[n.slot]
	switch n.tag {
	case tUnary:
		x, _ := n.x.operand(w, p)
		for i, v := range x[:len(dst)] {
			dst[i] = -v
		}
	case tCall:
		x, _ := n.x.operand(w, p)
		callVec(n.fn, dst, x)
	case tBinary:
		x, xs := n.x.operand(w, p)
		y, ys := n.y.operand(w, p)
		binVec(n.op, dst, x, xs, y, ys)
	default:
		panic("hypothesis: a mixed leaf")
	}
	return dst, 0
}

// bindColumns computes every column-only subtree of n over the data once
// (into its vec), so that operand finds it.
func (n *node) bindColumns(cols [][]float64, rows int) {
	if n == nil {
		return
	}
	if n.kind != kColumn {
		n.x.bindColumns(cols, rows)
		n.y.bindColumns(cols, rows)
		return
	}
	if n.vec != nil {
		return
	}
	if n.tag == tColumn {
		n.vec = cols[n.idx][:rows]
		return
	}
	n.x.bindColumns(cols, rows)
	n.y.bindColumns(cols, rows)
	opnd := func(k *node) ([]float64, float64) {
		if k.kind == kConst {
			return nil, k.val
		}
		return k.vec, 0
	}
	dst := make([]float64, rows)
	switch n.tag {
	case tUnary:
		for i, v := range n.x.vec {
			dst[i] = -v
		}
	case tCall:
		callVec(n.fn, dst, n.x.vec)
	case tBinary:
		x, xs := opnd(n.x)
		y, ys := opnd(n.y)
		binVec(n.op, dst, x, xs, y, ys)
	}
	n.vec = dst
}

func callVec(fn ir.Func, dst, x []float64) {
	x = x[:len(dst)]
	switch fn {
	case ir.FnExp:
		for i, v := range x {
			dst[i] = math.Exp(v)
		}
	case ir.FnLog:
		for i, v := range x {
			dst[i] = math.Log(v)
		}
	case ir.FnSqrt:
		for i, v := range x {
			dst[i] = math.Sqrt(v)
		}
	case ir.FnSigmoid:
		for i, v := range x {
			dst[i] = sigmoid(v)
		}
	case ir.FnAbs:
		for i, v := range x {
			dst[i] = math.Abs(v)
		}
	default:
		panic(fmt.Sprintf("hypothesis: unknown function %v", fn))
	}
}

// binVec computes dst = x op y, where a nil x (or y) stands for the
// scalar xs (ys). The four arithmetic operators have their own loops;
// the others go through binop, one call per element.
func binVec(op ir.Op, dst, x []float64, xs float64, y []float64, ys float64) {
	switch {
	case x != nil && y != nil:
		x, y = x[:len(dst)], y[:len(dst)]
		switch op {
		case ir.OpAdd:
			for i := range dst {
				dst[i] = x[i] + y[i]
			}
		case ir.OpSub:
			for i := range dst {
				dst[i] = x[i] - y[i]
			}
		case ir.OpMul:
			for i := range dst {
				dst[i] = x[i] * y[i]
			}
		case ir.OpDiv:
			for i := range dst {
				dst[i] = x[i] / y[i]
			}
		default:
			for i := range dst {
				dst[i] = binop(op, x[i], y[i])
			}
		}
	case x != nil:
		x = x[:len(dst)]
		switch op {
		case ir.OpAdd:
			for i := range dst {
				dst[i] = x[i] + ys
			}
		case ir.OpSub:
			for i := range dst {
				dst[i] = x[i] - ys
			}
		case ir.OpMul:
			for i := range dst {
				dst[i] = x[i] * ys
			}
		case ir.OpDiv:
			for i := range dst {
				dst[i] = x[i] / ys
			}
		default:
			for i := range dst {
				dst[i] = binop(op, x[i], ys)
			}
		}
	case y != nil:
		y = y[:len(dst)]
		switch op {
		case ir.OpAdd:
			for i := range dst {
				dst[i] = xs + y[i]
			}
		case ir.OpSub:
			for i := range dst {
				dst[i] = xs - y[i]
			}
		case ir.OpMul:
			for i := range dst {
				dst[i] = xs * y[i]
			}
		case ir.OpDiv:
			for i := range dst {
				dst[i] = xs / y[i]
			}
		default:
			for i := range dst {
				dst[i] = binop(op, xs, y[i])
			}
		}
	default:
		panic("hypothesis: a vector kernel with two scalars")
	}
}

// origin finds where a non-finite value first appears when n is evaluated
// under p for one row: the deepest node whose value is NaN or infinite
// while its operands are finite. It returns nil if n's value is finite.
func (n *node) origin(p, row []float64) (*node, float64) {
	for _, k := range []*node{n.x, n.y} {
		if k == nil {
			continue
		}
		if o, v := k.origin(p, row); o != nil {
			return o, v
		}
	}
	v := n.at(p, row)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return n, v
	}
	return nil, v
}

// describe renders n's value under p for one row for an error message:
// log(-2) for a call, 1 / 0 for an operator.
func (n *node) describe(p, row []float64) string {
	switch n.tag {
	case tCall:
		return fmt.Sprintf("%s(%g)", n.fn, n.x.at(p, row))
	case tBinary:
		return fmt.Sprintf("%g %s %g", n.x.at(p, row), n.op, n.y.at(p, row))
	case tUnary:
		return fmt.Sprintf("-(%g)", n.x.at(p, row))
	}
	return fmt.Sprintf("%g", n.at(p, row))
}

// dependsOnColumns reports whether n reads a column.
func (n *node) dependsOnColumns() bool { return n.kind == kColumn || n.kind == kMixed }

// dependsOnParams reports whether n reads a parameter.
func (n *node) dependsOnParams() bool { return n.kind == kParam || n.kind == kMixed }

// firstColumn returns the first column reference in n, or nil.
func firstColumn(e ir.Expr) *ir.ColumnRef {
	switch e := e.(type) {
	case *ir.ColumnRef:
		return e
	case *ir.Unary:
		return firstColumn(e.X)
	case *ir.Binary:
		if c := firstColumn(e.X); c != nil {
			return c
		}
		return firstColumn(e.Y)
	case *ir.Call:
		for _, a := range e.Args {
			if c := firstColumn(a); c != nil {
				return c
			}
		}
	}
	return nil
}
