package ir

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// MaxGrid is the largest number of values one parameter of a space may
// take; package hypothesis bounds the product of the grids.
const MaxGrid = 1 << 24

// spaces lowers the hypothesis spaces of f.
func (l *lowerer) spaces(f *grammar.File) {
	for _, s := range f.Stmts {
		if sp, ok := s.(*grammar.Space); ok {
			l.space(sp)
		}
	}
}

// space lowers `space H { ... }`.
func (l *lowerer) space(g *grammar.Space) {
	m := l.b.m
	name := g.Name.Text()
	at := pos(g.Name.Pos)
	for _, s := range m.Spaces {
		if s.Name == name {
			l.b.Errorf(at, "space %s redeclared (first at %s)", strconv.Quote(name), s.Pos)
			return
		}
	}
	if _, ok := m.byName[name]; ok {
		l.b.Errorf(at, "space %s has the name of a variable; a space needs a name of its own", strconv.Quote(name))
		return
	}
	errs := len(l.b.Errs)
	s := &Space{Pos: pos(g.Pos), Name: name}
	params := map[string]int{}
	var priors []*grammar.Prior
	var observes []*grammar.Observe
	concept := false
	for _, it := range g.Items {
		switch {
		case it.Param != nil:
			values, ok := l.paramValues(it.Param)
			for _, n := range it.Param.Names {
				if i, dup := params[n.Text()]; dup {
					l.b.Errorf(pos(n.Pos), "parameter %s declared twice (first at %s)", strconv.Quote(n.Text()), s.Params[i].Pos)
					continue
				}
				if _, fn := LookupFunc(n.Text()); fn {
					l.b.Errorf(pos(n.Pos), "%s is a function: a parameter needs another name", strconv.Quote(n.Text()))
					continue
				}
				if ok {
					params[n.Text()] = len(s.Params)
					s.Params = append(s.Params, &SpaceParam{Pos: pos(n.Pos), Name: n.Text(), Values: values})
				}
			}
		case it.Prior != nil:
			if len(priors) > 0 {
				l.b.Errorf(pos(it.Prior.Pos), "space %s has two priors (the first at %s)", strconv.Quote(name), pos(priors[0].Pos))
			}
			priors = append(priors, it.Prior)
		case it.Observe != nil:
			observes = append(observes, it.Observe)
		case it.Concept != nil:
			if concept {
				l.b.Errorf(pos(it.Concept.Pos), "space %s has two concepts; declare one per space", strconv.Quote(name))
				continue
			}
			concept = true
			s.Concept = l.concept(it.Concept)
		}
	}
	if concept && (len(s.Params) > 0 || len(observes) > 0 || len(priors) > 0) {
		l.b.Errorf(s.Pos, "space %s is a concept space: its hypotheses are the conjunctions, with a uniform prior and the noise-free likelihood, so it takes no parameters, observations or prior", strconv.Quote(name))
	}
	if !concept && len(observes) == 0 && len(l.b.Errs) == errs {
		l.b.Errorf(s.Pos, "space %s observes nothing: say how a row of data is distributed given a hypothesis, as in d ~ normal(w0 + w1 * x, 1)", strconv.Quote(name))
	}
	if !concept && len(s.Params) == 0 && len(l.b.Errs) == errs {
		l.b.Errorf(s.Pos, "space %s has no parameters: declare them, as in w in -1 .. 1 by 0.1", strconv.Quote(name))
	}
	x := &exprLowerer{l: l, s: s, params: params}
	observed := map[string]Pos{}
	for _, o := range observes {
		col := o.Column.Text()
		if _, ok := params[col]; ok {
			l.b.Errorf(pos(o.Column.Pos), "%s is a parameter; an observation is of a data column", strconv.Quote(col))
			continue
		}
		if p, dup := observed[col]; dup {
			l.b.Errorf(pos(o.Column.Pos), "column %s is observed twice (first at %s)", strconv.Quote(col), p)
			continue
		}
		observed[col] = pos(o.Pos)
		ob := &Observation{Pos: pos(o.Pos), Column: x.column(col)}
		want := 0
		switch o.Family {
		case "normal":
			ob.Family, want = FamilyNormal, 2
		case "bernoulli":
			ob.Family, want = FamilyBernoulli, 1
		default:
			msg := "unknown distribution " + strconv.Quote(o.Family) + " (an observation is normal(MEAN, SD) or bernoulli(P))"
			if h := spell.Nearest(o.Family, []string{"normal", "bernoulli"}); h != "" {
				msg = "unknown distribution " + strconv.Quote(o.Family) + " (did you mean " + h + "?)"
			}
			l.b.Errorf(pos(o.Column.Pos), "%s", msg)
			continue
		}
		if len(o.Args) != want {
			l.b.Errorf(pos(o.Pos), "%s takes %s, not %d", o.Family, map[int]string{1: "one argument, bernoulli(P)", 2: "two arguments, normal(MEAN, SD)"}[want], len(o.Args))
			continue
		}
		for i, a := range o.Args {
			named := SpreadPositional
			if a.Named != nil {
				switch {
				case ob.Family == FamilyNormal && i == 1:
					named, _ = l.spreadName(a.Named, false)
				case ob.Family == FamilyNormal:
					l.b.Errorf(pos(a.Named.Pos), "the mean of normal(MEAN, ...) is given by position; only its spread is named, sd = or var =")
				default:
					l.b.Errorf(pos(a.Named.Pos), "bernoulli(P) takes its probability by position, not named")
				}
			}
			e := x.expr(a.Value)
			if e != nil && !x.shallow(pos(a.Value.Pos), e) {
				e = nil
			}
			if e != nil && mentions(e, ob.Column) {
				l.b.Errorf(pos(a.Value.Pos), "the distribution of %s cannot depend on %s itself", strconv.Quote(col), strconv.Quote(col))
			}
			if e != nil && (named == SpreadSD || named == SpreadVar) {
				e = l.observedSD(named, e)
			}
			ob.Args = append(ob.Args, e)
		}
		s.Obs = append(s.Obs, ob)
	}
	if len(priors) > 0 && !priors[0].Uniform {
		x.noColumns = "the prior is an expression of the parameters"
		if e := x.expr(priors[0].Expr); e != nil && x.shallow(pos(priors[0].Expr.Pos), e) {
			s.Prior = e
		}
	}
	// The space is declared even when it has errors (the model then fails
	// to build, so nothing uses it): the data tables after it are then
	// read as its data, not as variables' ("undefined variable d").
	m.Spaces = append(m.Spaces, s)
}

