package infer

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file is the query planner of the Auto engine: for one query it
// weighs variable elimination on what the query needs against the
// compiled junction tree, by estimated time, and keeps the cheaper.
//
// Variable elimination plans on the reduced model: the barren variables
// (outside the ancestors of the query and the evidence) are dropped, the
// evidence is absorbed into the factors (restricted), and, for a query
// that is normalised (P(X | e), a table, entropy), the components of the
// moral graph the evidence separates from the query, which are exactly the
// variables d-separated from it, are left out (ve.separate). Its order is
// the cheapest of three greedy heuristics and the model's own order (the
// narrowest for a grid written row by row) that fits the memory on that
// reduced graph (ve.plan,
// BestOrder). Its cost is the entries its products read and write
// (veSteps.cost).
//
// The junction tree's cost is its calibration (every clique entry a few
// times: a collect pass for P(e), collect and distribute otherwise) and its
// compilation (the product of the factors into every clique, the index
// maps), shared among the queries of a batch ([Options.Queries]) — counted
// even when an earlier query compiled the tree already, so that the choice,
// and with it the last digits of the answer, never depends on what ran
// before. Its size comes from
// the triangulation it would use (plan in jtree.go), which the planner
// computes only when variable elimination costs more than any junction
// tree of the model could (every factor goes into a clique at least as
// large).
//
// P(* | e) always uses the tree, which answers every marginal from one
// calibration; MPE uses branch and bound (mpesearch.go), and max-product
// on the tree only when the search gives up; MAP uses its search or variable
// elimination (mpe.go).

// The time model's constants, in nanoseconds, read off the corpus
// networks (TestPlanCalibration; 2 cores under load): variable
// elimination per entry of its estimated cost and per table it makes or
// restricts; the junction tree per clique entry for a compilation and for
// a calibration (collect and distribute; P(e) needs the collect pass,
// about half), a compilation's fixed cost, and its triangulation (nine
// greedy runs) per variable of the model.
const (
	veNsPerEntry        = 4.0
	veNsPerTable        = 500.0
	jtCompileNsPerEntry = 25.0
	jtCompileNs         = 30e3
	jtCalibNsPerEntry   = 10.0
	jtPlanNsPerVar      = 10e3
)

// planSlack is how much more than the least a junction tree could cost
// (its triangulation and every factor in a clique) variable elimination
// may be estimated at for the planner to choose it without planning the
// tree: the tree then costs at least 1/planSlack of it, and planning costs
// more than it could save.
const planSlack = 2

// queryPlan is the Auto engine's choice for one query and its reasons.
type queryPlan struct {
	engine engineKind // kindVE or kindJT
	why    string

	keep  []ir.VarID // the joint the query asks the engine for
	ve    *vePlan    // variable elimination's plan, or nil if it failed
	veErr error
	veNs  float64 // estimated time of variable elimination

	jt       *jtPlan // the tree's plan, when it was weighed
	jtErr    error   // why the tree cannot be used
	entries  float64 // the tree's clique entries
	compile  float64 // estimated compilation time
	calib    float64 // estimated calibration time
	jtNs     float64 // estimated time per query: calib plus the batch's share of compile
	floorNs  float64 // a lower bound of the tree's cost, when the tree was not planned
	skipped  bool    // the tree was not planned: VE costs at most planSlack times its floor
	noClique bool    // no clique holds the query's variables (the tree would answer by VE)
}

// planKeep returns the variables of the joint the query's answer reads,
// and whether the answer normalises it (so that a positive constant
// factor may be left out).
func (a *answerer) planKeep() ([]ir.VarID, bool) {
	q := a.q
	switch q.Kind {
	case kindProb:
		switch q.Form() {
		case formTable:
			return append(append([]ir.VarID(nil), q.Free...), q.Targets...), true
		case formNumber:
			return q.Targets, true
		case formEvidence:
			return nil, false
		}
	case kindEntropy, kindMI:
		return q.Targets, true
	}
	return nil, false
}

// normalised reports whether the query's answer normalises the joint its
// engine computes (see ve.cond).
func (a *answerer) normalised() bool {
	switch a.q.Kind {
	case kindProb:
		return a.q.Form() != formEvidence
	case kindEntropy, kindMI:
		return true
	}
	return false
}

