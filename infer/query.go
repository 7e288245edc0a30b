package infer

import (
	"fmt"

	"github.com/pbl-lang/pbl/ir"
)

// A query is an ir.Query as infer reads it: one struct whatever its kind,
// built by flatten, the one place in infer that switches on the query's
// type. Every kind's fields are here; those a kind lacks are unset.
type query struct {
	orig ir.Query // the query asked, which results carry; nil for infer's own

	Pos  ir.Pos
	Kind queryKind
	Text string
	Bar  bool

	// Prob, MAP, Entropy, MI: the query variables (MI's A then B);
	// TargetStates[i] is the state P(...) asks for, or -1.
	Targets      []ir.VarID
	TargetStates []int
	Star         bool // P(* | e)

	ir.Conditions

	Values  []ir.RealObs // density
	A, B, C []ir.VarID   // indep; MI's A and B
	Hyp     *ir.HypQuery

	noCLG bool // the real part answered (clg.go): the rest is the discrete engines'
}

// A queryKind is a query's kind as infer reads it.
type queryKind int

const (
	kindProb queryKind = iota
	kindMPE
	kindMAP
	kindIndep
	kindDensity
	kindEntropy
	kindMI
	kindHyp      // ML, MDL and Gibbs, which infer does not answer
	kindDecision // MEU, policy and EU, which the root package answers (package decision)
	kindCausal   // identification, adjustment sets and counterfactuals, which the root package answers (package causal)
)

// A form is the form of a P(...) query (ir.ProbQuery's Form).
type form = ir.ProbForm

const (
	formTable     = ir.ProbTable
	formNumber    = ir.ProbNumber
	formEvidence  = ir.ProbEvidence
	formMarginals = ir.ProbMarginals
)

// Form returns the form of a P(...) query, as ir.ProbQuery's Form does.
func (q *query) Form() form {
	p := ir.ProbQuery{Targets: q.Targets, TargetStates: q.TargetStates, Star: q.Star}
	p.Free = q.Free
	return p.Form()
}

// free returns n entries -1: the states of variables asked about freely.
func free(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// flatten returns q as infer reads it.
func flatten(q ir.Query) query {
	h := q.Head()
	out := query{orig: q, Pos: h.Pos, Text: h.Text, Bar: h.Bar}
	if c := q.Conds(); c != nil {
		out.Conditions = *c
	}
	switch q := q.(type) {
	case *ir.ProbQuery:
		out.Kind, out.Targets, out.TargetStates, out.Star, out.Hyp = kindProb, q.Targets, q.TargetStates, q.Star, q.Hyp
	case *ir.MPEQuery:
		out.Kind = kindMPE
	case *ir.MAPQuery:
		out.Kind, out.Targets, out.TargetStates, out.Hyp = kindMAP, q.Targets, free(len(q.Targets)), q.Hyp
	case *ir.IndepQuery:
		out.Kind, out.A, out.B, out.C = kindIndep, q.A, q.B, q.C
	case *ir.DensityQuery:
		out.Kind, out.Values = kindDensity, q.Values
	case *ir.EntropyQuery:
		out.Kind, out.Targets, out.TargetStates = kindEntropy, q.Vars, free(len(q.Vars))
	case *ir.MIQuery:
		t := append(append(make([]ir.VarID, 0, len(q.A)+len(q.B)), q.A...), q.B...)
		out.Kind, out.Targets, out.TargetStates, out.A, out.B = kindMI, t, free(len(t)), q.A, q.B
	case *ir.MLQuery:
		out.Kind, out.Hyp = kindHyp, q.Hyp
	case *ir.MDLQuery:
		out.Kind, out.Hyp = kindHyp, q.Hyp
	case *ir.GibbsQuery:
		out.Kind, out.Hyp = kindHyp, q.Hyp
	case *ir.DecisionQuery:
		out.Kind = kindDecision
	case *ir.CausalQuery:
		out.Kind = kindCausal
	default:
		panic(fmt.Sprintf("infer: unknown query %T", q))
	}
	return out
}