// shallow reports whether e is at most MaxExprDepth deep, and reports it
// if not: a sum of a million terms is a tree a million deep, which the
// passes after lowering (all recursive) must not meet.
func (x *exprLowerer) shallow(at Pos, e Expr) bool {
	if d := ExprDepth(e); d > MaxExprDepth {
		x.l.b.Errorf(at, "the expression nests %d operations deep, more than the limit of %d: simplify it", d, MaxExprDepth)
		return false
	}
	return true
}

// mentions reports whether e names column c.
func mentions(e Expr, c int) bool {
	switch e := e.(type) {
	case *ColumnRef:
		return e.Index == c
	case *Unary:
		return mentions(e.X, c)
	case *Binary:
		return mentions(e.X, c) || mentions(e.Y, c)
	case *Call:
		return slices.ContainsFunc(e.Args, func(a Expr) bool { return mentions(a, c) })
	}
	return false
}

// paramValues lowers the values of a parameter declaration: nil for real.
func (l *lowerer) paramValues(d *grammar.ParamDecl) ([]float64, bool) {
	at := pos(d.Pos)
	switch {
	case d.Real:
		return nil, true
	case d.Values != nil:
		var vs []float64
		for _, t := range d.Values {
			x, ok := l.num(at, t)
			if !ok {
				return nil, false
			}
			vs = append(vs, x)
		}
		slices.Sort(vs)
		for i := 1; i < len(vs); i++ {
			if vs[i] == vs[i-1] {
				l.b.Errorf(at, "the value %v is listed twice", vs[i])
				return nil, false
			}
		}
		return vs, true
	}
	lo, ok1 := l.num(at, *d.Lo)
	hi, ok2 := l.num(at, *d.Hi)
	step, ok3 := l.num(at, *d.Step)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	switch {
	case !(step > 0):
		l.b.Errorf(at, "the grid's step must be positive, not %s", *d.Step)
		return nil, false
	case hi < lo:
		l.b.Errorf(at, "empty grid: %s .. %s runs backwards", *d.Lo, *d.Hi)
		return nil, false
	}
	steps := (hi - lo) / step
	if math.IsInf(hi-lo, 1) { // -1e308 .. 1e308: the span overflows, the count need not
		steps = hi/step - lo/step
	}
	if !(steps < MaxGrid) {
		l.b.Errorf(at, "the grid %s .. %s by %s has more than %d values; use a larger step", *d.Lo, *d.Hi, *d.Step, MaxGrid)
		return nil, false
	}
	// The number of steps, allowing for the step's rounding: 0 .. 1 by
	// 0.1 has 11 values although (1-0)/0.1 is 9.999999999999998.
	n := int(math.Floor(steps+1e-9)) + 1
	return gridValues(*d.Lo, *d.Step, lo, step, n), true
}

