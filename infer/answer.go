package infer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// DefaultMaxTable is the default limit on the entries of one intermediate
// table (1<<27 entries, 1 GiB of float64).
const DefaultMaxTable = 1 << 27

// DefaultMaxRows is the default limit on the rows of a table answer (1<<22
// rows, about half a gigabyte of Rows and twice that as JSON).
const DefaultMaxRows = 1 << 22

// Options configures Answer. The zero value is the Auto engine with the
// best of the elimination orders and the default limits.
//
// Auto plans each query (plan.go): it drops the barren variables and
// those d-separated from the query given the evidence, absorbs the
// evidence, and weighs variable elimination on what remains (with the
// cheapest of several greedy orders) against the compiled junction tree,
// by estimated time: the tree's compilation, unless it is already
// compiled for the model, shared by the [Options.Queries] of a batch,
// plus one calibration. P(*|e) always uses the junction tree; MPE uses it
// when it is already compiled for the model, branch and bound otherwise
// (mpesearch.go), and MAP never.
// When the junction tree would exceed the limits, variable elimination
// answers. The compiled tree is cached per model, so a sequence of
// queries on one model pays for compilation once. [ExplainQuery] says
// which engine a query gets and why.
//
// Every limit is checked before the work it limits is started: a query
// over a limit is refused at once with a *[TooLargeError], never after
// minutes of work or gigabytes of memory.
//
// Closing Cancel stops the computation within about a tenth of a second:
// the engines poll it between blocks of work (elimination steps, clique
// messages, triangulation steps, 2^16 entries of a table, 2^16
// assignments of an enumeration) and return an error whose kind is
// [ErrCanceled], having kept nothing of the canceled work (a canceled
// compilation is not cached). A channel rather than a context.Context:
// Options is a value that callers copy and keep, which a context should
// not be, and ctx.Done() is such a channel.
type Options struct {
	Engine    string          // the engine's name: Auto (or ""), see above, or a registered engine's (see [Register]); an unknown name is an *UnknownEngineError
	Order     Heuristic       // elimination-order heuristic for VE (the junction tree tries several)
	MaxTable  int             // largest intermediate table or clique, in entries; 0 means DefaultMaxTable
	MaxMemory int64           // largest junction tree, or variable elimination's tables at their peak, in bytes; 0 means DefaultMaxMemory
	MaxRows   int             // most rows of a table answer; 0 means DefaultMaxRows
	Cancel    <-chan struct{} // closed to cancel the computation; nil for never
	Queries   int             // Auto: how many queries the caller answers on this model with these options (a file's, a command line's), among which a junction tree's compilation is shared; 0 means 1

	// Approximate inference (docs/approximate.md). Auto answers
	// approximately, with an error estimate per number, when the exact
	// plan does not fit MaxMemory or MaxTable (the exact engines'
	// *TooLargeError) or the time limit; Exact makes it refuse instead.
	Exact     bool          // never answer approximately: the exact engines' refusal is the error
	TimeLimit time.Duration // bounds each answer (0: none); an approximate engine returns its best answer at the limit
	Deadline  time.Time     // as TimeLimit, as an instant (the earlier of the two applies); zero for none
	Seed      uint64        // the approximate engines' random seed: the same seed, the same numbers, whatever Workers
	Workers   int           // goroutines an approximate engine may run; 0 means 1; never changes the numbers
	IBound    int           // the i-bound of ijgp and wmb; 0 means theirs (grown while time remains)
	Samples   int           // samples (is, lw) or sweeps per chain (gibbs); 0 means until the time limit, or the engine's default

	// LogZOnly makes P(e) compute ln Z(e) = ln Σ_{x ⊨ e} Π φ(x) alone
	// (Evidence.LogZ, with LogZErr): on a Markov network, the partition
	// function without the evidence, by which P(e) is normalised, is not
	// computed, so that the whole time limit goes to ln Z(e) (the UAI
	// competition's PR task), and the answer's P and LogP are NaN (not
	// known). On a Bayesian network ln Z(e) is ln P(e) and nothing
	// changes.
	LogZOnly bool

	fallback  bool // Auto's exact attempt, or its approximate answer: no further fallback (approxplan.go)
	partition bool // the query needs the partition function too: an approximate engine leaves it half the time
}

// deadline returns the instant the answer must be given by: the earlier
// of Deadline and now plus TimeLimit; zero for none.
func (o Options) deadline(now time.Time) time.Time {
	d := o.Deadline
	if o.TimeLimit > 0 {
		if t := now.Add(o.TimeLimit); d.IsZero() || t.Before(d) {
			d = t
		}
	}
	return d
}

// AutoJTVars was the number of discrete variables from which the Auto
// engine answered every query with the junction tree. Auto now plans each
// query (see [Options]); the constant is kept for programs that name it.
const AutoJTVars = 30

func (o Options) maxTable() int {
	if o.MaxTable <= 0 {
		return DefaultMaxTable
	}
	return o.MaxTable
}

func (o Options) maxRows() int {
	if o.MaxRows <= 0 {
		return DefaultMaxRows
	}
	return o.MaxRows
}

// Row is one row of a table answer.
type Row struct {
	Values      []int   // states of Table.Vars
	GivenValues []int   // states of Table.Given, or nil if there are none
	P           float64 // P(Values | GivenValues, e)
}

