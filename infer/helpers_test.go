package infer

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/infer/internal/testnet"
	"github.com/pbl-lang/pbl/ir"
)

// This file holds what the tests share: networks (given, random and
// renumbered) and their models, random queries and evidence, the full
// joint to check the engines against, the engines to run, and comparisons
// of answers that fail on NaN.

// equal reports whether a and b agree within tol, absolutely or relatively.
// It is false if either is NaN.
func equal(a, b, tol float64) bool {
	if a == b {
		return true
	}
	d := math.Abs(a - b)
	if d <= tol {
		return true
	}
	return d <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// relEqual reports whether a and b agree to tol relatively (or are equal);
// it is false if either is NaN.
func relEqual(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// needRenormalisation skips a test that needs the rows of CPTs accepted
// within ir.RowTolerance to be renormalised on load (product.md,
// "Reference semantics"), when the ir package does not do it yet.
func needRenormalisation(t testing.TB) {
	t.Helper()
	m := netSpec{card: []int{2}, parents: [][]int{nil}, cpt: [][]float64{{0.5, 0.5 + 5e-7}}}.build(t)
	if v := m.Factor(0).Vals; !relEqual(v[0]+v[1], 1, 1e-15) {
		t.Skip("ir keeps CPT rows as written (they sum to 1 within 1e-6): this test needs them renormalised on load")
	}
}

// netSpec describes a discrete network for tests: cards, parents, CPT values.
type netSpec struct {
	card    []int
	parents [][]int
	cpt     [][]float64
}

// newSpec returns a netSpec of n variables with no states, parents or
// tables yet.
func newSpec(n int) netSpec {
	return netSpec{card: make([]int, n), parents: make([][]int, n), cpt: make([][]float64, n)}
}

// build builds s as test.pbl, with the plain ir.Builder.
func (s netSpec) build(t testing.TB) *ir.Model {
	t.Helper()
	return s.buildAs(t, "test.pbl", nil)
}

// buildPartial builds s as partial.pbl with the variables marked in unl
// left without numbers: their parents are given (SetParents) but not
// their tables.
func (s netSpec) buildPartial(t testing.TB, unl []bool) *ir.Model {
	t.Helper()
	return s.buildAs(t, "partial.pbl", unl)
}

// buildAs builds s from file, each variable Xv at line v+1 with states
// s0, s1, ..., leaving the variables marked in unl (or none, if nil)
// without tables.
func (s netSpec) buildAs(t testing.TB, file string, unl []bool) *ir.Model {
	t.Helper()
	m, err := s.model(file, unl)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// model is buildAs without a test: it returns the builder's error.
func (s netSpec) model(file string, unl []bool) (*ir.Model, error) {
	return testnet.Build(file, s.card, s.parents, s.cpt, unl)
}

// randomRow fills row with a random distribution; with zeros, some entries
// may be 0 (but never all). The last entry is 1 minus the sum of the others,
// so the row sums to 1 as exactly as float64 allows.
func randomRow(rng *rand.Rand, row []float64, zeros bool) {
	for {
		sum := 0.0
		for i := range row {
			row[i] = rng.Float64() + 0.05
			if zeros && rng.IntN(5) == 0 {
				row[i] = 0
			}
			sum += row[i]
		}
		if sum == 0 {
			continue
		}
		rest := 0.0
		for i := range row[:len(row)-1] {
			row[i] /= sum
			rest += row[i]
		}
		row[len(row)-1] = math.Max(0, 1-rest)
		return
	}
}

// randomTable gives v a random CPT over its parents, a row at a time.
func (s netSpec) randomTable(rng *rand.Rand, v int, zeros bool) {
	size := s.card[v]
	for _, p := range s.parents[v] {
		size *= s.card[p]
	}
	s.cpt[v] = make([]float64, size)
	for r := 0; r < size; r += s.card[v] {
		randomRow(rng, s.cpt[v][r:r+s.card[v]], zeros)
	}
}

// renumber returns s with the same graph and fresh random tables.
func (s netSpec) renumber(rng *rand.Rand, zeros bool) netSpec {
	out := netSpec{card: s.card, parents: s.parents, cpt: make([][]float64, len(s.cpt))}
	for v := range s.cpt {
		out.randomTable(rng, v, zeros)
	}
	return out
}

// randomNet returns a random DAG over n variables of 2..maxCard states, each
// with up to maxPar parents among the earlier variables.
func randomNet(rng *rand.Rand, n, maxCard, maxPar int, zeros bool) netSpec {
	s := newSpec(n)
	for v := 0; v < n; v++ {
		s.card[v] = 2 + rng.IntN(maxCard-1)
		if v > 0 {
			k := rng.IntN(min(v, maxPar) + 1)
			for _, p := range rng.Perm(v)[:k] {
				s.parents[v] = append(s.parents[v], p)
			}
		}
		s.randomTable(rng, v, zeros)
	}
	return s
}

// localNet returns a random network of n variables whose parents (up to
// maxPar) lie among the window previous variables, so that its treewidth
// stays small as n grows.
func localNet(rng *rand.Rand, n, maxPar, window int) netSpec {
	s := newSpec(n)
	for v := 0; v < n; v++ {
		s.card[v] = 2 + rng.IntN(2)
		lo := max(0, v-window)
		if v > 0 {
			k := rng.IntN(min(v-lo, maxPar) + 1)
			for _, p := range rng.Perm(v - lo)[:k] {
				s.parents[v] = append(s.parents[v], lo+p)
			}
		}
		s.randomTable(rng, v, false)
	}
	return s
}

// chainNet returns a chain X0 -> X1 -> ... of n binary variables with
// P(X0=s0) = 0.5 and P(Xi = X(i-1)) = stay.
func chainNet(n int, stay float64) netSpec {
	s := newSpec(n)
	for v := range n {
		s.card[v] = 2
		if v == 0 {
			s.cpt[v] = []float64{0.5, 0.5}
			continue
		}
		s.parents[v] = []int{v - 1}
		s.cpt[v] = []float64{stay, 1 - stay, 1 - stay, stay}
	}
	return s
}

// roots returns n independent binary variables with P(Xi=s0) = p.
func roots(n int, p float64) netSpec {
	s := newSpec(n)
	for v := range n {
		s.card[v], s.cpt[v] = 2, []float64{p, 1 - p}
	}
	return s
}

// fanIn returns n-1 uniform binary roots and X(n-1), a binary child of
// all of them with a uniform table, so that the child's family has 2^n
// entries.
func fanIn(n int) netSpec {
	s := roots(n, 0.5)
	for v := range n - 1 {
		s.parents[n-1] = append(s.parents[n-1], v)
	}
	s.cpt[n-1] = make([]float64, 2<<(n-1))
	for i := range s.cpt[n-1] {
		s.cpt[n-1][i] = 0.5
	}
	return s
}

// randomMarkov builds a Markov network of n variables with random pairwise
// and triple potentials (values in [0, 2), some zeros).
func randomMarkov(t *testing.T, rng *rand.Rand, n int) *ir.Model {
	b := ir.NewBuilder("markov.uai")
	for i := range n {
		k := 2 + rng.IntN(2)
		states := make([]string, k)
		for s := range states {
			states[s] = fmt.Sprint(s)
		}
		b.AddVar(ir.Pos{File: "markov.uai", Line: 1}, fmt.Sprintf("X%d", i), ir.Enum, states, 0)
	}
	m := b.Model()
	for f := 0; f < n+2; f++ {
		size := 1 + rng.IntN(3)
		perm := rng.Perm(n)[:min(size, n)]
		vars := make([]ir.VarID, len(perm))
		card := 1
		for i, v := range perm {
			vars[i] = ir.VarID(v)
			card *= len(m.Vars[v].States)
		}
		vals := make([]float64, card)
		for i := range vals {
			if rng.IntN(10) > 0 {
				vals[i] = 2 * rng.Float64()
			}
		}
		b.AddFactor(ir.Pos{File: "markov.uai", Line: 2}, vars, vals)
	}
	model, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// cards returns the number of states of each of m's variables.
func cards(m *ir.Model) []int {
	card := make([]int, len(m.Vars))
	for v := range card {
		card[v] = len(m.Vars[v].States)
	}
	return card
}

// randomQuery returns a random Prob query on a model with the given
// cardinalities: disjoint random targets, free given variables and evidence.
func randomQuery(rng *rand.Rand, card []int) ir.Query {
	n := len(card)
	perm := rng.Perm(n)
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 1, Col: 1}}}
	ne := rng.IntN(min(3, n-1) + 1)
	for _, v := range perm[:ne] {
		q.Evidence = append(q.Evidence, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
	}
	rest := perm[ne:]
	switch rng.IntN(5) {
	case 0: // P(* | e)
		q.Star = true
	case 1: // P(e)
	case 2: // P(X=x, Y=y | e)
		k := 1 + rng.IntN(min(2, len(rest)))
		for _, v := range rest[:k] {
			q.Targets = append(q.Targets, ir.VarID(v))
			q.TargetStates = append(q.TargetStates, rng.IntN(card[v]))
		}
	default: // P(X, Y | Z, e), sometimes with target states
		k := 1 + rng.IntN(min(2, len(rest)))
		fixed := rng.IntN(4) == 0
		for _, v := range rest[:k] {
			q.Targets = append(q.Targets, ir.VarID(v))
			s := -1
			if fixed {
				s = rng.IntN(card[v])
			}
			q.TargetStates = append(q.TargetStates, s)
		}
		rest = rest[k:]
		nf := rng.IntN(min(2, len(rest)) + 1)
		if fixed && nf == 0 && len(rest) > 0 {
			nf = 1
		}
		if fixed && nf == 0 {
			q.TargetStates = q.TargetStates[:0]
			for range q.Targets {
				q.TargetStates = append(q.TargetStates, -1)
			}
		}
		for _, v := range rest[:nf] {
			q.Free = append(q.Free, ir.VarID(v))
		}
	}
	return q
}

// randomStates observes k distinct random variables of a model with the
// given cardinalities, each at a random state (so the evidence may be
// impossible).
func randomStates(rng *rand.Rand, card []int, k int) []ir.Obs {
	var ev []ir.Obs
	for _, v := range rng.Perm(len(card))[:k] {
		ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
	}
	return ev
}

// alternating observes X0..X(n-1) at s0, s1, s0, ...
func alternating(n int) []ir.Obs {
	ev := make([]ir.Obs, n)
	for v := range ev {
		ev[v] = ir.Obs{Var: ir.VarID(v), State: v % 2}
	}
	return ev
}

// bruteJoint returns the full joint of m over every variable, in row-major
// VarID order, computed independently of the package.
func bruteJoint(m *ir.Model) (joint []float64, card []int) {
	card = cards(m)
	n := 1
	for _, c := range card {
		n *= c
	}
	joint = make([]float64, n)
	a := make([]int, len(card))
	for i := range joint {
		decode(a, card, i)
		p := 1.0
		for _, f := range m.Factors() {
			p *= f.Vals[offset(f, a)]
		}
		joint[i] = p
	}
	return joint, card
}

// jointGiven yields the assignments of a joint from bruteJoint that agree
// with ev, each with its probability. The assignment's slice is reused
// from one to the next.
func jointGiven(joint []float64, card []int, ev []ir.Obs) iter.Seq2[[]int, float64] {
	return func(yield func([]int, float64) bool) {
		a := make([]int, len(card))
		for i, p := range joint {
			decode(a, card, i)
			if consistent(a, ev) && !yield(a, p) {
				return
			}
		}
	}
}

// decode writes the assignment of joint index i into a.
func decode(a, card []int, i int) {
	for v := len(card) - 1; v >= 0; v-- {
		a[v] = i % card[v]
		i /= card[v]
	}
}

// offset returns the offset in f of the assignment a (indexed by VarID).
func offset(f *ir.Factor, a []int) int {
	off := 0
	for k, v := range f.Vars {
		off += a[v] * f.Stride[k]
	}
	return off
}

// consistent reports whether a agrees with every observation.
func consistent(a []int, obs []ir.Obs) bool {
	for _, o := range obs {
		if a[o.Var] != o.State {
			return false
		}
	}
	return true
}

func ids(vs ...int) []ir.VarID {
	out := make([]ir.VarID, len(vs))
	for i, v := range vs {
		out[i] = ir.VarID(v)
	}
	return out
}

// mustCompile compiles m with the default options, failing the test on an
// error.
func mustCompile(t *testing.T, m *ir.Model) *JTree {
	t.Helper()
	jt, err := Compile(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return jt
}

// testEngine is an engine's options under a name for test messages.
type testEngine struct {
	name string
	opt  Options
}

var jtOpt = Options{Engine: JT}

// allEngines are enumeration and VE with each order; everyEngine adds the
// junction tree and the automatic choice.
var (
	allEngines = []testEngine{
		{"enum", Options{Engine: Enum}},
		{"ve-minfill", Options{Engine: VE, Order: MinFill}},
		{"ve-minweight", Options{Engine: VE, Order: MinWeight}},
	}
	everyEngine = slices.Concat(allEngines, []testEngine{{"jt", jtOpt}, {"auto", Options{}}})
)

// answerEach answers q on m under each engine, failing the test on an
// error, and returns the results in the engines' order.
func answerEach(t *testing.T, m *ir.Model, q ir.Query, engines []testEngine) []Result {
	t.Helper()
	rs := make([]Result, len(engines))
	for i, e := range engines {
		r, err := Answer(m, q, e.opt)
		if err != nil {
			t.Fatalf("%+v, %s: %v", q, e.name, err)
		}
		rs[i] = r
	}
	return rs
}

// compareEngines answers q with enumeration and with each of engines and
// fails unless they agree to 1e-12 (see sameAnswer), errors included. MPE
// assignments are compared by probability, since ties may pick different
// assignments. It returns enumeration's answer.
func compareEngines(t *testing.T, m *ir.Model, q ir.Query, what string, engines ...testEngine) (Result, error) {
	t.Helper()
	ref, refErr := Answer(m, q, Options{Engine: Enum})
	for _, e := range engines {
		r, err := Answer(m, q, e.opt)
		if d := sameAnswer(ref, refErr, r, err, 1e-12); d != "" {
			t.Fatalf("%s query %+v: %s differs from enum: %s", what, q, e.name, d)
		}
	}
	return ref, refErr
}

// agree answers q on m under a and b and fails the test on an error or
// unless the answers agree to 1e-12 (see sameAnswer); what begins the
// message. It returns a's answer.
func agree(t *testing.T, m *ir.Model, q ir.Query, a, b Options, what string) Result {
	t.Helper()
	ra, errA := Answer(m, q, a)
	rb, errB := Answer(m, q, b)
	if errA != nil || errB != nil {
		t.Fatalf("%s: %v: %v, %v: %v", what, a.Engine, errA, b.Engine, errB)
	}
	if d := sameAnswer(ra, nil, rb, nil, 1e-12); d != "" {
		t.Fatalf("%s: %v vs %v: %s", what, a.Engine, b.Engine, d)
	}
	return ra
}

// sameAnswer compares two answers to one query, each a result or an error,
// and returns a description of the first difference, or "": the errors
// must have the same message, and the results agree to tol (sameResult)
// and in LogP.
func sameAnswer(a Result, errA error, b Result, errB error, tol float64) string {
	if d := sameError(errA, errB); d != "" || errA != nil {
		return d
	}
	if d := sameResult(a, b, tol); d != "" {
		return d
	}
	_, la, _ := resultParts(a)
	_, lb, _ := resultParts(b)
	if !equal(la, lb, tol) {
		return fmt.Sprintf("LogP %v vs %v", la, lb)
	}
	return ""
}

// sameError returns a description of how two errors differ, or "" if both
// are nil or both have the same message.
func sameError(a, b error) string {
	if (a == nil) != (b == nil) || a != nil && a.Error() != b.Error() {
		return fmt.Sprintf("error %v vs %v", a, b)
	}
	return ""
}

// sameResult compares two results to tol and returns a description of the
// first difference, or "": their kinds, their structure (a table's rows
// and omitted rows, the marginals' variables) and their probabilities.
func sameResult(a, b Result, tol float64) string {
	if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		return fmt.Sprintf("a %T vs a %T", a, b)
	}
	pa, _, sa := resultParts(a)
	pb, _, sb := resultParts(b)
	if fmt.Sprint(sa...) != fmt.Sprint(sb...) || len(pa) != len(pb) {
		return fmt.Sprintf("%v (%d numbers) vs %v (%d numbers)", sa, len(pa), sb, len(pb))
	}
	for i := range pa {
		if !equal(pa[i], pb[i], tol) {
			return fmt.Sprintf("number %d: %v vs %v", i, pa[i], pb[i])
		}
	}
	return ""
}

// sameResultRel is sameResult with a relative tolerance on every number
// (LogP included), failing on NaN.
func sameResultRel(a, b Result, tol float64) string {
	xa, sa := resultNumbers(a)
	xb, sb := resultNumbers(b)
	if sa != sb || len(xa) != len(xb) {
		return fmt.Sprintf("%s vs %s", sa, sb)
	}
	for i := range xa {
		if !relEqual(xa[i], xb[i], tol) && !(math.IsInf(xa[i], -1) && math.IsInf(xb[i], -1)) {
			return fmt.Sprintf("number %d: %v vs %v", i, xa[i], xb[i])
		}
	}
	return ""
}

// resultNumbers returns every number of r (its probabilities and LogP), and
// a description of the rest.
func resultNumbers(r Result) ([]float64, string) {
	ps, logp, rest := resultParts(r)
	switch r := r.(type) {
	case *Assignment:
		rest = append(rest, r.Assignment)
	case *Independence:
		rest = append(rest, r.Independent)
	}
	return append([]float64{logp}, ps...), fmt.Sprintf("%T %v", r, rest)
}

// resultParts returns r's probabilities (a table's rows, the marginals'
// states, or its one probability), its LogP (0 if it has none), and its
// structure: a table's rows' states and omitted rows, the marginals'
// variables.
func resultParts(r Result) (ps []float64, logp float64, shape []any) {
	switch r := r.(type) {
	case *Table:
		for _, row := range r.Rows {
			ps = append(ps, row.P)
			shape = append(shape, row.Values, row.GivenValues)
		}
		shape = append(shape, r.Omitted)
	case *Number:
		ps, logp = []float64{r.P}, r.LogP
	case *Evidence:
		ps, logp = []float64{r.P}, r.LogP
	case *Assignment:
		ps, logp = []float64{r.P}, r.LogP
	case *Marginals:
		for _, mg := range r.Marginals {
			ps = append(ps, mg.P...)
			shape = append(shape, mg.Var)
		}
	case *Independence, *Density, *Bits:
	default:
		panic(fmt.Sprintf("resultParts: %T", r))
	}
	return ps, logp, shape
}

// probOf returns the probability of a result that is one number: P(x | e),
// P(e), or an MPE or MAP assignment's.
func probOf(r Result) float64 {
	switch r := r.(type) {
	case *Number:
		return r.P
	case *Evidence:
		return r.P
	case *Assignment:
		return r.P
	}
	panic(fmt.Sprintf("probOf: a %T", r))
}

// flat returns q as infer reads it, for tests that look into a query of
// any kind.
func flat(q ir.Query) *query {
	f := flatten(q)
	return &f
}
