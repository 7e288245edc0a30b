package infer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// ancestors marks the ancestors (inclusive) of vs in s.
func (s netSpec) ancestors(vs []ir.VarID) []bool {
	mark := make([]bool, len(s.card))
	var visit func(v int)
	visit = func(v int) {
		if mark[v] {
			return
		}
		mark[v] = true
		for _, p := range s.parents[v] {
			visit(p)
		}
	}
	for _, v := range vs {
		visit(int(v))
	}
	return mark
}

// TestUnlearnedRelevance: on random networks with some variables left
// without numbers, a query is refused with ir.ErrNoDistribution, naming
// the unlearned variables it needs, exactly when one of them is an
// ancestor of its variables (every variable for MPE and P(*|e)); every
// other query gets, under every engine, the answer of the fully learned
// model to 1e-12.
func TestUnlearnedRelevance(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	answered, refused := 0, 0
	for net := range 60 {
		spec := randomNet(rng, 4+rng.IntN(6), 3, 3, net%3 == 0)
		n := len(spec.card)
		unl := make([]bool, n)
		// Leave one or two of the last variables (often leaves) unlearned.
		for _, v := range rng.Perm(3)[:1+rng.IntN(2)] {
			unl[n-1-v] = true
		}
		full := spec.build(t)
		part := spec.buildPartial(t, unl)
		for k := range 12 {
			q := randomQuery(rng, spec.card)
			if k%6 == 5 {
				q = &ir.MPEQuery{QueryHeader: ir.QueryHeader{Pos: flat(q).Pos}, Conditions: ir.Conditions{Evidence: flat(q).Evidence}}
			}
			vars := append(append([]ir.VarID(nil), flat(q).Targets...), flat(q).Free...)
			for _, o := range flat(q).Evidence {
				vars = append(vars, o.Var)
			}
			need := spec.ancestors(vars)
			var want []string
			for v := range n {
				if unl[v] && (need[v] || flat(q).Star || flat(q).Kind == kindMPE) {
					want = append(want, fmt.Sprintf("X%d", v))
				}
			}
			for _, e := range everyEngine {
				r, err := Answer(part, q, e.opt)
				if len(want) > 0 {
					msg := fmt.Sprintf("q.pbl:1:1: the model has no numbers yet for %s: learn them first (a learn statement, or pbl learn)", strings.Join(want, ", "))
					if !errors.Is(err, ir.ErrNoDistribution) || err.Error() != msg {
						t.Fatalf("net %d, %+v, %s: got %v, %v; want %q", net, q, e.name, r, err, msg)
					}
					refused++
					continue
				}
				ref, refErr := Answer(full, q, e.opt)
				if d := sameAnswer(ref, refErr, r, err, 1e-12); d != "" {
					t.Fatalf("net %d, %+v, %s: %s (the fully learned model's first)", net, q, e.name, d)
				}
				if err == nil {
					answered++
				}
			}
		}
	}
	t.Logf("%d answers, %d refusals", answered, refused)
	if answered < 200 || refused < 200 {
		t.Errorf("%d answers and %d refusals: the generator is off", answered, refused)
	}
}

// TestUnlearnedCases: the junction tree refuses a model with unlearned
// variables, indep needs no numbers, enumeration visits only the variables
// a query needs, a long list of needed variables is cut at three, and an
// unlearned real variable does not keep the junction tree from answering.
func TestUnlearnedCases(t *testing.T) {
	// 26 binary roots X0..X25 and X26 = child of X24, X25, unlearned.
	s := roots(27, 0.25)
	s.parents[26] = []int{24, 25}
	unl := make([]bool, 27)
	unl[26] = true
	m := s.buildPartial(t, unl)
	_, err := Compile(m, Options{})
	if want := "partial.pbl: the model has no numbers yet for X26: learn them first (a learn statement, or pbl learn)"; !errors.Is(err, ir.ErrNoDistribution) || err.Error() != want {
		t.Errorf("Compile: got %v, want %q", err, want)
	}
	// Enumerating all 26 roots would exceed MaxEnum; the query needs one.
	for i, r := range answerEach(t, m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 5, State: 1}}}, Targets: ids(3), TargetStates: []int{0}}, everyEngine) {
		if !equal(r.(*Number).P, 0.25, 1e-15) {
			t.Errorf("%s: P(X3=s0 | X5=s1) = %v; want 0.25", everyEngine[i].name, r)
		}
	}
	for i, r := range answerEach(t, m, &ir.MAPQuery{Targets: ids(3, 4)}, everyEngine) {
		if !equal(r.(*Assignment).P, 0.75*0.75, 1e-15) || r.(*Assignment).Assignment[0].State != 1 || r.(*Assignment).Assignment[1].State != 1 {
			t.Errorf("%s: MAP(X3, X4) = %v", everyEngine[i].name, r)
		}
	}
	q := &ir.IndepQuery{A: ids(0), B: ids(1), C: ids(26)}
	if r, err := Answer(m, q, Options{}); err != nil || !r.(*Independence).Independent {
		t.Errorf("indep(X0, X1 | X26) = %v, %v; want independent", r, err)
	}
	if r, err := Answer(m, &ir.IndepQuery{A: ids(24), B: ids(25), C: ids(26)}, Options{}); err != nil || r.(*Independence).Independent {
		t.Errorf("indep(X24, X25 | X26) = %v, %v; want dependent", r, err)
	}
	if r, err := Answer(m, &ir.IndepQuery{A: ids(24), B: ids(25)}, Options{}); err != nil || !r.(*Independence).Independent {
		t.Errorf("indep(X24, X25) = %v, %v; want independent", r, err)
	}
	// Five unlearned variables needed: three are named.
	for v := 20; v < 26; v++ {
		unl[v] = true
	}
	m = s.buildPartial(t, unl)
	_, err = Answer(m, &ir.MPEQuery{}, Options{})
	if want := "-: the model has no numbers yet for X20, X21, X22 and 4 more: learn them first (a learn statement, or pbl learn)"; !errors.Is(err, ir.ErrNoDistribution) || err.Error() != want {
		t.Errorf("MPE: got %v, want %q", err, want)
	}
	// A real variable with a parent and no density is unlearned, but
	// discrete inference never needs it.
	b := ir.NewBuilder("real.pbl")
	a, _ := b.AddVar(ir.Pos{}, "A", ir.Bool, nil, 0)
	c, _ := b.AddVar(ir.Pos{}, "C", ir.Bool, nil, 0)
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Real, nil, 0)
	b.SetCPT(ir.Pos{}, a, nil, []float64{0.3, 0.7}, nil)
	b.SetCPT(ir.Pos{}, c, []ir.VarID{a}, []float64{0.9, 0.1, 0.2, 0.8}, nil)
	b.SetParents(x, []ir.VarID{a})
	mr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(mr.Unlearned()) != 1 {
		t.Fatalf("Unlearned() = %v, want [X]", mr.Unlearned())
	}
	if _, err := Compile(mr, Options{}); err != nil {
		t.Errorf("Compile with an unlearned real variable: %v", err)
	}
	for _, q := range []ir.Query{&ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: c, State: 0}}}, Star: true}, &ir.MPEQuery{}} {
		agree(t, mr, q, Options{Engine: Enum}, jtOpt, fmt.Sprintf("%+v", q))
	}
}
