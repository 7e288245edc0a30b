package infer

import (
	"errors"
	"math"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// TestErrImpossibleKinds: every query that conditions on impossible
// evidence, under every engine, returns an *ir.Error at the query whose
// kind is ErrImpossible, with a message that names the evidence. P(e) = 0
// asked as a query is an answer, a table omits its impossible given rows,
// and no other error is impossible.
func TestErrImpossibleKinds(t *testing.T) {
	// X0 -> X1 with P(X1=s1 | X0=s0) = 0, and X0 = s0 certain.
	m := netSpec{
		card:    []int{2, 2, 2},
		parents: [][]int{nil, {0}, {1}},
		cpt:     [][]float64{{1, 0}, {1, 0, 0.5, 0.5}, {0.5, 0.5, 0.1, 0.9}},
	}.build(t)
	pos := ir.Pos{File: "q.pbl", Line: 4, Col: 2}
	ev := []ir.Obs{{Var: 1, State: 1}}
	const msg = "q.pbl:4:2: impossible evidence: P(X1=s1) = 0"
	tests := []struct {
		q    ir.Query
		want string
	}{
		{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(2), TargetStates: []int{-1}}, msg},
		{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(2), TargetStates: []int{0}}, msg},
		{&ir.ProbQuery{Conditions: ir.Conditions{Free: ids(0), Evidence: ev}, Targets: ids(2), TargetStates: []int{-1}}, msg},
		{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, msg},
		{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 1}, {Var: 1, State: 0}, {Var: 2, State: 0}}}, Star: true}, "q.pbl:4:2: impossible evidence: P(X0=s1, X1=s0, X2=s0) = 0"},
		{&ir.MPEQuery{Conditions: ir.Conditions{Evidence: ev}}, msg},
		{&ir.MAPQuery{Conditions: ir.Conditions{Evidence: ev}, Targets: ids(2)}, msg},
	}
	for i, tt := range tests {
		tt.q.Head().Pos = pos
		for _, e := range everyEngine {
			_, err := Answer(m, tt.q, e.opt)
			var ie *ir.Error
			if !errors.Is(err, ErrImpossible) || !errors.As(err, &ie) || ie.Pos != pos {
				t.Errorf("query %d, %s: got %v; want an ErrImpossible *ir.Error at %s", i, e.name, err, pos)
				continue
			}
			if err.Error() != tt.want {
				t.Errorf("query %d, %s: message %q, want %q", i, e.name, err, tt.want)
			}
		}
	}
	// P(e) = 0 asked as a query is an answer, not an error.
	if r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, Options{}); err != nil || r.(*Evidence).P != 0 {
		t.Errorf("P(X1=s1) = %v, %v; want 0", r, err)
	}
	// A table whose given configuration X0=s1... is possible only in part:
	// P(X2 | X0) with evidence X1=s0 omits nothing; with X1=s1 given X0=s1
	// is possible and X0=s0 is not, but P(X0=s1) = 0 makes P(e) = 0 above.
	// Here: P(X1 | X0) with no evidence omits the rows of X0=s1.
	r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Free: ids(0)}, Targets: ids(1), TargetStates: []int{-1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.(*Table).Rows) != 2 || r.(*Table).Omitted != 2 {
		t.Errorf("P(X1 | X0): %d rows, %d omitted; want 2 and 2", len(r.(*Table).Rows), r.(*Table).Omitted)
	}
	if _, err := Answer(m, &ir.ProbQuery{Targets: ids(5), TargetStates: []int{-1}}, Options{}); err == nil || errors.Is(err, ErrImpossible) {
		t.Errorf("a query about a missing variable gave %v", err)
	}
}

// TestErrUnderflowKind: a P(e) below the smallest normal float64 is an
// ErrUnderflow error, whatever the engine.
func TestErrUnderflowKind(t *testing.T) {
	const n = 1200
	m := chainNet(n, 0.5).build(t)
	ev := alternating(n)
	for _, opt := range []Options{{Engine: VE}, jtOpt} {
		_, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, opt)
		if !errors.Is(err, ErrUnderflow) {
			t.Errorf("%v: got %v, want ErrUnderflow", opt.Engine, err)
		}
	}
}

// TestTooLargeKinds: each refusal for size is an *ir.Error at the query
// whose kind is a *TooLargeError saying what is too large, how large and
// the limit, and whose message is the error's own.
func TestTooLargeKinds(t *testing.T) {
	// Ten roots and a child of all of them.
	m := fanIn(11).build(t)
	// 26 independent binary roots: 2^26 assignments.
	mw := roots(26, 0.5).build(t)
	pos := ir.Pos{File: "q.pbl", Line: 2, Col: 1}
	star := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: pos}, Star: true}
	q0 := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: pos}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 10, State: 0}}}, Targets: ids(0), TargetStates: []int{-1}}
	tests := []struct {
		name  string
		m     *ir.Model
		q     ir.Query
		opt   Options
		what  Oversize
		size  float64
		limit int64
		nvars int
	}{
		{"ve table", m, q0, Options{Engine: VE, MaxTable: 100}, OversizeTable, 512, 100, 9},
		{"jt clique", m, star, Options{Engine: JT, MaxTable: 1000}, OversizeClique, 2048, 1000, 11},
		{"jt memory", m, star, Options{Engine: JT, MaxMemory: 10000}, OversizeMemory, -1, 10000, 11},
		{"enum", mw, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: pos}, Targets: ids(0), TargetStates: []int{-1}}, Options{Engine: Enum}, OversizeEnum, 1 << 26, MaxEnum, 26},
	}
	for _, tt := range tests {
		_, err := Answer(tt.m, tt.q, tt.opt)
		var tl *TooLargeError
		var ie *ir.Error
		if !errors.As(err, &tl) || !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want a *TooLargeError in an *ir.Error", tt.name, err)
			continue
		}
		if ie.Pos != pos || ie.Msg != tl.Error() || err.Error() != pos.String()+": "+tl.Error() {
			t.Errorf("%s: error %q at %v, kind's message %q", tt.name, err, ie.Pos, tl)
		}
		if tl.What != tt.what || tt.size >= 0 && tl.Size != tt.size || !(tl.Size > float64(tl.Limit)) || tl.Limit != tt.limit || len(tl.Vars) != tt.nvars {
			t.Errorf("%s: got %v %v of size %v, limit %v, want %v of size %v, limit %v over %d variables",
				tt.name, tl.What, tl.Vars, tl.Size, tl.Limit, tt.what, tt.size, tt.limit, tt.nvars)
		}
		if errors.Is(err, ErrImpossible) || errors.Is(err, ir.ErrNoDistribution) {
			t.Errorf("%s: %v has another kind too", tt.name, err)
		}
	}
	// Compile refuses the same way, at the model's file.
	_, err := Compile(m, Options{MaxTable: 1000})
	var tl *TooLargeError
	var ie *ir.Error
	if !errors.As(err, &tl) || !errors.As(err, &ie) || tl.What != OversizeClique || ie.Pos.File != m.Source || math.IsNaN(tl.Size) {
		t.Errorf("Compile: got %v, want a *TooLargeError at %s", err, m.Source)
	}
}