// Marginal is the posterior distribution of one variable.
type Marginal struct {
	Var ir.VarID
	P   []float64 // P[s] = P(Var = s | e)
}

// Answer answers q on m exactly. User errors (impossible evidence, a table
// or an enumeration that is too large, a malformed query) are returned as
// *ir.Error values at q.Pos, with the kinds of error listed in the package
// documentation; Answer never returns NaN (but for P and LogP of P(e) on a
// Markov network under [Options.LogZOnly], which are not computed).
//
// A model may have variables whose numbers are still to be learned
// (m.Unlearned). Answer refuses, with the kind ir.ErrNoDistribution, only a
// query that needs one of them: in a Bayesian network, one that is an
// ancestor (inclusive) of a query, given or evidence variable; MPE and
// P(* | e) need every discrete variable. Other queries are answered
// exactly from the variables they need, by variable elimination (Auto and
// JT fall back to it: a junction tree needs every factor) or by
// enumerating those variables (Enum). indep needs no numbers.
func Answer(m *ir.Model, q ir.Query, opt Options) (Result, error) {
	if m == nil || q == nil {
		panic("infer: Answer: nil model or query")
	}
	fq := flatten(q)
	return answerQ(m, &fq, opt)
}

// answerQ is Answer of a query as infer reads it.
func answerQ(m *ir.Model, q *query, opt Options) (Result, error) {
	if q.Kind == kindDecision {
		return nil, ir.Errorf(q.Pos, "%s is a question about decisions, which the engines of probabilities do not answer (pbl.AnswerQuery does)", q.Text)
	}
	if q.Kind == kindCausal {
		return nil, ir.Errorf(q.Pos, "%s is a causal question (identification, adjustment, counterfactual), which the engines of probabilities do not answer (pbl.AnswerQuery does)", q.Text)
	}
	if q.Kind == kindIndep {
		if !m.IsBayesNet() {
			return nil, ir.Errorf(q.Pos, "indep(...) tests d-separation in a DAG; this model is a Markov network")
		}
		ind, err := Independent(m, q.A, q.B, q.C)
		if err != nil {
			return nil, ir.Errorf(q.Pos, "%v", err)
		}
		return &Independence{Header: exact(q), Independent: ind}, nil
	}
	r, err := answerAuto(m, q, opt)
	if err != nil {
		return nil, culprit(m, q, opt, err)
	}
	markExact(r, opt)
	return r, nil
}

// Answer answers q on t's model with t, as Answer with the JT engine does
// (MAP, and joint queries whose variables share no clique, use variable
// elimination).
func (t *JTree) Answer(q ir.Query, opt Options) (Result, error) {
	if q == nil {
		panic("infer: Answer: nil query")
	}
	opt.Engine = JT
	fq := flatten(q)
	if fq.Kind == kindDecision || fq.Kind == kindCausal {
		return answerQ(t.m, &fq, opt)
	}
	r, err := answer(t.m, &fq, opt, t)
	if err != nil {
		return nil, culprit(t.m, &fq, opt, err)
	}
	markExact(r, opt)
	return r, nil
}

// answer is Answer with an optional precompiled junction tree.
func answer(m *ir.Model, q *query, opt Options, t *JTree) (Result, error) {
	switch {
	case q.Kind == kindIndep:
		return answerQ(m, q, opt)
	case hasDiscreteChildOfReal(m):
		// A discrete variable with a real parent: exact if the query
		// does not reach it, else likelihood weighting (hybrid.go).
		if m2 := withoutBarren(m, q); m2 != nil {
			return answer(m2, q, opt, nil)
		}
		return answerHybrid(m, q, opt)
	case len(q.Do) > 0 || len(q.Soft) > 0:
		return intervened(m, q, opt)
	case clgQuery(m, q):
		return answerCLG(m, q, opt, t) // real parents, real targets, do(...) of a real variable: clg.go
	case q.Kind == kindDensity:
		return density(m, q, opt)
	case len(q.Real) > 0:
		return withReal(m, q, opt)
	}
	a := getAnswerer()
	defer putAnswerer(a)
	a.fq = *q
	a.m, a.q, a.opt, a.jt = m, &a.fq, opt, t
	if err := a.setup(); err != nil {
		return nil, err
	}
	defer a.release()
	r, err := a.answer()
	if err == nil && a.kind == kindOther {
		a.approximate(r)
	}
	return r, err
}

// answer answers the query set up.
func (a *answerer) answer() (Result, error) {
	q := a.q
	switch q.Kind {
	case kindProb:
		switch q.Form() {
		case formTable:
			return a.table()
		case formNumber:
			return a.number()
		case formEvidence:
			return a.evidence()
		case formMarginals:
			return a.marginals()
		}
	case kindMPE:
		return a.mpe()
	case kindMAP:
		return a.mapQuery()
	case kindEntropy, kindMI:
		return a.info()
	}
	return nil, ir.Errorf(q.Pos, "unsupported query %s", q.Text)
}