// planned reports whether the Auto engine plans the query (rather than
// following a fixed rule).
func (a *answerer) planned() bool {
	switch a.q.Kind {
	case kindProb:
		return a.q.Form() != formMarginals
	case kindEntropy, kindMI:
		return true
	}
	return false
}

// decide weighs variable elimination against the junction tree for the
// query (see the file's comment). Only cancellation is an error: an
// engine that cannot answer (over a limit) is not chosen, and when
// neither can, VE is, whose refusal the query then reports.
func (a *answerer) decide() (*queryPlan, error) {
	m := a.m
	qp := &queryPlan{engine: kindVE}
	qp.keep, _ = a.planKeep()
	r := a.newVE(a.obs)
	qp.ve, qp.veErr = r.plan(qp.keep, nil)
	if errors.Is(qp.veErr, ErrCanceled) {
		return nil, qp.veErr
	}
	qp.veNs = math.Inf(1)
	if qp.ve != nil {
		qp.veNs = qp.ve.estimate()
	}
	batch := float64(max(1, a.opt.Queries))
	collect := len(qp.keep) == 0 // P(e) needs the collect pass only
	pass := 1.0
	if collect {
		pass = 0.5
	}
	// The choice must not depend on whether a tree happens to be compiled
	// (by an earlier query, or by another goroutine's): engines differ in
	// the last digits, and the same query must give the same answer
	// whatever ran before it. A tree in the cache is used if the choice is
	// the tree.
	{
		// The tree's triangulation, and every factor in a clique at
		// least as large.
		floor, vars := 0.0, 0
		for _, f := range m.Factors() {
			floor += float64(len(f.Vals))
		}
		for _, c := range a.card {
			if c > 0 {
				vars++
			}
		}
		qp.floorNs = (jtPlanNsPerVar*float64(vars)+jtCompileNs+floor*jtCompileNsPerEntry)/batch + pass*jtCalibNsPerEntry*floor
		if qp.veNs <= planSlack*qp.floorNs {
			qp.skipped = true
			qp.why = fmt.Sprintf("≈ %s, at most %d× the least a junction tree of this model costs, %s: the tree is not planned", nsString(qp.veNs), planSlack, nsString(qp.floorNs))
			return qp, nil
		}
		p, err := treePlan(m, a.opt, a.k)
		if errors.Is(err, ErrCanceled) || a.k.CanceledNow() {
			return nil, canceled(a.q.Pos)
		}
		if err != nil {
			qp.jtErr = err
			qp.why = "the junction tree is over the limits"
			if qp.ve == nil {
				qp.why = "neither engine is within the limits"
			}
			return qp, nil
		}
		qp.jt, qp.entries = p, p.entries
		qp.compile = jtPlanNsPerVar*float64(vars) + jtCompileNs + jtCompileNsPerEntry*p.entries
		if !collect && !planHolds(p, qp.keep) {
			qp.noClique = true
		}
	}
	qp.calib = pass * jtCalibNsPerEntry * qp.entries
	qp.jtNs = qp.calib + qp.compile/batch
	switch {
	case qp.noClique:
		qp.why = "no clique of the junction tree holds the query's variables: the tree would answer by variable elimination"
	case qp.jtNs < qp.veNs:
		qp.engine = kindJT
		qp.why = fmt.Sprintf("≈ %s, against ≈ %s for variable elimination", nsString(qp.jtNs), nsString(qp.veNs))
		if qp.ve == nil {
			qp.why = "variable elimination is over the limits"
		}
	default:
		qp.why = fmt.Sprintf("≈ %s, against ≈ %s for the junction tree", nsString(qp.veNs), nsString(qp.jtNs))
	}
	return qp, nil
}

// estimate returns the estimated time of p's run, in nanoseconds.
func (p *vePlan) estimate() float64 {
	return veNsPerEntry*p.cost + veNsPerTable*float64(len(p.fs)+len(p.steps))
}

// treePlans caches the junction tree's plan (or its refusal) per model and
// limits, as jtCache caches compiled trees: a batch of queries that VE
// answers plans the tree once.
var treePlans struct {
	sync.Mutex
	entries []treePlanEntry // oldest first
}

type treePlanEntry struct {
	key jtKey
	p   *jtPlan
	err error
}

