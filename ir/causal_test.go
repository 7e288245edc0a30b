package ir_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// frontDoorGraph is a causal graph with an unobserved confounder of X and
// Y, and a latent variable U without a table.
const frontDoorGraph = `latent U: bool
var X, M, Y, Z: bool
X -> M -> Y
X <-> Y
U -> Z, Y
`

// TestCausalModel checks what the model keeps of the causes: the latent
// variable marked, the bidirected edge, the observed declaration, and
// that it needs identification.
func TestCausalModel(t *testing.T) {
	m, err := ir.Lower(mustParse(t, frontDoorGraph+"observed data \"o.csv\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := m.Lookup("U")
	x, _ := m.Lookup("X")
	y, _ := m.Lookup("Y")
	if !u.Latent || x.Latent || len(m.Latents()) != 1 {
		t.Errorf("latents %v", m.Latents())
	}
	if len(m.Bidirected) != 1 || m.Bidirected[0].A != x.ID || m.Bidirected[0].B != y.ID || m.Bidirected[0].Pos.Line != 4 {
		t.Errorf("bidirected %+v", m.Bidirected)
	}
	if o := m.Observed; o == nil || !o.Data || o.Path != "o.csv" || o.Pos.Line != 6 {
		t.Errorf("observed %+v", m.Observed)
	}
	if !m.NeedsIdentification() {
		t.Error("a model with a bidirected edge does not need identification")
	}
	// With every table, no bidirected edge and no observed declaration,
	// it is a Bayesian network as any other.
	full, err := ir.Lower(mustParse(t, "latent U: bool\nvar X: bool\nU -> X\nP(U) = 0.5\nP(X | U) = U\n"))
	if err != nil {
		t.Fatal(err)
	}
	if full.NeedsIdentification() {
		t.Error("a model whose latent variable has a table needs identification")
	}
	// latent V alone is a bool latent variable.
	bare, err := ir.Lower(mustParse(t, "latent V\nvar X: bool\nV -> X\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := bare.Lookup("V"); !v.Latent || v.Kind != ir.Bool {
		t.Errorf("latent V is %+v", v)
	}
}

// TestCausalErrors checks the positioned errors, and their kinds, of
// causal declarations that are not valid.
func TestCausalErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		kind      error
		line, col int
	}{
		{"latent end of a bidirected edge", frontDoorGraph + "U <-> X\n", ir.ErrLatent, 6, 1},
		{"bidirected loop", frontDoorGraph + "M <-> M\n", nil, 6, 7},
		{"bidirected twice", frontDoorGraph + "Y <-> X\n", nil, 6, 7},
		{"unknown end", frontDoorGraph + "X <-> Nope\n", nil, 6, 7},
		{"real latent", "latent U: real\n", nil, 1, 11},
		{"second observed", "var X: bool\nobserved \"a.bif\"\nobserved data \"b.csv\"\n", nil, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ir.Lower(mustParse(t, tt.src))
			var e *ir.Error
			if !errors.As(err, &e) {
				t.Fatalf("%v: not an *ir.Error", err)
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("%v: not of kind %v", err, tt.kind)
			}
			if e.Pos.Line != tt.line || e.Pos.Col != tt.col {
				t.Errorf("%v: at %d:%d, want %d:%d", err, e.Pos.Line, e.Pos.Col, tt.line, tt.col)
			}
		})
	}
}

// TestCausalQueries checks how the causal questions lower: their form
// and roles, and the refusals of those that do not fit.
func TestCausalQueries(t *testing.T) {
	m, err := ir.Lower(mustParse(t, frontDoorGraph))
	if err != nil {
		t.Fatal(err)
	}
	good := []struct {
		text    string
		form    ir.CausalForm
		y, x, z int // how many of each
	}{
		{"P(Y | do(X=true))", ir.CausalEffect, 1, 1, 0},
		{"P(Y=true | do(X=true), Z=false)", ir.CausalEffect, 1, 1, 1},
		{"identify(Y | do(X), Z)", ir.CausalIdentify, 1, 1, 1},
		{"identify(Y, M | do(X=true))", ir.CausalIdentify, 2, 1, 0},
		{"adjust(M, Y)", ir.CausalAdjust, 1, 1, 0},
		{"CF(Y=true | do(X=true), X=false, Y=false)", ir.CausalCF, 1, 1, 2},
		{"CF(Y=true | do(X=true), U=false)", ir.CausalCF, 1, 1, 1},
	}
	for _, tt := range good {
		g, err := parser.ParseQuery("q", tt.text)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ir.LowerQuery(m, g)
		if err != nil {
			t.Errorf("%s: %v", tt.text, err)
			continue
		}
		cq, ok := q.(*ir.CausalQuery)
		if !ok || cq.Form != tt.form || len(cq.Y) != tt.y || len(cq.X) != tt.x || len(cq.Z) != tt.z {
			t.Errorf("%s: lowered to %#v", tt.text, q)
		}
	}
	bad := []struct {
		text string
		kind error // nil: any
		col  int
	}{
		{"P(U | do(X=true))", ir.ErrLatent, 3},
		{"identify(Y | do(U))", ir.ErrLatent, 17},
		{"P(Y | do(X=true), Z)", ir.ErrNotCausal, 1},
		{"P(* | do(X=true))", ir.ErrNotCausal, 1},
		{"P(X=true, Y=true)", ir.ErrNotCausal, 1},
		{"adjust(X)", ir.ErrNotCausal, 1},
		{"adjust(X=true, Y)", nil, 10},
		{"CF(Y | do(X=true))", nil, 4},
		{"CF(Y=true | X=false)", ir.ErrNotCausal, 1},
		{"CF(Y=true | do(X=true), do(X=false))", nil, 28},
		{"identify(Y | X~[0.5, 0.5])", nil, 14},
		{"identify(Y, Y | do(X))", nil, 13},
	}
	for _, tt := range bad {
		g, err := parser.ParseQuery("q", tt.text)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ir.LowerQuery(m, g)
		var e *ir.Error
		switch {
		case !errors.As(err, &e):
			t.Errorf("%s: %v, not an *ir.Error", tt.text, err)
		case tt.kind != nil && !errors.Is(err, tt.kind):
			t.Errorf("%s: %v, not of kind %v", tt.text, err, tt.kind)
		case e.Pos.Col != tt.col:
			t.Errorf("%s: %v at column %d, want %d", tt.text, err, e.Pos.Col, tt.col)
		}
	}
}