type answerer struct {
	m     *ir.Model
	q     *query
	fq    query // what q points to when answer sets it (no allocation per query)
	opt   Options
	obs   []int
	card  []int
	k     *factor.Kernel
	need  []bool     // the variables the query needs, if the model has unlearned ones; else nil
	sel   engineKind // the engine of Options.Engine
	ext   Engine     // Options.Engine's, when sel is kindOther
	kind  engineKind // kindEnum, kindVE, kindJT or kindOther, as chosen
	tree  *JTree     // the tree of the JT engine
	eng   engine
	jt    *JTree      // a precompiled tree for the JT engine, or nil
	errs  []float64   // an approximate engine's error of each number of the result so far
	trees []*jtEngine // engines holding a workspace of tree, to release
	plan  *queryPlan  // the Auto engine's choice, when it planned the query

	kern  factor.Kernel // what k points to (one allocation less per query)
	tree1 [1]*jtEngine  // room for trees' first engine
	buf   answerBuf     // buffers kept from query to query (getAnswerer)
}

// answerBuf holds what an answerer reuses from one query to the next, so
// that a query on a compiled tree allocates only its answer: the
// per-variable rows, the first engine, and the junction tree's scratch for
// the joint it returns.
type answerBuf struct {
	obs, card []int
	role      []uint8     // role[v]: how the query names v (roleNone if it does not)
	vars      []ir.VarID  // unobserved, table's keep
	st        []int       // table's assignment
	ve        ve          // the first engine's variable elimination
	jt        jtEngine    // the first engine, when it is the junction tree
	js        jtAnswerBuf // jt's answers
}

// answerers is a free list of answerers whose buffers queries reuse. It is
// a list under a mutex rather than a sync.Pool, which a collection empties,
// so that a query on a compiled tree allocates nothing but its answer
// however often the collector runs. At most maxIdleAnswerers are kept, and
// none whose buffers are large (maxIdleVars), so that an idle program
// holds little (about 2 MB per answerer, 30 MB in all, at most).
var answerers struct {
	sync.Mutex
	free []*answerer
}

const (
	maxIdleAnswerers = 16
	maxIdleVars      = 1 << 16 // variables of the evidence row and the cardinalities
	maxIdleTable     = 1 << 16 // entries of the joint table
)

// getAnswerer returns an answerer with empty query fields and the buffers
// of an earlier query, if any.
func getAnswerer() *answerer {
	answerers.Lock()
	defer answerers.Unlock()
	if n := len(answerers.free); n > 0 {
		a := answerers.free[n-1]
		answerers.free = answerers.free[:n-1]
		return a
	}
	return new(answerer)
}

// putAnswerer keeps a's buffers for a later query. Nothing of a query
// outlives it in them: the answer never shares their memory.
func putAnswerer(a *answerer) {
	b := a.buf
	if cap(b.obs) > maxIdleVars || cap(b.vars) > maxIdleVars || cap(b.js.vals) > maxIdleTable {
		return
	}
	b.ve, b.jt = ve{}, jtEngine{}
	b.js.drop()
	*a = answerer{buf: b}
	answerers.Lock()
	if len(answerers.free) < maxIdleAnswerers {
		answerers.free = append(answerers.free, a)
	}
	answerers.Unlock()
}

// The roles in which a query names a variable (answerBuf.role).
const (
	roleNone uint8 = iota
	roleEvidence
	roleTarget
	roleGiven
)

var roleNames = [...]string{roleEvidence: "evidence", roleTarget: "a query variable", roleGiven: "a given variable"}

// roleTwice says how a query names a variable twice in the same role.
var roleTwice = [...]string{roleEvidence: "observed twice in the evidence", roleTarget: "asked for twice", roleGiven: "given twice"}

// grow returns s resliced to n entries, reallocated if it is too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// release returns the junction tree's workspaces, if any.
func (a *answerer) release() {
	for _, e := range a.trees {
		e.release()
	}
	a.trees = nil
}

// useJT reports whether the Auto engine uses the junction tree for a
// query it does not plan (see planned): P(*|e), whose marginals one
// calibration gives, and MPE when the model's tree is already compiled
// (otherwise MPE is answered by branch and bound, mpesearch.go, which
// needs no tree).
func (a *answerer) useJT() bool {
	switch {
	case a.q.Kind == kindMAP:
		return false
	case a.q.Kind == kindProb && a.q.Form() == formMarginals:
		return true
	case a.q.Kind == kindMPE:
		// Branch and bound, whether or not a tree is compiled: the
		// answer (a tie's assignment, the last digits) must not depend on
		// what ran before.
		return false
	}
	return false
}

// setup validates the query against the model and builds the engine.
func (a *answerer) setup() error {
	if hasDiscreteChildOfReal(a.m) {
		return hybridRefusal(a.q.Pos, a.m, "")
	}
	if err := a.resolve(); err != nil {
		return err
	}
	if err := a.validate(); err != nil {
		return err
	}
	a.opt.partition = a.q.Kind == kindProb && a.q.Form() == formEvidence && !a.m.IsBayesNet() && !a.opt.LogZOnly
	return a.choose()
}

