package infer

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func TestEnumRefusesLargeModels(t *testing.T) {
	m := roots(26, 0.5).build(t) // 2^26 assignments > MaxEnum
	q := &ir.ProbQuery{Targets: ids(0), TargetStates: []int{-1}}
	_, err := Answer(m, q, Options{Engine: Enum})
	if e := (*TooLargeError)(nil); !errors.As(err, &e) || e.What != OversizeEnum || e.Instead != VE {
		t.Fatalf("got %v, want an OversizeEnum error suggesting variable elimination", err)
	}
	// A query table too large for memory is refused before it is built:
	// as an answer of too many rows, or, with a higher limit on rows, as
	// too large an enumeration.
	q = &ir.ProbQuery{Targets: ids(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26)[:26], TargetStates: make([]int, 26)}
	for i := range q.TargetStates {
		q.TargetStates[i] = -1
	}
	var tl *TooLargeError
	if _, err := Answer(m, q, Options{Engine: Enum}); !errors.As(err, &tl) || tl.What != OversizeRows {
		t.Fatalf("got %v, want an OversizeRows error", err)
	}
	if _, err := Answer(m, q, Options{Engine: Enum, MaxRows: 1 << 30}); !errors.As(err, &tl) || tl.What != OversizeEnum || tl.Instead != VE {
		t.Fatalf("got %v, want an OversizeEnum error suggesting variable elimination", err)
	}
	// With six variables observed it fits (2^20 assignments).
	r, err := Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 25, State: 0}, {Var: 24, State: 1}, {Var: 23, State: 1}, {Var: 22, State: 1}, {Var: 21, State: 1}, {Var: 20, State: 1}}}}, Options{Engine: Enum})
	if err != nil || !equal(r.(*Evidence).P, 1.0/64, 1e-15) {
		t.Fatalf("P(e) = %v, %v; want 1/64", r, err)
	}
}

// TestEnumNoPruning: enumeration multiplies every CPT, VE prunes barren
// X1, whose rows sum to 1+5e-7 as written (accepted by the builder); the
// rows are renormalised on load, so the two agree.
func TestEnumNoPruning(t *testing.T) {
	needRenormalisation(t)
	m := netSpec{card: []int{2, 2}, parents: [][]int{nil, {0}},
		cpt: [][]float64{{0.3, 0.7}, {0.5, 0.5 + 5e-7, 0.5, 0.5 + 5e-7}}}.build(t)
	q := &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 0}}}}
	for _, opt := range []Options{{Engine: Enum}, {Engine: VE}, {Engine: JT}} {
		r, err := Answer(m, q, opt)
		if err != nil || !relEqual(r.(*Evidence).P, 0.3, 1e-15) {
			t.Errorf("%v: P(X0=s0) = %v, %v; want 0.3", opt.Engine, r, err)
		}
	}
}
