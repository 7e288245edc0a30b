package hypothesis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/pbl-lang/pbl/ir"
)

// This file builds ir.Space values for the tests from a small text form,
// since lowering from source is not this package's: parameters, a prior
// and observations such as "y ~ normal(w0 + w1*x, 1)". Line 1 is the
// prior, line 2+k the k-th observation; columns are 1-based runes.

// grid returns lo, lo+step, …, hi, each computed as lo + i*step.
func grid(lo, hi, step float64) []float64 {
	n := int(math.Round((hi-lo)/step)) + 1
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + float64(i)*step
	}
	return out
}

func param(name string, values []float64) *ir.SpaceParam {
	return &ir.SpaceParam{Pos: ir.Pos{File: "t.pbl", Line: 1, Col: 1}, Name: name, Values: values}
}

// newSpace builds a space; it fails the test on a syntax error.
func newSpace(t testing.TB, params []*ir.SpaceParam, prior string, obs ...string) *ir.Space {
	t.Helper()
	s := &ir.Space{Pos: ir.Pos{File: "t.pbl", Line: 1, Col: 1}, Name: "H", Params: params}
	if prior != "" {
		e, err := parseExpr(s, prior, 1, 0)
		if err != nil {
			t.Fatalf("prior %q: %v", prior, err)
		}
		s.Prior = e
	}
	for k, o := range obs {
		line := 2 + k
		tilde := strings.Index(o, "~")
		open := strings.Index(o, "(")
		if tilde < 0 || open < 0 || !strings.HasSuffix(o, ")") {
			t.Fatalf("observation %q: want COLUMN ~ FAMILY(ARGS)", o)
		}
		ob := &ir.Observation{Pos: ir.Pos{File: "t.pbl", Line: line, Col: 1}, Column: column(s, strings.TrimSpace(o[:tilde]))}
		switch fam := strings.TrimSpace(o[tilde+1 : open]); fam {
		case "normal":
			ob.Family = ir.FamilyNormal
		case "bernoulli":
			ob.Family = ir.FamilyBernoulli
		default:
			t.Fatalf("unknown family %q", fam)
		}
		p := &exprParser{s: s, src: []rune(o), pos: open + 1, line: line}
		for {
			e, err := p.expr()
			if err != nil {
				t.Fatalf("observation %q: %v", o, err)
			}
			ob.Args = append(ob.Args, e)
			p.space()
			if p.peek() == ',' {
				p.pos++
				continue
			}
			break
		}
		s.Obs = append(s.Obs, ob)
	}
	return s
}

func column(s *ir.Space, name string) int {
	for i, c := range s.Columns {
		if c == name {
			return i
		}
	}
	s.Columns = append(s.Columns, name)
	return len(s.Columns) - 1
}

func parseExpr(s *ir.Space, src string, line, off int) (ir.Expr, error) {
	p := &exprParser{s: s, src: []rune(src), line: line, pos: off}
	e, err := p.expr()
	if err == nil {
		p.space()
		if p.pos < len(p.src) {
			err = fmt.Errorf("unexpected %q at %d", p.src[p.pos], p.pos+1)
		}
	}
	return e, err
}

type exprParser struct {
	s    *ir.Space
	src  []rune
	pos  int
	line int
}

func (p *exprParser) space() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *exprParser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *exprParser) at() ir.Pos { return ir.Pos{File: "t.pbl", Line: p.line, Col: p.pos + 1} }

var levels = [][]struct {
	text string
	op   ir.Op
}{
	{{"==", ir.OpEq}, {"!=", ir.OpNe}, {"<=", ir.OpLe}, {">=", ir.OpGe}, {"<", ir.OpLt}, {">", ir.OpGt}},
	{{"+", ir.OpAdd}, {"-", ir.OpSub}},
	{{"*", ir.OpMul}, {"/", ir.OpDiv}},
}

func (p *exprParser) expr() (ir.Expr, error) { return p.level(0) }