// validate checks the query against the model and sets up the evidence,
// the cardinalities and, in a model with variables still to learn, the
// variables the query needs.
func (a *answerer) validate() error {
	m, q := a.m, a.q
	n := len(m.Vars)
	a.obs = grow(a.buf.obs, n)
	a.card = grow(a.buf.card, n)
	a.buf.obs, a.buf.card = a.obs, a.card
	a.kern = factor.Kernel{Cancel: a.opt.Cancel}
	a.k = &a.kern
	a.trees = a.tree1[:0]
	for v := range a.obs {
		a.obs[v] = -1
		a.card[v] = 0
		if m.Discrete(ir.VarID(v)) {
			a.card[v] = len(m.Vars[v].States)
		}
	}
	role := grow(a.buf.role, n)
	a.buf.role = role
	clear(role)
	use := func(v ir.VarID, what uint8) error {
		if v < 0 || int(v) >= n {
			return ir.Errorf(q.Pos, "query names variable %d, which the model does not have", v)
		}
		if a.card[v] == 0 {
			return ir.Errorf(q.Pos, "%s is real-valued; exact discrete inference cannot use it", ir.Quote(m.Vars[v].Name))
		}
		if role[v] == what {
			return ir.Errorf(q.Pos, "%s is %s", ir.Quote(m.Vars[v].Name), roleTwice[what])
		}
		if role[v] != roleNone {
			return ir.Errorf(q.Pos, "%s is named twice in the query (as %s and as %s)", ir.Quote(m.Vars[v].Name), roleNames[role[v]], roleNames[what])
		}
		role[v] = what
		return nil
	}
	for _, o := range q.Evidence {
		if err := use(o.Var, roleEvidence); err != nil {
			return err
		}
		if o.State < 0 || o.State >= a.card[o.Var] {
			return ir.Errorf(q.Pos, "state %d of %s is out of range", o.State, ir.Quote(m.Vars[o.Var].Name))
		}
		a.obs[o.Var] = o.State
	}
	for i, v := range q.Targets {
		if err := use(v, roleTarget); err != nil {
			return err
		}
		if q.Kind == kindProb && i < len(q.TargetStates) && q.TargetStates[i] >= a.card[v] {
			return ir.Errorf(q.Pos, "state %d of %s is out of range", q.TargetStates[i], ir.Quote(m.Vars[v].Name))
		}
	}
	for _, v := range q.Free {
		if err := use(v, roleGiven); err != nil {
			return err
		}
	}
	if q.Kind == kindProb && len(q.TargetStates) != len(q.Targets) {
		panic("infer: Answer: len(TargetStates) != len(Targets)")
	}
	// A model with variables still to be learned: refuse a query that
	// needs one, and answer the others from the variables they need.
	if u := unlearned(m); len(u) > 0 {
		a.need = a.needed()
		u = slices.DeleteFunc(u, func(v ir.VarID) bool { return !a.need[v] })
		if len(u) > 0 {
			return &ir.Error{Pos: q.Pos, Msg: noNumbers(m, u), Err: ir.ErrNoDistribution}
		}
	}
	// Before any engine is built (a junction tree compiled, say).
	return a.checkRows()
}

// resolve finds the engine of Options.Engine.
func (a *answerer) resolve() error {
	sel, ext, err := resolve(a.opt.Engine)
	if err != nil {
		return &ir.Error{Pos: a.q.Pos, Msg: err.Error(), Err: err}
	}
	a.sel, a.ext = sel, ext
	return nil
}

// choose builds the engine: the one of Options.Engine, or Auto's choice.
func (a *answerer) choose() error {
	m, q := a.m, a.q
	switch a.sel {
	case kindEnum, kindVE, kindOther:
		a.kind = a.sel
	case kindSearch:
		// Branch and bound for MPE and MAP (mpe.go), VE for the rest.
		a.kind = kindVE
	case kindAuto, kindJT:
		a.kind = kindVE
		if a.need != nil {
			// A junction tree needs every factor: with variables
			// still to be learned, VE answers.
			break
		}
		if a.sel == kindAuto {
			if a.planned() {
				qp, err := a.decide()
				if err != nil {
					return err
				}
				a.plan = qp
				if err := a.checkTime(qp); err != nil {
					return err
				}
				if qp.engine == kindVE {
					break
				}
			} else if !a.useJT() {
				break
			}
		}
		t := a.jt
		if t == nil {
			var err error
			t, err = cachedCompile(m, a.opt)
			if errors.Is(err, ErrCanceled) {
				return canceled(q.Pos)
			}
			if err != nil {
				if a.sel == kindAuto {
					break
				}
				return at(q.Pos, err)
			}
		}
		a.kind, a.tree = kindJT, t
	default:
		panic("infer: Answer: unknown engine")
	}
	a.eng = a.firstEngine()
	if v, ok := a.eng.(*ve); ok && a.plan != nil && a.plan.ve != nil {
		// The planner's plan is the first joint's.
		v.pre, v.preKeep = a.plan.ve, a.plan.keep
	}
	return nil
}

// checkTime refuses, in Auto's exact attempt under a time limit, a plan
// whose estimated time is over what is left of it (approxplan.go).
func (a *answerer) checkTime(qp *queryPlan) error {
	if !a.opt.fallback || a.opt.Deadline.IsZero() {
		return nil
	}
	est := qp.veNs
	if qp.engine == kindJT {
		est = qp.jtNs
	}
	left := time.Until(a.opt.Deadline)
	if est > float64(left) && !math.IsInf(est, 1) {
		return &slowError{need: time.Duration(est), limit: left}
	}
	return nil
}

// newVE returns variable elimination for the query with the evidence obs
// (indexed by VarID).
func (a *answerer) newVE(obs []int) *ve {
	return &ve{m: a.m, opt: a.opt, pos: a.q.Pos, obs: obs, card: a.card, k: a.k, cond: a.normalised()}
}