// gridValues returns the n values lo, lo+step, ... Each is computed from
// the decimal digits of lo and step as written where they fit in a
// float64's integers (so -5 .. 5 by 0.01 gives exactly 0, 0.01, ... as
// they are read), and as lo + i*step otherwise.
func gridValues(loText, stepText string, lo, step float64, n int) []float64 {
	vs := make([]float64, n)
	scale := max(decimals(loText), decimals(stepText))
	if scale >= 0 && scale <= 15 {
		p := math.Pow10(scale)
		a, b := math.Round(lo*p), math.Round(step*p)
		if a/p == lo && b/p == step && math.Abs(a)+float64(n)*math.Abs(b) < 1<<53 {
			for i := range vs {
				vs[i] = (a + float64(i)*b) / p
			}
			return vs
		}
	}
	for i := range vs {
		vs[i] = lo + float64(i)*step
		if math.IsInf(vs[i], 0) { // i·step overflows on the way to a finite value
			vs[i] = 2 * (lo/2 + float64(i)*(step/2))
		}
	}
	return vs
}

// decimals returns the number of digits after the point of a plain
// decimal number, or -1 if it has an exponent.
func decimals(s string) int {
	if strings.ContainsAny(s, "eE") {
		return -1
	}
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// concept lowers `T = s if conjunction(A, B, ...)`.
func (l *lowerer) concept(g *grammar.Concept) *Concept {
	m := l.b.m
	c := &Concept{Pos: pos(g.Pos)}
	ok := true
	discrete := func(n *grammar.Name, what string) (VarID, bool) {
		id, found := l.lookup(n)
		if !found {
			return 0, false
		}
		if !m.Vars[id].Discrete() {
			l.b.Errorf(pos(n.Pos), "%s is real-valued; %s must be discrete", strconv.Quote(n.Text()), what)
			return 0, false
		}
		return id, true
	}
	t, tok := discrete(g.Target, "a concept's target")
	if tok {
		c.Target = t
		if s, sok := lookupState(m.Vars[t], g.State, &l.b.Errs); sok {
			c.Positive = s
		} else {
			ok = false
		}
	}
	ok = ok && tok
	seen := map[VarID]bool{}
	for _, n := range g.Attrs {
		id, aok := discrete(n, "an attribute")
		switch {
		case !aok:
			ok = false
		case tok && id == t:
			l.b.Errorf(pos(n.Pos), "%s is the concept's target: it cannot be an attribute too", strconv.Quote(n.Text()))
			ok = false
		case seen[id]:
			l.b.Errorf(pos(n.Pos), "%s appears twice in the concept", strconv.Quote(n.Text()))
			ok = false
		default:
			seen[id] = true
			c.Attrs = append(c.Attrs, id)
		}
	}
	if !ok {
		return nil
	}
	return c
}

// exprLowerer lowers the expressions of one space: names are its
// parameters, or else data columns (added to the space's columns in order
// of first mention).
type exprLowerer struct {
	l         *lowerer
	s         *Space
	params    map[string]int
	noColumns string // if not "", columns are not allowed, and this says why
}

func (x *exprLowerer) column(name string) int {
	if i := slices.Index(x.s.Columns, name); i >= 0 {
		return i
	}
	x.s.Columns = append(x.s.Columns, name)
	return len(x.s.Columns) - 1
}

func (x *exprLowerer) errorf(p Pos, format string, args ...any) Expr {
	x.l.b.Errorf(p, format, args...)
	return nil
}

// expr lowers e, or reports it and returns nil.
func (x *exprLowerer) expr(e *grammar.Expr) Expr {
	left := x.sum(e.Left)
	if e.Op == "" {
		return left
	}
	right := x.sum(e.Right)
	if left == nil || right == nil {
		return nil
	}
	op := map[string]Op{"==": OpEq, "!=": OpNe, "<": OpLt, "<=": OpLe, ">": OpGt, ">=": OpGe}[e.Op]
	return &Binary{Pos: pos(e.Pos), Op: op, X: left, Y: right}
}

func (x *exprLowerer) sum(s *grammar.Sum) Expr {
	acc := x.product(s.Left)
	for _, t := range s.Tail {
		var right Expr
		op := OpAdd
		if t.Op != "" {
			if t.Op == "-" {
				op = OpSub
			}
			right = x.product(t.Right)
		} else {
			// A number right after an operand: x-1 is x - 1.
			at := pos(t.Pos)
			if !strings.HasPrefix(*t.Number, "-") {
				x.errorf(at, "expected an operator before %s", *t.Number)
				acc = nil
				continue
			}
			v, ok := x.l.num(at, strings.TrimPrefix(*t.Number, "-"))
			if !ok {
				acc = nil
				continue
			}
			op = OpSub
			right = &Num{Pos: at, Value: v}
			if t.Exp != nil {
				exp := x.unary(t.Exp)
				if exp == nil {
					acc = nil
					continue
				}
				right = &Binary{Pos: at, Op: OpPow, X: right, Y: exp}
			}
			right = x.mulTail(right, t.Mul)
		}
		if acc == nil || right == nil {
			acc = nil
			continue
		}
		acc = &Binary{Pos: pos(t.Pos), Op: op, X: acc, Y: right}
	}
	return acc
}

func (x *exprLowerer) product(p *grammar.Product) Expr {
	return x.mulTail(x.unary(p.Left), p.Tail)
}

func (x *exprLowerer) mulTail(acc Expr, tail []*grammar.MulTail) Expr {
	for _, t := range tail {
		right := x.unary(t.Right)
		if acc == nil || right == nil {
			acc = nil
			continue
		}
		op := OpMul
		if t.Op == "/" {
			op = OpDiv
		}
		acc = &Binary{Pos: pos(t.Pos), Op: op, X: acc, Y: right}
	}
	return acc
}

func (x *exprLowerer) unary(u *grammar.Unary) Expr {
	if u.Neg != nil {
		e := x.unary(u.Neg)
		if e == nil {
			return nil
		}
		return &Unary{Pos: pos(u.Pos), Op: OpNeg, X: e}
	}
	w := u.Power
	if w.Exp == nil {
		return x.primary(w.Base)
	}
	exp := x.unary(w.Exp)
	if w.Base.Number != nil && strings.HasPrefix(*w.Base.Number, "-") {
		// -2^2 lexes as the number -2 and ^ 2, and means -(2^2).
		at := pos(w.Base.Pos)
		v, ok := x.l.num(at, strings.TrimPrefix(*w.Base.Number, "-"))
		if !ok || exp == nil {
			return nil
		}
		return &Unary{Pos: at, Op: OpNeg, X: &Binary{Pos: pos(w.Pos), Op: OpPow, X: &Num{Pos: at, Value: v}, Y: exp}}
	}
	base := x.primary(w.Base)
	if base == nil || exp == nil {
		return nil
	}
	return &Binary{Pos: pos(w.Pos), Op: OpPow, X: base, Y: exp}
}

func (x *exprLowerer) primary(p *grammar.Primary) Expr {
	at := pos(p.Pos)
	switch {
	case p.Number != nil:
		v, ok := x.l.num(at, *p.Number)
		if !ok {
			return nil
		}
		return &Num{Pos: at, Value: v}
	case p.Paren != nil:
		return x.expr(p.Paren)
	case p.Call != nil:
		fn, ok := LookupFunc(p.Call.Fn)
		if !ok {
			msg := "unknown function " + strconv.Quote(p.Call.Fn)
			if h := spell.Nearest(p.Call.Fn, funcText[:]); h != "" {
				msg += " (did you mean " + h + "?)"
			} else {
				msg += " (the functions are " + strings.Join(funcText[:], ", ") + ")"
			}
			return x.errorf(at, "%s", msg)
		}
		if len(p.Call.Args) != 1 {
			return x.errorf(at, "%s takes one argument, not %d", fn, len(p.Call.Args))
		}
		arg := x.expr(p.Call.Args[0])
		if arg == nil {
			return nil
		}
		return &Call{Pos: at, Fn: fn, Args: []Expr{arg}}
	}
	name := p.Ident
	if name == "" {
		name = p.Quoted
	}
	if i, ok := x.params[name]; ok {
		return &ParamRef{Pos: at, Name: name, Index: i}
	}
	if x.noColumns != "" {
		msg := x.noColumns + ", and " + strconv.Quote(name) + " is not a parameter of " + strconv.Quote(x.s.Name)
		names := make([]string, 0, len(x.params))
		for n := range x.params {
			names = append(names, n)
		}
		if h := spell.Nearest(name, names); h != "" {
			msg += " (did you mean " + strconv.Quote(h) + "?)"
		}
		return x.errorf(at, "%s", msg)
	}
	return &ColumnRef{Pos: at, Name: name, Index: x.column(name)}
}

// num parses a number token's text, reporting one out of range.
func (l *lowerer) num(at Pos, s string) (float64, bool) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) {
		l.b.Errorf(at, "number %s is out of range", s)
		return 0, false
	}
	if x == 0 && strings.ContainsAny(strings.TrimLeft(strings.Split(strings.ToLower(s), "e")[0], "+-"), "123456789") {
		// 1e-400 reads as 0: a value the user did not write.
		l.b.Errorf(at, "number %s is too small for a float64 (it would be 0)", s)
		return 0, false
	}
	return x, true
}