// treePlan returns the plan of m's junction tree under opt, checked
// against its limits, from the cache or made now. A canceled plan is not
// cached.
func treePlan(m *ir.Model, opt Options, k *factor.Kernel) (*jtPlan, error) {
	key := jtKey{m, opt.maxTable(), opt.maxMemory()}
	treePlans.Lock()
	for _, e := range treePlans.entries {
		if e.key == key {
			treePlans.Unlock()
			return e.p, e.err
		}
	}
	treePlans.Unlock()
	p, err := plan(m, cliqueLimit(opt), k)
	if errors.Is(err, ErrCanceled) || k.CanceledNow() {
		return nil, ErrCanceled
	}
	if err == nil {
		err = p.check(m, opt)
	}
	if err != nil {
		p = nil
	}
	treePlans.Lock()
	defer treePlans.Unlock()
	for _, e := range treePlans.entries {
		if e.key == key {
			return e.p, e.err // planned meanwhile by another query
		}
	}
	if len(treePlans.entries) >= jtCacheSize {
		treePlans.entries = treePlans.entries[1:]
	}
	treePlans.entries = append(treePlans.entries, treePlanEntry{key, p, err})
	return p, err
}

// planHolds reports whether a clique of p holds every variable of keep.
func planHolds(p *jtPlan, keep []ir.VarID) bool {
	for _, vs := range p.cliques {
		if containsAllUnsorted(vs, keep) {
			return true
		}
	}
	return false
}

// nsString renders an estimated time.
func nsString(ns float64) string {
	switch {
	case math.IsInf(ns, 1):
		return "∞"
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	}
	return fmt.Sprintf("%.3g s", ns/1e9)
}

// ExplainQuery describes how Answer would answer q on m with opt, without
// answering it: the engine chosen and why, and for variable elimination
// what the planner pruned, the order it chose among those it tried, and
// the estimated cost; for the junction tree, the tree (as [Explain]). A
// query that Answer refuses before choosing an engine (a variable named
// twice, a table of too many rows) is refused here with the same error.
func ExplainQuery(m *ir.Model, iq ir.Query, opt Options) (string, error) {
	if m == nil || iq == nil {
		panic("infer: ExplainQuery: nil model or query")
	}
	fq := flatten(iq)
	q := &fq
	var b strings.Builder
	fmt.Fprintf(&b, "plan for %s\n", q.Text)
	switch {
	case q.Kind == kindIndep:
		b.WriteString("  d-separation in the graph (no numbers)\n")
		return b.String(), nil
	case q.Kind == kindDecision:
		b.WriteString("  the influence diagram solved by package decision: variable elimination in the reverse decision order when the decisions have perfect recall as written, else single policy updating (a local optimum)\n")
		return b.String(), nil
	case q.Kind == kindCausal:
		b.WriteString("  a causal question answered by package causal on the graph: identification (backdoor, front-door, ID or IDC) evaluated on the observed distribution, adjustment sets, or a counterfactual by enumerating the exogenous variables (the twin network)\n")
		return b.String(), nil
	case clgQuery(m, q):
		b.WriteString("  the real variables' joint normal per configuration of their discrete parents (conditional linear Gaussian), then the discrete part on the model with their likelihood; the engine is chosen there as below\n")
		return b.String(), nil
	case len(q.Do) > 0 || len(q.Soft) > 0 || q.Kind == kindDensity || len(q.Real) > 0:
		b.WriteString("  answered on the model modified by the query's interventions, soft or real-valued evidence; the engine is chosen there as below\n")
		return b.String(), nil
	}
	a := &answerer{m: m, q: q, opt: opt}
	if err := a.resolve(); err != nil {
		return "", err
	}
	if err := a.validate(); err != nil {
		return "", err
	}
	switch {
	case a.sel == kindEnum:
		b.WriteString("  engine: enumeration (chosen by the caller)\n")
	case a.sel == kindOther:
		fmt.Fprintf(&b, "  engine: %s, %s (chosen by the caller)\n", a.ext.Name(), a.ext.Doc())
	case a.need != nil:
		b.WriteString("  engine: variable elimination (the model has variables still to learn; a junction tree needs every factor)\n")
		a.explainVE(&b, nil)
	case a.sel == kindSearch && (q.Kind == kindMPE || q.Kind == kindMAP):
		b.WriteString("  engine: branch and bound (chosen by the caller; variable elimination if it gives up)\n")
	case a.sel == kindVE || a.sel == kindSearch:
		b.WriteString("  engine: variable elimination (chosen by the caller)\n")
		a.explainVE(&b, nil)
	case a.sel == kindJT:
		b.WriteString("  engine: junction tree (chosen by the caller)\n")
		return a.explainJT(&b)
	case !a.planned():
		if a.useJT() {
			fmt.Fprintf(&b, "  engine: junction tree (%s; variable elimination if it is over the limits)\n", "P(* | e): one calibration answers every marginal")
			return a.explainJT(&b)
		}
		switch a.q.Kind {
		case kindMPE:
			b.WriteString("  engine: branch and bound (AND/OR search with a mini-bucket bound; max-product on the junction tree, or variable elimination, if it gives up)\n")
			return b.String(), nil
		case kindMAP:
			b.WriteString("  engine: branch and bound over the MAP variables, the others summed out first (variable elimination if it gives up)\n")
			return b.String(), nil
		}
		b.WriteString("  engine: variable elimination\n")
		a.explainVE(&b, nil)
	default:
		qp, err := a.decide()
		if err != nil {
			return "", err
		}
		name := "variable elimination"
		if qp.engine == kindJT {
			name = "junction tree"
		}
		fmt.Fprintf(&b, "  engine: %s (%s)\n", name, qp.why)
		if qp.ve == nil && qp.jt == nil && !opt.Exact {
			eng := approxFor(m, q)
			fmt.Fprintf(&b, "  approximate: %s answers if the exact engines refuse for memory (or time), with an error per number\n", eng)
		}
		a.explainVE(&b, qp)
		switch {
		case qp.skipped:
			fmt.Fprintf(&b, "  junction tree: not planned (at least %s)\n", nsString(qp.floorNs))
		case qp.jtErr != nil:
			fmt.Fprintf(&b, "  junction tree: %v\n", qp.jtErr)
		default:
			fmt.Fprintf(&b, "  junction tree: %s clique entries (induced width %d); compile ≈ %s", sizeFloat(qp.entries), qp.jt.tri.width, nsString(qp.compile))
			if opt.Queries > 1 {
				fmt.Fprintf(&b, " shared by %d queries", opt.Queries)
			}
			fmt.Fprintf(&b, ", calibration ≈ %s\n", nsString(qp.calib))
		}
		if qp.engine == kindJT {
			return a.explainJT(&b)
		}
	}
	return b.String(), nil
}