// engine returns the chosen engine for the evidence obs (indexed by
// VarID).
func (a *answerer) engine(obs []int) engine {
	v := a.newVE(obs)
	switch a.kind {
	case kindOther:
		return &lazyInstance{e: a.ext, m: a.m, obs: obs, opt: a.opt}
	case kindEnum:
		return &enum{m: a.m, pos: a.q.Pos, k: a.k, obs: obs, card: a.card, mark: a.need}
	case kindJT:
		e := &jtEngine{t: a.tree, w: a.tree.get(), obs: obs, ve: v, k: a.k}
		a.trees = append(a.trees, e)
		return e
	}
	return v
}

// firstEngine is engine(a.obs) in the answerer's buffers.
func (a *answerer) firstEngine() engine {
	b := &a.buf
	b.ve = ve{m: a.m, opt: a.opt, pos: a.q.Pos, obs: a.obs, card: a.card, k: a.k, cond: a.normalised()}
	if a.kind != kindJT {
		if a.kind == kindEnum || a.kind == kindOther {
			return a.engine(a.obs)
		}
		return &b.ve
	}
	b.jt = jtEngine{t: a.tree, w: a.tree.get(), obs: a.obs, ve: &b.ve, k: a.k, s: &b.js}
	a.trees = append(a.trees, &b.jt)
	return &b.jt
}

// markExact sets r's Exact for an answer no approximate engine gave (an
// approximate one's answerer marked it: see approximate).
func markExact(r Result, opt Options) {
	h := r.Head()
	if h.Engine != "" {
		return
	}
	kind, e, err := resolve(opt.Engine)
	h.Exact = err != nil || kind != kindOther || e.Exact()
	if h.Exact {
		h.ErrorEstimate = nil
	}
}

// inexact returns the engine's instance as an [Inexact] one, or nil if
// the engine is exact or has not been prepared.
func (a *answerer) inexact() Inexact {
	if a.kind != kindOther || a.ext.Exact() {
		return nil
	}
	eng := a.eng
	if l, ok := eng.(*lazyInstance); ok {
		if l.in == nil {
			return nil
		}
		eng = l.in
	}
	ie, _ := eng.(Inexact)
	return ie
}

// jointErr returns the errors of the last Joint of the engine, or nil if
// it is exact (see [Inexact]).
func (a *answerer) jointErr() ([]float64, LogErr, bool) {
	ie := a.inexact()
	if ie == nil {
		return nil, LogErr{}, false
	}
	c, l := ie.JointErr()
	return c, l, true
}

// addErr records the error of the next number of the result.
func (a *answerer) addErr(e float64) {
	if math.IsNaN(e) || e < 0 {
		e = math.Inf(1)
	}
	a.errs = append(a.errs, e)
}

// approximate marks r, the answer of an approximate engine: not exact,
// the engine's name, and the error of each number.
func (a *answerer) approximate(r Result) {
	ie := a.inexact()
	if a.kind != kindOther || a.ext.Exact() {
		return
	}
	h := r.Head()
	h.Exact = false
	h.Engine = a.ext.Name()
	if !a.opt.fallback {
		h.Why = &Why{Caller: true}
	}
	h.ErrorEstimate = append([]float64(nil), a.errs...)
	if ie != nil {
		h.Stopped = ie.Stopped()
	}
	if ie == nil && len(h.ErrorEstimate) == 0 {
		h.ErrorEstimate = nil
	}
}

// needed marks the variables whose numbers the query needs: in a Bayesian
// network the ancestors (inclusive) of its query, given and evidence
// variables, or every variable for MPE and P(* | e), which ask about every
// unobserved one. In a Markov network every variable is needed.
func (a *answerer) needed() []bool {
	q := a.q
	if q.Kind == kindMPE || q.Kind == kindProb && q.Form() == formMarginals || !a.m.IsBayesNet() {
		mark := make([]bool, len(a.m.Vars))
		for v := range mark {
			mark[v] = true
		}
		return mark
	}
	r := &ve{m: a.m, obs: a.obs}
	return r.relevant(q.Targets, q.Free)
}

// unlearned returns the discrete variables of m whose distribution is still
// to be learned (real variables take no part in discrete inference).
func unlearned(m *ir.Model) []ir.VarID {
	var out []ir.VarID
	for _, v := range m.Unlearned() {
		if m.Discrete(v) {
			out = append(out, v)
		}
	}
	return out
}

// noNumbers is the message of a refusal to answer without the numbers of
// the variables u, naming up to three of them.
func noNumbers(m *ir.Model, u []ir.VarID) string {
	if m.Vars[u[0]].Decision {
		return fmt.Sprintf("%s is a decision, which has no distribution: ask about the decisions with MEU(), policy(%s) or EU(%s=...)", ir.Quote(m.Vars[u[0]].Name), ir.Quote(m.Vars[u[0]].Name), ir.Quote(m.Vars[u[0]].Name))
	}
	names := make([]string, 0, 3)
	for _, v := range u[:min(3, len(u))] {
		names = append(names, ir.Quote(m.Vars[v].Name))
	}
	more := ""
	if len(u) > 3 {
		more = fmt.Sprintf(" and %d more", len(u)-3)
	}
	return fmt.Sprintf("the model has no numbers yet for %s%s: learn them first (a learn statement, or pbl learn)", strings.Join(names, ", "), more)
}