// ErrUnknownData is the kind of error of a data set bound on the command
// line (LowerOptions.Data) that the model does not name.
var ErrUnknownData = errors.New("unknown data set")

// UnknownDataError is an error of kind [ErrUnknownData]: the data set Name,
// bound to a file by the caller, is not one the model names. Its message
// names the data set, not how it was bound (cmd/pbl phrases it with
// --data).
type UnknownDataError struct {
	Name string // the data set bound
	msg  string
}

// NewUnknownDataError returns the error of the data set name bound to a
// model that does not name it, with the message msg.
func NewUnknownDataError(name, msg string) *UnknownDataError {
	return &UnknownDataError{Name: name, msg: msg}
}

func (e *UnknownDataError) Error() string { return e.msg }

// Unwrap returns ErrUnknownData.
func (e *UnknownDataError) Unwrap() error { return ErrUnknownData }

// checkBound reports the names of opt.Data that no data table or learn
// statement of the main file used.
func (l *lowerer) checkBound(main *grammar.File) {
	var names []string
	for n := range l.tables {
		names = append(names, n)
	}
	for _, s := range main.Stmts {
		if g, ok := s.(*grammar.Learn); ok && g.File != nil {
			base := filepath.Base(*g.File)
			names = append(names, strings.TrimSuffix(base, filepath.Ext(base)))
		}
	}
	slices.Sort(names)
	var unknown []string
	for n := range l.opt.Data {
		if !l.bound[n] {
			unknown = append(unknown, n)
		}
	}
	slices.Sort(unknown)
	for _, n := range unknown {
		msg := "the model names no data set " + strconv.Quote(n)
		switch h := spell.Nearest(n, names); {
		case h != "":
			msg += " (did you mean " + strconv.Quote(h) + "?)"
		case len(names) > 0:
			msg += " (its data sets: " + strings.Join(slices.Compact(names), ", ") + ")"
		default:
			msg += " (it reads no data)"
		}
		l.b.Errs = append(l.b.Errs, &Error{Pos: Pos{File: l.b.m.Source}, Msg: msg, Err: NewUnknownDataError(n, msg)})
	}
}

// observedSD returns the standard deviation of an observation whose
// spread e is named sd = (e) or var = (its square root, computed here for
// a number, which must then be positive, as must a standard deviation).
func (l *lowerer) observedSD(named Spread, e Expr) Expr {
	num, isNum := e.(*Num)
	if isNum && !(num.Value > 0) {
		what := "a standard deviation"
		if named == SpreadVar {
			what = "a variance"
		}
		l.b.Errorf(num.Pos, "%s = %s: %s must be positive", named, FormatFloat(num.Value), what)
		return nil
	}
	switch {
	case named == SpreadSD:
		return e
	case isNum:
		return &Num{Pos: num.Pos, Value: math.Sqrt(num.Value)}
	}
	return &Call{Pos: e.Position(), Fn: FnSqrt, Args: []Expr{e}}
}