// explainVE writes variable elimination's plan for the query: qp's if it
// has one, else one made now.
func (a *answerer) explainVE(b *strings.Builder, qp *queryPlan) {
	var p *vePlan
	var err error
	keep, _ := a.planKeep()
	if qp != nil {
		p, err = qp.ve, qp.veErr
	} else {
		p, err = a.newVE(a.obs).plan(keep, nil)
	}
	if err != nil {
		fmt.Fprintf(b, "  variable elimination: %v\n", err)
		return
	}
	discrete, relevant := 0, 0
	for v, c := range a.card {
		if c > 0 {
			discrete++
			if p.mark[v] || a.obs[v] >= 0 {
				relevant++
			}
		}
	}
	observed := 0
	for _, s := range a.obs {
		if s >= 0 {
			observed++
		}
	}
	fmt.Fprintf(b, "  variables: %d of %d left (%d barren, %d d-separated from the query given the evidence, %d observed and absorbed)\n",
		p.nvars, discrete, discrete-relevant-p.dsep, p.dsep, observed)
	fmt.Fprintf(b, "  variable elimination: order %s", p.order)
	var others []string
	for _, t := range p.tried {
		if t.h == p.order {
			continue
		}
		if t.err != nil {
			others = append(others, fmt.Sprintf("%s over the limits", t.h))
		} else {
			others = append(others, fmt.Sprintf("%s %s", t.h, sizeFloat(t.cost)))
		}
	}
	largest := product(p.kc)
	for _, st := range p.steps {
		largest = max(largest, product(st.card))
	}
	fmt.Fprintf(b, ", %s steps, largest table %s entries, cost %s entries ≈ %s", sizeFloat(float64(len(p.steps))), sizeFloat(largest), sizeFloat(p.cost), nsString(p.estimate()))
	if len(others) > 0 {
		fmt.Fprintf(b, " (also tried: %s)", strings.Join(others, ", "))
	}
	fmt.Fprintf(b, ", memory %s\n", bytesString(p.memory))
}

// explainJT appends the junction tree's description (Explain) to b.
func (a *answerer) explainJT(b *strings.Builder) (string, error) {
	text, err := Explain(a.m, a.opt)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("  ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}