// impossible returns the error for evidence of probability 0.
func (a *answerer) impossible() error {
	return impossible(a.q.Pos, a.m, a.q.Evidence)
}

// impossible returns the error, at pos, for the evidence ev of probability
// 0 on m. Without evidence, it is the model itself (a Markov network whose
// factors' product is 0 everywhere) that has nothing to normalise.
func impossible(pos ir.Pos, m *ir.Model, ev []ir.Obs) error {
	msg := fmt.Sprintf("impossible evidence: %s = 0", evidenceText(m, ev))
	if len(ev) == 0 {
		msg = "the model gives every assignment probability 0 (its partition function is 0)"
	}
	return &ir.Error{Pos: pos, Msg: msg, Err: ErrImpossible}
}

func (a *answerer) evidenceText() string { return evidenceText(a.m, a.q.Evidence) }

// evidenceText renders the evidence as P(A=a, B=b), eliding all but the
// first eight of a long list.
func evidenceText(m *ir.Model, ev []ir.Obs) string {
	return "P(" + assignmentText(m, ev) + ")"
}

// assignmentText renders ev as A=a, B=b, eliding all but the first
// eight of a long list.
func assignmentText(m *ir.Model, ev []ir.Obs) string {
	var b strings.Builder
	for i, o := range ev {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 8 && len(ev) > 10 {
			fmt.Fprintf(&b, "... %d more", len(ev)-i)
			break
		}
		x := m.Vars[o.Var]
		b.WriteString(ir.Quote(x.Name))
		b.WriteByte('=')
		b.WriteString(ir.Quote(x.States[o.State]))
	}
	return b.String()
}

// pe returns Σ_{x ⊨ e} Π φ(x) (P(e) for a Bayesian network), or the
// impossible-evidence error when it is 0.
func (a *answerer) pe() (factor.Scaled, error) {
	p, err := peOf(a.eng)
	if err == nil && p.M == 0 {
		err = a.impossible()
	}
	return p, err
}

// peOf returns Σ_{x ⊨ e} Π φ(x) from eng.
func peOf(eng engine) (factor.Scaled, error) {
	f, c, err := eng.Joint(nil)
	if err != nil {
		return factor.Scaled{}, err
	}
	return factor.Scaled{M: c.M * f.Vals[0], E: c.E}.Norm(), nil
}

// z returns the partition function Z = Σ_x Π φ(x) by which P(e) is
// normalised: 1 for a Bayesian network (whose rows sum to 1), computed for
// a Markov network. A Markov network whose every assignment has weight 0
// has no distribution, which is the impossible-evidence error.
func (a *answerer) z() (factor.Scaled, error) {
	if a.m.IsBayesNet() {
		return factor.Scaled{M: 0.5, E: 1}, nil
	}
	z, err := a.eng.Partition()
	if err == nil && z.M == 0 {
		err = &ir.Error{Pos: a.q.Pos, Msg: "every assignment of the model has weight 0: its partition function is 0", Err: ErrImpossible}
	}
	return z, err
}

// rowCount returns the rows a table answer would have: the configurations
// of the given variables times those of the targets (1 with target
// states).
func (a *answerer) rowCount() float64 {
	n := 1.0
	for _, v := range a.q.Free {
		n *= float64(a.card[v])
	}
	if a.q.TargetStates[0] < 0 {
		for _, v := range a.q.Targets {
			n *= float64(a.card[v])
		}
	}
	return n
}

// checkRows refuses a table answer of more rows than MaxRows.
func (a *answerer) checkRows() error {
	q := a.q
	if q.Kind != kindProb || q.Form() != formTable {
		return nil
	}
	if rows, limit := a.rowCount(), a.opt.maxRows(); rows > float64(limit) {
		vars := slices.Concat(q.Free, q.Targets)
		e := &TooLargeError{What: OversizeRows, Vars: vars, Size: rows, Limit: int64(limit)}
		e.msg = fmt.Sprintf("the answer would have %s rows (the states of %s), more than the limit of %d; "+
			"fix some of the given variables, or ask for fewer variables", sizeFloat(rows), varList(a.m, vars), limit)
		return e.at(q.Pos)
	}
	return nil
}

