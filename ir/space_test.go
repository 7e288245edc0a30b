package ir_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// exprText renders a lowered expression fully parenthesised, to check
// precedence and associativity.
func exprText(e ir.Expr) string {
	switch e := e.(type) {
	case *ir.Num:
		return strconv.FormatFloat(e.Value, 'g', -1, 64)
	case *ir.ParamRef:
		return e.Name
	case *ir.ColumnRef:
		return "$" + e.Name
	case *ir.Unary:
		return "(-" + exprText(e.X) + ")"
	case *ir.Binary:
		return "(" + exprText(e.X) + " " + e.Op.String() + " " + exprText(e.Y) + ")"
	case *ir.Call:
		return e.Fn.String() + "(" + exprText(e.Args[0]) + ")"
	}
	return "?"
}

func TestSpaceExpressions(t *testing.T) {
	tests := []struct{ mean, want string }{
		{"w0 + w1 * x", "(w0 + (w1 * $x))"},
		{"w0 + w1*x-1", "((w0 + (w1 * $x)) - 1)"},
		{"x-2*y^2/3", "($x - ((2 * ($y ^ 2)) / 3))"},
		{"-x^2", "(-($x ^ 2))"},
		{"-2^2", "(-(2 ^ 2))"},
		{"x -1^2*2", "($x - ((1 ^ 2) * 2))"},
		{"2^3^2", "(2 ^ (3 ^ 2))"},
		{"2^-w0", "(2 ^ (-w0))"},
		{"a - b - c", "(($a - $b) - $c)"},
		{"a / b * c", "(($a / $b) * $c)"},
		{"sigmoid(w0 + w1 * x) > 0.5", "(sigmoid((w0 + (w1 * $x))) > 0.5)"},
		{"(w0 != 0) + (w1 >= 1)", "((w0 != 0) + (w1 >= 1))"},
		{`"my col" * w0`, "($my col * w0)"},
	}
	for _, tt := range tests {
		src := "space H {\n w0, w1 in {0, 1}\n d ~ normal(" + tt.mean + ", 1)\n}\n"
		m := lower(t, src)
		if len(m.Spaces) != 1 {
			t.Fatalf("%s: %d spaces", tt.mean, len(m.Spaces))
		}
		got := exprText(m.Spaces[0].Obs[0].Args[0])
		if want := tt.want; got != want {
			t.Errorf("%s: got %s, want %s", tt.mean, got, want)
		}
	}
}

// TestSpaceGridHuge: a grid whose span overflows float64 has as many
// values as its count says, all finite.
func TestSpaceGridHuge(t *testing.T) {
	m := lower(t, "space H {\n w in -1e308 .. 1e308 by 1e307\n d ~ normal(w, 1)\n}\n")
	vs := m.Spaces[0].Params[0].Values
	if len(vs) != 21 {
		t.Fatalf("%d values, want 21", len(vs))
	}
	for i, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) || i > 0 && !(v > vs[i-1]) {
			t.Errorf("value %d = %v after %v", i, v, vs[max(i-1, 0)])
		}
	}
}

func TestSpaceGrid(t *testing.T) {
	tests := []struct {
		grid  string
		n     int
		check map[int]float64 // index → exact value
	}{
		{"-5 .. 5 by 0.01", 1001, map[int]float64{0: -5, 500: 0, 501: 0.01, 1000: 5, 737: 2.37}},
		{"0 .. 1 by 0.1", 11, map[int]float64{3: 0.3, 10: 1}},
		{"0 .. 0.95 by 0.1", 10, map[int]float64{9: 0.9}},
		{"1 .. 1 by 1", 1, map[int]float64{0: 1}},
		{"{3, -1, 2}", 3, map[int]float64{0: -1, 1: 2, 2: 3}},
		{"1e-3 .. 3e-3 by 1e-3", 3, map[int]float64{0: 1e-3}},
	}
	for _, tt := range tests {
		m := lower(t, "space H {\n w in "+tt.grid+"\n d ~ bernoulli(w)\n}\n")
		vs := m.Spaces[0].Params[0].Values
		if len(vs) != tt.n {
			t.Errorf("%s: %d values, want %d", tt.grid, len(vs), tt.n)
			continue
		}
		for i, want := range tt.check {
			if vs[i] != want {
				t.Errorf("%s: value %d is %v, want %v", tt.grid, i, vs[i], want)
			}
		}
	}
}

func TestSpaceColumns(t *testing.T) {
	m := lower(t, "space H {\n w in real\n prior uniform\n d ~ bernoulli(sigmoid(w * x + w * z))\n e ~ normal(x, 1)\n}\ndata D = { x, z, d, e\n 1, 2, 1, 0.5 }\n")
	s := m.Spaces[0]
	if got := strings.Join(s.Columns, ","); got != "d,x,z,e" {
		t.Errorf("columns %s, want d,x,z,e", got)
	}
	if s.Params[0].Values != nil || s.Prior != nil {
		t.Errorf("a real parameter has values %v, prior %v", s.Params[0].Values, s.Prior)
	}
	d := m.Tables[0]
	if d.Vars != nil || len(d.Cells) != 1 || d.Cells[0][3] != "0.5" {
		t.Errorf("data table: vars %v, cells %v", d.Vars, d.Cells)
	}
}