func (p *exprParser) level(l int) (ir.Expr, error) {
	if l == len(levels) {
		return p.unary()
	}
	x, err := p.level(l + 1)
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		found := false
		for _, o := range levels[l] {
			if strings.HasPrefix(string(p.src[p.pos:]), o.text) {
				pos := p.at()
				p.pos += len(o.text)
				y, err := p.level(l + 1)
				if err != nil {
					return nil, err
				}
				x, found = &ir.Binary{Pos: pos, Op: o.op, X: x, Y: y}, true
				break
			}
		}
		if !found {
			return x, nil
		}
	}
}

func (p *exprParser) unary() (ir.Expr, error) {
	p.space()
	if p.peek() == '-' {
		pos := p.at()
		p.pos++
		x, err := p.unary()
		return &ir.Unary{Pos: pos, Op: ir.OpNeg, X: x}, err
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.peek() == '^' {
		pos := p.at()
		p.pos++
		y, err := p.unary()
		return &ir.Binary{Pos: pos, Op: ir.OpPow, X: x, Y: y}, err
	}
	return x, nil
}

// parenthesised parses "(expr)" from the "(" under p.pos.
func (p *exprParser) parenthesised() (ir.Expr, error) {
	p.pos++
	x, err := p.expr()
	p.space()
	if p.peek() != ')' {
		return nil, fmt.Errorf("missing ) at %d", p.pos+1)
	}
	p.pos++
	return x, err
}

func (p *exprParser) primary() (ir.Expr, error) {
	p.space()
	pos := p.at()
	c := p.peek()
	switch {
	case c == '(':
		return p.parenthesised()
	case unicode.IsDigit(c) || c == '.':
		start := p.pos
		for p.pos < len(p.src) && (unicode.IsDigit(p.src[p.pos]) || p.src[p.pos] == '.' || p.src[p.pos] == 'e' ||
			p.src[p.pos] == '-' && p.src[p.pos-1] == 'e') { // 1e-300
			p.pos++
		}
		v, err := strconv.ParseFloat(string(p.src[start:p.pos]), 64)
		return &ir.Num{Pos: pos, Value: v}, err
	case unicode.IsLetter(c):
		start := p.pos
		for p.pos < len(p.src) && (unicode.IsLetter(p.src[p.pos]) || unicode.IsDigit(p.src[p.pos]) || p.src[p.pos] == '_') {
			p.pos++
		}
		name := string(p.src[start:p.pos])
		if p.peek() == '(' {
			fn, ok := ir.LookupFunc(name)
			if !ok {
				return nil, fmt.Errorf("unknown function %s", name)
			}
			x, err := p.parenthesised()
			if x == nil {
				return nil, err
			}
			return &ir.Call{Pos: pos, Fn: fn, Args: []ir.Expr{x}}, err
		}
		for i, sp := range p.s.Params {
			if sp.Name == name {
				return &ir.ParamRef{Pos: pos, Name: name, Index: i}, nil
			}
		}
		return &ir.ColumnRef{Pos: pos, Name: name, Index: column(p.s, name)}, nil
	}
	return nil, fmt.Errorf("unexpected %q at %d", c, p.pos+1)
}

// near reports whether got is within tol of want relative to want's size
// (absolutely near 0); NaN is never near.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestParseExpr(t *testing.T) {
	s := &ir.Space{Params: []*ir.SpaceParam{param("w", nil)}}
	for _, tc := range []struct {
		src  string
		want float64
	}{
		{"1 + 2 * 3", 7},
		{"-2 ^ 2", -4},
		{"2 ^ 3 ^ 2", 512},
		{"(1 + 2) * 3", 9},
		{"w * x - 1", 5},
		{"exp(0) + (x > 1) + (w == 2)", 3},
		{"10 / 4 / 5", 0.5},
	} {
		e, err := parseExpr(s, tc.src, 1, 0)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		n := (&compiler{s: s}).compile(e)
		if got := n.at([]float64{2}, []float64{3}); !near(got, tc.want, 1e-15) {
			t.Errorf("%q = %g, want %g", tc.src, got, tc.want)
		}
	}
}