func (a *answerer) table() (Result, error) {
	q := a.q
	keep := append(append(a.buf.vars[:0], q.Free...), q.Targets...)
	a.buf.vars = keep
	f, _, err := a.eng.Joint(keep)
	if err != nil {
		return nil, err
	}
	ce, _, inexact := a.jointErr()
	coarse := a.k.Coarse // a 0 in f may be an entry flushed below its largest
	nt := 1
	for _, v := range q.Targets {
		nt *= a.card[v]
	}
	fixed := q.TargetStates[0] >= 0
	fixedOff := 0
	if fixed {
		for i, s := range q.TargetStates {
			fixedOff += s * f.Stride[len(q.Free)+i]
		}
	}
	r := &Table{Header: exact(q), Vars: q.Targets, Given: q.Free}
	st := grow(a.buf.st, len(keep))
	a.buf.st = st
	// The rows, their values and their given values in three allocations,
	// sized for every row (those omitted leave room unused).
	rows := len(f.Vals)
	if fixed {
		rows /= nt
	}
	r.Rows = make([]Row, 0, rows)
	values := make([]int, 0, rows*len(q.Targets))
	var given []int
	if len(q.Free) > 0 {
		given = make([]int, 0, rows*len(q.Free))
	}
	total := 0.0
	var side engine // for the blocks far below the table's largest
	var sideObs []int
	for g := 0; g*nt < len(f.Vals); g++ {
		block := f.Vals[g*nt : (g+1)*nt]
		norm := sum(block)
		total += norm
		lo, hi := 0, nt
		if fixed {
			lo, hi = fixedOff, fixedOff+1
		}
		if coarse && imprecise(block, norm) {
			// The block lies so far below the table's largest that its
			// entries lost digits, or underflowed to 0: P(given, e) may
			// be tiny without being 0. Ask for P(targets | given, e)
			// itself, with the given configuration as evidence.
			if side == nil {
				sideObs = slices.Clone(a.obs)
				side = a.engine(sideObs)
			}
			f.Assignment(st, g*nt)
			for i, v := range q.Free {
				sideObs[v] = st[i]
			}
			b, _, err := side.Joint(q.Targets)
			if err != nil {
				return nil, err
			}
			block, norm = b.Vals, sum(b.Vals)
			total += norm
		}
		if norm == 0 {
			r.Omitted += hi - lo
			continue
		}
		var blockErr float64 // Σ of the errors of the block's entries, normalised
		if inexact && len(q.Free) > 0 {
			for t := range nt {
				blockErr += ce[g*nt+t]
			}
		}
		for t := lo; t < hi; t++ {
			f.Assignment(st, g*nt+t)
			row := Row{P: prob(block[t] / norm)}
			if inexact {
				a.addErr(condErr(ce[g*nt+t], row.P, blockErr, norm/sum(f.Vals), len(q.Free) > 0))
			}
			values, row.Values = appendRow(values, st[len(q.Free):])
			if given != nil {
				given, row.GivenValues = appendRow(given, st[:len(q.Free)])
			}
			r.Rows = append(r.Rows, row)
		}
	}
	if total == 0 {
		return nil, a.impossible()
	}
	return r, nil
}

// imprecise reports whether the conditional distribution block/norm,
// read off a table whose entries below the normal range may have been
// flushed (coarse), has lost digits: an entry is subnormal, or is 0 where
// norm is small enough that a flushed entry would have been a normal
// probability once divided by it.
func imprecise(block []float64, norm float64) bool {
	for _, x := range block {
		if x != 0 && x < factor.MinNormal || x == 0 && norm < 0x1p-50 {
			return true
		}
	}
	return false
}

// prob returns x clamped to [0, 1]: a ratio of sums computed in different
// orders may round to 1 + ulp.
func prob(x float64) float64 { return max(0, min(1, x)) }

// givenValues returns a copy of s, or nil if it is empty.
func givenValues(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return append([]int(nil), s...)
}

// appendRow appends s to buf and returns buf and the row appended, its
// capacity clipped.
func appendRow(buf, s []int) ([]int, []int) {
	n := len(buf)
	buf = append(buf, s...)
	return buf, buf[n:len(buf):len(buf)]
}

func (a *answerer) number() (Result, error) {
	q := a.q
	f, _, err := a.eng.Joint(q.Targets)
	if err != nil {
		return nil, err
	}
	coarse := a.k.Coarse // a 0 in f may be an entry flushed below its largest
	norm := sum(f.Vals)
	if norm == 0 {
		return nil, a.impossible()
	}
	x := f.Vals[f.Index(q.TargetStates)]
	r := &Number{Header: exact(q), Vars: q.Targets, P: prob(x / norm), LogP: min(0, math.Log(x)-math.Log(norm))}
	if ce, _, ok := a.jointErr(); ok {
		a.addErr(ce[f.Index(q.TargetStates)])
	}
	if coarse && x < factor.MinNormal {
		// The entry has lost digits relative to the table's largest, or
		// is 0: ask for P(x, e) and P(e) themselves, which carry their
		// exponents.
		obs := slices.Clone(a.obs)
		for i, v := range q.Targets {
			obs[v] = q.TargetStates[i]
		}
		pxe, err := peOf(a.engine(obs))
		if err != nil {
			return nil, err
		}
		pe, err := a.pe()
		if err != nil {
			return nil, err
		}
		r.LogP = min(0, pxe.Log()-pe.Log())
		r.P = prob(math.Exp(r.LogP))
		if pxe.M == 0 {
			r.P = 0
		}
	}
	return r, nil
}

// evidence answers P(e) = Σ_{x ⊨ e} Π φ(x) / Z. Unlike the conditional
// forms, P(e) = 0 is an answer here, not an error. A P(e) too small for a
// normal float64 is an error that gives ln P(e): printing 0 would claim
// impossibility.
func (a *answerer) evidence() (Result, error) {
	// A Markov network's P(e) is Z_e / Z. Z, the wider of the two (no
	// evidence shrinks it), comes first, so that an exact engine that
	// cannot compute it refuses before the work on Z_e, and Auto's
	// approximate answer gets the time that work would have had.
	markov := !a.m.IsBayesNet()
	z := factor.Scaled{M: 0.5, E: 1}
	if markov && !a.opt.LogZOnly {
		var err error
		if z, err = a.z(); err != nil {
			return nil, err
		}
	}
	ze, err := peOf(a.eng)
	if err != nil {
		return nil, err
	}
	_, le, inexact := a.jointErr()
	r := &Evidence{Header: exact(a.q), LogZ: ze.Log()}
	switch {
	case markov && a.opt.LogZOnly:
		r.P, r.LogP = math.NaN(), math.NaN() // Z is not known
	case ze.M != 0:
		r.LogP = min(0, ze.Log()-z.Log())
		r.P = prob(ze.Div(z))
	default:
		r.LogP = math.Inf(-1)
	}
	if inexact {
		r.LogZErr, r.LogZLo, r.LogZHi = le.Err, le.Lo, le.Hi
		if math.IsNaN(r.LogZLo) {
			r.LogZLo = math.Inf(-1)
		}
		if math.IsNaN(r.LogZHi) {
			r.LogZHi = math.Inf(1)
		}
		// ln P(e) = ln Z_e − ln Z: the errors add, and so do the bounds'
		// ends (Z is 1, exactly, in a Bayesian network).
		if markov && a.opt.LogZOnly {
			r.LogPErr, r.LogPLo, r.LogPHi = math.Inf(1), math.Inf(-1), 0
			a.addErr(math.Inf(1))
			return r, nil
		}
		if markov {
			pz := a.inexact().PartitionErr()
			le = LogErr{Err: le.Err + pz.Err, Lo: le.Lo - pz.Hi, Hi: le.Hi - pz.Lo}
		}
		r.LogPErr, r.LogPLo, r.LogPHi = le.Err, le.Lo, min(0, le.Hi)
		if math.IsNaN(r.LogPLo) {
			r.LogPLo = math.Inf(-1)
		}
		if math.IsNaN(r.LogPHi) {
			r.LogPHi = 0
		}
		a.addErr(probErr(r.P, le.Err))
	}
	if ze.M != 0 && !(r.P >= factor.MinNormal) && !(markov && a.opt.LogZOnly) {
		return nil, &ir.Error{Pos: a.q.Pos, Err: &UnderflowError{LogP: r.LogP, LogZ: r.LogZ},
			Msg: fmt.Sprintf("%s = exp(%s) underflows float64 (the evidence is possible, but less likely than 2.2e-308)",
				a.evidenceText(), ir.FormatFloat(r.LogP))}
	}
	return r, nil
}

// unobserved returns the unobserved discrete variables, in the
// answerer's buffer.
func (a *answerer) unobserved() []ir.VarID {
	out := a.buf.vars[:0]
	for v, c := range a.card {
		if c > 0 && a.obs[v] < 0 {
			out = append(out, ir.VarID(v))
		}
	}
	a.buf.vars = out
	return out
}

func (a *answerer) marginals() (Result, error) {
	vs := a.unobserved()
	if e, ok := a.eng.(*jtEngine); ok {
		mg, pe, err := e.marginals(vs)
		if err != nil {
			return nil, err
		}
		if pe.M == 0 {
			return nil, a.impossible()
		}
		return &Marginals{Header: exact(a.q), Marginals: mg}, nil
	}
	r := &Marginals{Header: exact(a.q), Marginals: make([]Marginal, 0, len(vs))}
	if len(vs) == 0 {
		if _, err := a.pe(); err != nil {
			return nil, err
		}
		return r, nil
	}
	for _, v := range vs {
		p, err := a.posterior([]ir.VarID{v})
		if err != nil {
			return nil, err
		}
		r.Marginals = append(r.Marginals, Marginal{Var: v, P: p})
	}
	return r, nil
}

// posterior returns P(vs | e), flat in row-major order over vs: the joint
// of vs and the evidence divided by its sum, P(e). When P(e) = 0 it returns
// the impossible-evidence error.
func (a *answerer) posterior(vs []ir.VarID) ([]float64, error) {
	f, _, err := a.eng.Joint(vs)
	if err != nil {
		return nil, err
	}
	norm := sum(f.Vals)
	if norm == 0 {
		return nil, a.impossible()
	}
	p := make([]float64, len(f.Vals))
	for i, x := range f.Vals {
		p[i] = prob(x / norm)
	}
	if ce, _, ok := a.jointErr(); ok && a.q.Kind == kindProb {
		for _, e := range ce {
			a.addErr(e)
		}
	}
	return p, nil
}

// sizeString renders the product of card exactly when it fits an int64.
func sizeString(card []int) string {
	n := product(card)
	if n < 1<<62 {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatFloat(n, 'g', 3, 64)
}

// product returns the product of card as a float64 (which does not
// overflow).
func product(card []int) float64 {
	n := 1.0
	for _, c := range card {
		n *= float64(c)
	}
	return n
}

// sum returns the sum of xs.
func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// condErr returns the error of P(t | g, e) = p / P(g | e), a table's row,
// from the error d of p = P(t, g | e) and the sum blockErr of the errors
// of P(t', g | e) over the block's rows t' (pg = P(g | e)): the quotient's
// error to first order, d/pg + q·blockErr/pg. Without given variables the
// block is the whole table, whose normalisation is exact: d.
func condErr(d, q, blockErr, pg float64, given bool) float64 {
	if !given {
		return d
	}
	if !(pg > 0) {
		return math.Inf(1)
	}
	return min(1, (d+q*blockErr)/pg)
}

// probErr returns the error of p = e^l given the error d of l: the wider
// side, p(e^d − 1), at most 1.
func probErr(p, d float64) float64 {
	if math.IsInf(d, 1) {
		return math.Inf(1)
	}
	return min(1, p*math.Expm1(d))
}
