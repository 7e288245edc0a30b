package learn

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// Options configures learning.
type Options struct {
	Method Method
	Alpha  float64    // Bayes: Dirichlet pseudo-count added to every cell (Laplace = 1)
	ESS    float64    // Bayes: BDeu equivalent sample size; > 0 replaces Alpha
	M      float64    // MEstimate: m, with p = 1/k
	Vars   []ir.VarID // the variables whose CPTs (or densities) are learned; nil = every discrete variable (every unlearned one AND every one with a CPT, whose numbers are replaced) and every real variable with parents, children or a density

	// VarSmoothing is scikit-learn GaussianNB's var_smoothing: the share
	// of the largest variance of any learned real variable added to every
	// variance of a Gaussian (see the package doc). 0 means
	// DefaultVarSmoothing; it must be finite and not negative.
	VarSmoothing float64

	// The iterative methods (EM, Gradient): see em.go.
	Init     Init    // the starting parameters; InitAuto: random if the model has hidden variables, else the model's
	Seed     uint64  // the seed of random starts (restart r draws from Seed and r)
	Restarts int     // the number of starts, the best kept; 0 means 1. Starts after the first are random.
	MaxIter  int     // the most iterations per start; 0 means the method's default
	Tol      float64 // stop when the relative change of the log-likelihood is below Tol; 0 runs MaxIter iterations
	Eta      float64 // Gradient: the first step size; 0 means DefaultEta. The line search adapts it.

	// Workers is the number of goroutines of an iterative method's E-step;
	// 0 means GOMAXPROCS. The result does not depend on it.
	Workers int
	// Progress, if not nil, is called after each iteration of an
	// iterative method, from the goroutine that called the learner.
	Progress func(Progress)
	// Cancel, closed, stops an iterative method at the end of its
	// iteration: the learner returns an error whose kind is ErrCanceled.
	Cancel <-chan struct{}
	// Inference, if not nil, makes the inference that EM and gradient
	// ascent run on, from the model to learn with a likelihood slot over
	// each density's parents (infer.LikelihoodSlots); nil means the
	// junction tree (infer.CompileLearner). An approximate one
	// (infer.InexactLearner, as infer.CompileApproxLearner's) is named by
	// Report.EStep.
	Inference func(m *ir.Model, opt infer.Options) (infer.Learner, error)
	// MaxMemory bounds the E-step's junction tree, in bytes (0:
	// infer.DefaultMaxMemory). A tree over it is an error
	// (*infer.TooLargeError) unless Approximate is set: EM and gradient
	// ascent then run on an approximate E-step (estep.go), which
	// Report.EStep names, and whose log-likelihoods are approximate.
	MaxMemory   int64
	Approximate bool
}

// canceled reports whether Cancel is closed.
func (o *Options) canceled() bool {
	select {
	case <-o.Cancel:
		return true
	default:
		return false
	}
}

// DefaultVarSmoothing is the default of Options.VarSmoothing, as in
// scikit-learn's GaussianNB.
const DefaultVarSmoothing = 1e-9

// varSmoothing returns the smoothing opt asks for.
func (opt Options) varSmoothing() float64 {
	if opt.VarSmoothing == 0 {
		return DefaultVarSmoothing
	}
	return opt.VarSmoothing
}

// Counts holds sufficient statistics: for each learned discrete variable
// a flat count table over (parents..., child), child fastest (the CPT
// layout), and for each learned real variable the count, mean and sum of
// squared deviations of its values per configuration of its parents.
// Counts merge associatively (Beam-ready). A Counts is not safe for
// concurrent use; give each goroutine its own and Merge them.
type Counts struct {
	fams    []*family
	open    []bool   // open[v]: v's states may still grow (indexed by VarID)
	rows    int      // rows seen
	missing int      // (row, family) contributions skipped for a missing cell
	partial int      // rows with a missing cell in some family
	err     error    // a count table that grew too large, or nil
	names   []string // variable names, for messages

	// scratch, per Add
	idx  []int32
	bad  []bool
	cols []int // column of each VarID in the batch, or -1
	max  []int32

	// scratch of addLinear: the complete rows of a family, a block of the
	// child's values, a block's statistics and centred columns
	linRows []int32
	linAll  []float64
	linBuf  []float64
}

// family is the count table of one variable given its parents. For a
// real child (a Gaussian) the child's dimension has size 1: n[u] is the
// number of non-missing values in parent configuration u, and shift[u],
// mean[u] and m2[u] their moments (see moments).
type family struct {
	child ir.VarID
	vars  []ir.VarID // parents..., child
	card  []int      // current sizes (for open variables, states seen so far; 1 for a real child)
	n     []float64  // row-major, child fastest

	real            bool
	ndisc           int       // the discrete parents are vars[:ndisc]; a linear family's real parents follow them
	lin             []float64 // a linear family (a real child with real parents, linear.go): per configuration, linLen(d) numbers; else nil
	dead            bool      // the table grew too large (Counts.err): nothing more is counted
	shift, mean, m2 []float64 // real child: per parent configuration, as n
	all             moments   // real child: every non-missing value, whatever its parents
}

// moments are the count n of a set of numbers, and the mean and the sum
// of squared deviations from it of the numbers less shift, the first
// number seen: Welford's update per number, or two passes over a block
// of numbers (blockMoments), and Chan, Golub and LeVeque's formula to
// merge. The shift keeps the running mean near 0, of the size
// of the spread, so that its rounding is relative to the spread and not
// to the mean: the variance of 1e6 + noise of sd 0.01 keeps its digits.
type moments struct{ n, shift, mean, m2 float64 }

// add adds x.
func (a *moments) add(x float64) {
	if a.n == 0 {
		a.shift = x
	}
	a.n++
	x -= a.shift
	d := x - a.mean
	a.mean += d / a.n
	a.m2 += d * (x - a.mean)
}

// addAll adds the numbers xs as one block (blockMoments).
func (a *moments) addAll(xs []float64) {
	if len(xs) == 0 {
		return
	}
	if a.n == 0 {
		a.shift = xs[0]
	}
	a.merge(blockMoments(xs, a.shift))
}

// blockMoments returns the moments of xs with the given shift: their mean
// less the shift, then the sum of squared deviations from it (two passes,
// four sums each).
func blockMoments(xs []float64, shift float64) moments {
	if len(xs) == 0 {
		return moments{}
	}
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		s0 += xs[i] - shift
		s1 += xs[i+1] - shift
		s2 += xs[i+2] - shift
		s3 += xs[i+3] - shift
	}
	for ; i < len(xs); i++ {
		s0 += xs[i] - shift
	}
	n := float64(len(xs))
	mu := ((s0 + s1) + (s2 + s3)) / n
	s0, s1, s2, s3 = 0, 0, 0, 0
	i = 0
	for ; i+4 <= len(xs); i += 4 {
		e0, e1, e2, e3 := xs[i]-shift-mu, xs[i+1]-shift-mu, xs[i+2]-shift-mu, xs[i+3]-shift-mu
		s0 += e0 * e0
		s1 += e1 * e1
		s2 += e2 * e2
		s3 += e3 * e3
	}
	for ; i < len(xs); i++ {
		e := xs[i] - shift - mu
		s0 += e * e
	}
	return moments{n: n, shift: shift, mean: mu, m2: (s0 + s1) + (s2 + s3)}
}

// merge adds the numbers of b.
func (a *moments) merge(b moments) {
	if b.n == 0 {
		return
	}
	if a.n == 0 {
		*a = b
		return
	}
	n := a.n + b.n
	d := (b.mean + (b.shift - a.shift)) - a.mean
	a.mean += d * (b.n / n)
	a.m2 += b.m2 + d*d*(a.n*b.n/n)
	a.n = n
}

// Mean returns the mean of the numbers.
func (a moments) Mean() float64 { return a.shift + a.mean }

// NewCounts returns empty counts for the variables opt.Vars selects in m,
// with their current parents (m.Parents). It panics if a table would be
// larger than ir.MaxTableSize; [Learn] and [LearnTable] check that first
// and return an error.
func NewCounts(m *ir.Model, opt Options) *Counts {
	var fams [][]ir.VarID
	for _, v := range learnedVars(m, opt) {
		if !m.Vars[v].Discrete() {
			fams = append(fams, realFamily(m, m.Parents[v], v))
			continue
		}
		fams = append(fams, append(append([]ir.VarID(nil), m.Parents[v]...), v))
	}
	return newCounts(m, fams)
}

// newCounts returns empty counts over the given variable lists (each
// laid out last fastest; the last is the "child").
func newCounts(m *ir.Model, fams [][]ir.VarID) *Counts {
	c := &Counts{open: make([]bool, len(m.Vars)), names: m.Names()}
	for v, x := range m.Vars {
		c.open[v] = x.Open
	}
	for _, vars := range fams {
		f := &family{child: vars[len(vars)-1], vars: vars, card: make([]int, len(vars)), ndisc: len(vars) - 1}
		f.real = !m.Vars[f.child].Discrete()
		for i, v := range vars {
			f.card[i] = len(m.Vars[v].States)
		}
		if f.real {
			f.card[len(vars)-1] = 1
			for i, v := range vars[:len(vars)-1] {
				if !m.Vars[v].Discrete() {
					f.card[i] = 1
					f.ndisc = min(f.ndisc, i)
				} else if i > f.ndisc {
					panic("learn: NewCounts: a discrete parent after a real one")
				}
			}
		}
		n, ok := tableSize(f.card)
		if !ok {
			panic("learn: NewCounts: table too large")
		}
		f.alloc(n)
		c.fams = append(c.fams, f)
	}
	return c
}

// alloc gives f empty tables of n entries.
func (f *family) alloc(n int) {
	f.n = make([]float64, n)
	if f.real {
		f.shift, f.mean, f.m2 = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	if d := len(f.vars) - f.ndisc; f.real && d > 1 {
		f.lin = make([]float64, n*linLen(d))
	}
}

// at returns the moments of configuration u of a real family.
func (f *family) at(u int) moments { return moments{f.n[u], f.shift[u], f.mean[u], f.m2[u]} }

// set stores the moments of configuration u of a real family.
func (f *family) set(u int, a moments) {
	f.n[u], f.shift[u], f.mean[u], f.m2[u] = a.n, a.shift, a.mean, a.m2
}

// tableSize is ir.TableSize, allowing empty dimensions (an open variable
// that has no states yet).
func tableSize(card []int) (int, bool) {
	for _, k := range card {
		if k == 0 {
			return 0, true
		}
	}
	return ir.TableSize(card)
}

// learnedVars returns the variables whose CPTs or densities opt asks to
// learn: by default every discrete variable, and every real variable with
// parents or a density.
func learnedVars(m *ir.Model, opt Options) []ir.VarID {
	if opt.Vars != nil {
		return opt.Vars
	}
	var out []ir.VarID
	var children [][]ir.VarID
	for v, x := range m.Vars {
		if !x.Discrete() && m.Parents[v] == nil && m.Gaussian(ir.VarID(v)) == nil && children == nil {
			children = m.Children()
		}
		// A real root with children (a linear Gaussian density's real
		// parent) is learned too: without a density the network would not
		// be a distribution.
		if x.Discrete() || m.Parents[v] != nil || m.Gaussian(ir.VarID(v)) != nil || children != nil && len(children[v]) > 0 {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// Rows returns the number of rows seen.
func (c *Counts) Rows() int { return c.rows }

// Add counts the rows of b. A row contributes to a family unless the child
// or a parent is missing in it (available-case); a family with a variable
// that is not a column of b gets nothing from b. It uses b.Vars to map
// columns to variables.
func (c *Counts) Add(b *data.Batch) {
	n := b.N
	c.rows += n
	if n == 0 {
		return
	}
	if cap(c.idx) < n {
		c.idx = make([]int32, n)
		c.bad = make([]bool, n)
	}
	idx, bad := c.idx[:n], c.bad[:n]
	clear(bad)
	if len(c.cols) != len(c.open) {
		c.cols = make([]int, len(c.open))
		c.max = make([]int32, len(c.open))
	}
	for v := range c.cols {
		c.cols[v] = -1
	}
	for j, v := range b.Vars {
		if int(v) < len(c.cols) && (b.Cols[j] != nil || j < len(b.Reals) && b.Reals[j] != nil) {
			c.cols[v] = j
			if c.open[v] {
				mx := int32(-1)
				for _, s := range b.Cols[j][:n] { // an open variable is discrete
					mx = max(mx, s)
				}
				c.max[v] = mx
			}
		}
	}
	for _, f := range c.fams {
		present := true
		for _, v := range f.vars {
			present = present && c.cols[v] >= 0
		}
		if present && f.real {
			for _, v := range f.vars[f.ndisc:] {
				j := c.cols[v]
				present = present && j < len(b.Reals) && b.Reals[j] != nil
			}
		}
		if !present {
			continue
		}
		if f.dead || !f.fit(c) {
			f.dead = true
			continue
		}
		clear(idx)
		stride := int32(1)
		last := len(f.vars) - 1
		if f.real {
			last = f.ndisc - 1 // the child's dimension, and real parents', have size 1
		}
		for k := last; k >= 0; k-- {
			col := b.Cols[c.cols[f.vars[k]]][:n]
			for i, s := range col {
				if s < 0 || idx[i] < 0 {
					idx[i] = -1
				} else {
					idx[i] += s * stride
				}
			}
			stride *= int32(f.card[k])
		}
		if f.lin != nil {
			xs := make([][]float64, 0, len(f.vars)-f.ndisc-1)
			for _, v := range f.vars[f.ndisc : len(f.vars)-1] {
				xs = append(xs, b.Reals[c.cols[v]][:n])
			}
			c.addLinear(f, b.Reals[c.cols[f.child]][:n], xs, idx, bad)
			continue
		}
		if f.real {
			c.addReal(f, b.Reals[c.cols[f.child]][:n], idx, bad)
			continue
		}
		cnt := f.n
		for i, x := range idx {
			if x >= 0 {
				cnt[x]++
			} else {
				bad[i] = true
				c.missing++
			}
		}
	}
	for _, x := range bad {
		if x {
			c.partial++
		}
	}
}

// AddReader counts every row r has not yet delivered, on every core: each
// of the reader's workers parses a chunk of the input and counts it into
// counts of its own, and these are merged into c at the end (see
// data.Reader.ReadParallel). With an open variable among the columns the
// reader delivers its batches in order, so that states are numbered as
// one reader numbers them, and one worker per core counts them.
func (c *Counts) AddReader(r *data.Reader) error {
	open := false
	for _, v := range r.Vars {
		open = open || int(v) < len(c.open) && c.open[v]
	}
	if open {
		return c.addOrdered(r)
	}
	parts := make([]*Counts, max(1, r.Workers()))
	for w := range parts {
		parts[w] = c.empty()
	}
	if err := r.ReadParallel(func(w int, b *data.Batch) error {
		parts[w].Add(b)
		return nil
	}); err != nil {
		return err
	}
	for _, p := range parts {
		c.Merge(p)
	}
	return nil
}

// addOrdered counts every row of r, which the calling goroutine reads in
// order and hands to one counting worker per core.
func (c *Counts) addOrdered(r *data.Reader) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	free := make(chan *data.Batch, 2*workers+1)
	for range cap(free) {
		free <- r.NewBatch(batchRows)
	}
	work := make(chan *data.Batch, cap(free))
	parts := make([]*Counts, workers)
	var wg sync.WaitGroup
	for w := range parts {
		parts[w] = c.empty()
		wg.Add(1)
		go func(pc *Counts) {
			defer wg.Done()
			for b := range work {
				pc.Add(b)
				free <- b
			}
		}(parts[w])
	}
	var err error
	for {
		b := <-free
		err = r.Read(b)
		if b.N > 0 {
			work <- b
		} else {
			free <- b
		}
		if err != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	if err == io.EOF {
		err = nil
	}
	if err != nil {
		return err
	}
	for _, p := range parts {
		c.Merge(p)
	}
	return nil
}

// addReal adds the values xs of a real family's child, idx[i] being the
// parent configuration of row i (or -1 if a parent is missing).
func (c *Counts) addReal(f *family, xs []float64, idx []int32, bad []bool) {
	if f.ndisc == 0 && complete(xs, nil) {
		// One configuration and no missing value: the batch as one block.
		a := f.at(0)
		if a.n == 0 && len(xs) > 0 {
			a.shift = xs[0]
		}
		b := blockMoments(xs, a.shift)
		a.merge(b)
		f.set(0, a)
		f.all.merge(b)
		return
	}
	for i, x := range xs {
		if math.IsNaN(x) {
			bad[i] = true
			c.missing++
			continue
		}
		f.all.add(x)
		u := idx[i]
		if u < 0 {
			bad[i] = true
			c.missing++
			continue
		}
		a := f.at(int(u))
		a.add(x)
		f.set(int(u), a)
	}
}

// fit grows f's table so that it holds every state c.max records for its
// open variables.
//
// A dimension grows to twice what it needs, so that a variable taking n
// states from the data re-lays the table out O(log n) times, not n. A
// table that would exceed MaxCountEntries is not grown: c records the
// error and fit reports false, and the family counts nothing more.
func (f *family) fit(c *Counts) bool {
	var want []int
	for k, v := range f.vars {
		if c.open[v] && int(c.max[v]) >= f.card[k] {
			if want == nil {
				want = append([]int(nil), f.card...)
			}
			want[k] = max(2*(int(c.max[v])+1), 4)
		}
	}
	if want == nil {
		return true
	}
	need := append([]int(nil), f.card...)
	for k, v := range f.vars {
		if c.open[v] {
			need[k] = max(need[k], int(c.max[v])+1)
		}
	}
	if n, ok := tableSize(need); !ok || n > MaxCountEntries {
		if c.err == nil {
			c.err = f.tooLarge(c, need)
		}
		return false
	}
	if n, ok := tableSize(want); !ok || n > MaxCountEntries {
		want = need
	}
	f.grow(want)
	return true
}

// MaxCountEntries is the largest number of entries of one count table
// (128 MiB of float64, held once per core while counting): more is a sign
// that a column holds identifiers, or real numbers read as states, rather
// than the states of a variable.
const MaxCountEntries = 1 << 24

// tooLarge is the error of a count table that would need card entries.
func (f *family) tooLarge(c *Counts, card []int) error {
	parts := make([]string, len(f.vars))
	for k, v := range f.vars {
		parts[k] = fmt.Sprintf("%s %d", ir.Quote(c.names[v]), card[k])
	}
	return fmt.Errorf("the counts for %s %s (states so far: %s): is a column an identifier, or real numbers read as states?",
		ir.Quote(c.names[f.child]), ir.TooLarge(card, MaxCountEntries), strings.Join(parts, ", "))
}

// grow re-lays f's table out for the sizes card: larger, or smaller than
// the table's allocated sizes but holding every state counted (an entry
// outside card must be zero).
func (f *family) grow(card []int) {
	same := true
	for k := range card {
		same = same && card[k] == f.card[k]
	}
	if same {
		return
	}
	size, ok := tableSize(card)
	if !ok {
		panic("learn: count table too large")
	}
	old := *f
	f.alloc(size)
	n := f.n
	if len(old.n) > 0 {
		a := make([]int, len(card))
		for i, x := range old.n {
			// a = assignment of i in the old layout; index in the new one
			r := i
			for k := len(card) - 1; k >= 0; k-- {
				a[k] = r % f.card[k]
				r /= f.card[k]
			}
			j, fits := 0, true
			for k := range card {
				fits = fits && a[k] < card[k]
				j = j*card[k] + a[k]
			}
			if !fits {
				if x != 0 {
					panic("learn: grow: a counted state is outside the new table")
				}
				continue
			}
			n[j] = x
			if f.real {
				f.shift[j], f.mean[j], f.m2[j] = old.shift[i], old.mean[i], old.m2[i]
			}
			if f.lin != nil {
				L := linLen(f.linDim())
				copy(f.lin[j*L:(j+1)*L], old.lin[i*L:(i+1)*L])
			}
		}
	}
	f.card = append(f.card[:0], card...)
}

// Merge adds o's counts to c; o is not changed. c and o must have been
// made for the same model and variables, and count the same states: an
// open variable's states are numbered alike only by one reader, so data
// in shards read by different readers settles them first (see the
// package doc). Merge is associative and commutative: the counts of
// discrete families are sums of whole numbers, the same to the last bit
// for any partition of the rows and any order of merging; a Gaussian's
// moments agree to rounding (Chan, Golub and LeVeque's update: about
// 1e-15 relative).
func (c *Counts) Merge(o *Counts) {
	if len(c.fams) != len(o.fams) {
		panic("learn: Merge: counts of different families")
	}
	for i, f := range c.fams {
		g := o.fams[i]
		if len(f.vars) != len(g.vars) || f.child != g.child {
			panic("learn: Merge: counts of different families")
		}
		if f.dead || g.dead {
			f.dead = true
			continue
		}
		card := append([]int(nil), f.card...)
		for k := range card {
			card[k] = max(card[k], g.card[k])
		}
		f.grow(card)
		if !slices.Equal(g.card, card) {
			g = g.clone()
			g.grow(card)
		}
		if f.real != g.real || (f.lin == nil) != (g.lin == nil) || f.ndisc != g.ndisc {
			panic("learn: Merge: counts of different families")
		}
		if f.lin != nil {
			d := f.linDim()
			L := linLen(d)
			for u := range g.n {
				mergeLin(f.lin[u*L:(u+1)*L], f.n[u], g.lin[u*L:(u+1)*L], g.n[u], d)
			}
		}
		if f.real {
			for u := range g.n {
				a := f.at(u)
				a.merge(g.at(u))
				f.set(u, a)
			}
			f.all.merge(g.all)
			continue
		}
		for j, x := range g.n {
			f.n[j] += x
		}
	}
	c.rows += o.rows
	c.missing += o.missing
	c.partial += o.partial
	if c.err == nil {
		c.err = o.err
	}
}

// clone returns a deep copy of f.
func (f *family) clone() *family {
	g := *f
	g.card = slices.Clone(f.card)
	g.n = slices.Clone(f.n)
	g.shift, g.mean, g.m2 = slices.Clone(f.shift), slices.Clone(f.mean), slices.Clone(f.m2)
	g.lin = slices.Clone(f.lin)
	return &g
}

// Estimate returns a copy of m in which the learned variables have the
// distributions estimated from the counts: a CPT for each discrete one
// (by opt.Method), and for each real one a normal density per parent
// configuration (the maximum likelihood mean and standard deviation, the
// variance smoothed by opt.VarSmoothing, whatever opt.Method). m's open
// variables must be settled first (ir.Model.WithStates): the tables are
// sized by their states. It fails if a learned variable has no states (an
// open variable that the data never gave a value), or a Gaussian's
// smoothed variance is 0 (every value of every learned real variable the
// same). m is not changed.
func Estimate(m *ir.Model, c *Counts, opt Options) (*ir.Model, error) {
	if s := opt.VarSmoothing; !(s >= 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("the variance smoothing must be a non-negative number, not %v", s)
	}
	for _, f := range c.fams {
		for _, v := range f.vars {
			if len(m.Vars[v].States) == 0 && m.Vars[v].Discrete() {
				return nil, fmt.Errorf("%s has no states: no row of the data gives it a value", ir.Quote(m.Vars[v].Name))
			}
		}
		if _, ok := ir.TableSize(f.size(m)); !ok {
			return nil, fmt.Errorf("the table of %s %s", ir.Quote(m.Vars[f.child].Name), ir.TooLarge(f.size(m), ir.MaxTableSize))
		}
	}
	gauss, err := c.gaussians(m, opt)
	if err != nil {
		return nil, err
	}
	var dists []ir.Dist
	for _, f := range c.fams {
		if f.real {
			continue
		}
		card := f.size(m)
		f.grow(card)
		fac := ir.NewFactor(f.vars, card)
		estimate(fac.Vals, f.n, card[len(card)-1], opt)
		pos := m.Vars[f.child].Pos
		if old := m.Dist(f.child); old != nil {
			pos = old.Position()
		}
		dists = append(dists, &ir.CPT{Pos: pos, Child: f.child, Parents: append([]ir.VarID(nil), f.vars[:len(f.vars)-1]...), Factor: fac})
	}
	for _, g := range gauss {
		if old := m.Dist(g.Child); old != nil {
			g.Pos = old.Position()
		}
		dists = append(dists, g)
	}
	return m.WithDists(dists...)
}

// size returns the sizes of f's table for the variables' states in m.
func (f *family) size(m *ir.Model) []int {
	card := make([]int, len(f.vars))
	for k, v := range f.vars {
		card[k] = len(m.Vars[v].States)
	}
	if f.real {
		card[len(card)-1] = 1
		for k := f.ndisc; k < len(card); k++ {
			card[k] = 1
		}
	}
	return card
}

// gaussians returns the densities of the real families of c:
//
//	mean[u] = the mean of the values in configuration u
//	sd[u]   = sqrt(m2[u]/n[u] + ε),  ε = VarSmoothing · max over the learned real variables of their variance
//
// (variances with divisor n, the maximum likelihood estimate). A
// configuration without values gets mean 0 and sd 1.
func (c *Counts) gaussians(m *ir.Model, opt Options) ([]*ir.Gaussian, error) {
	top := 0.0
	for _, f := range c.fams {
		if f.real && f.all.n > 0 {
			top = max(top, f.all.m2/f.all.n)
		}
	}
	eps := opt.varSmoothing() * top
	var out []*ir.Gaussian
	for _, f := range c.fams {
		if !f.real {
			continue
		}
		f.grow(f.size(m))
		if f.lin != nil {
			g, err := c.linearGaussian(m, f, eps, opt.nigKappa(len(f.n)))
			if err != nil {
				return nil, err
			}
			out = append(out, g)
			continue
		}
		parents := append([]ir.VarID(nil), f.vars[:len(f.vars)-1]...)
		g := &ir.Gaussian{Pos: m.Vars[f.child].Pos, Child: f.child, Parents: parents,
			Mean: make([]float64, len(f.n)), SD: make([]float64, len(f.n))}
		for u, n := range f.n {
			if n == 0 {
				g.Mean[u], g.SD[u] = 0, 1
				continue
			}
			v := f.m2[u]/n + eps
			mean := f.at(u).Mean()
			if math.IsInf(v, 0) || math.IsNaN(v) || math.IsInf(mean, 0) || math.IsNaN(mean) {
				return nil, fmt.Errorf("cannot learn the density of %s: its values%s are too large for their mean and variance to be computed (beyond about 1e154); rescale the column",
					ir.Quote(m.Vars[f.child].Name), configName(m, parents, u))
			}
			if !(v > 0) {
				return nil, fmt.Errorf("cannot learn the density of %s: its values%s have variance 0 (as has every learned real variable, so smoothing adds nothing)",
					ir.Quote(m.Vars[f.child].Name), configName(m, parents, u))
			}
			g.Mean[u], g.SD[u] = mean, math.Sqrt(v)
		}
		out = append(out, g)
	}
	return out, nil
}

// emptyConfigs returns the number of parent configurations of real
// families that no value fell in.
func (c *Counts) emptyConfigs() int {
	k := 0
	for _, f := range c.fams {
		if f.real {
			for _, n := range f.n {
				if n == 0 {
					k++
				}
			}
		}
	}
	return k
}

// configName names configuration u of parents as " given A = a, B = b",
// or "" when there are no parents.
func configName(m *ir.Model, parents []ir.VarID, u int) string {
	if len(parents) == 0 {
		return ""
	}
	parts := make([]string, len(parents))
	for k := len(parents) - 1; k >= 0; k-- {
		x := m.Vars[parents[k]]
		parts[k] = ir.Quote(x.Name) + " = " + ir.Quote(x.States[u%len(x.States)])
		u /= len(x.States)
	}
	return " given " + strings.Join(parts, ", ")
}

// estimate writes into dst the CPT rows for the counts n, k states per row.
func estimate(dst, n []float64, k int, opt Options) {
	rows := len(n) / k
	var add, addRow float64 // pseudo-count per cell, and per row
	switch opt.Method {
	case Bayes:
		if opt.ESS > 0 {
			add = opt.ESS / float64(rows*k)
		} else {
			add = opt.Alpha
		}
		addRow = add * float64(k)
	case MEstimate:
		add = opt.M / float64(k)
		addRow = opt.M
	}
	for r := range rows {
		row := n[r*k : (r+1)*k]
		out := dst[r*k : (r+1)*k]
		total := 0.0
		for _, x := range row {
			total += x
		}
		den := total + addRow
		if !(den > 0) {
			for j := range out {
				out[j] = 1 / float64(k)
			}
			continue
		}
		for j, x := range row {
			out[j] = (x + add) / den
		}
	}
}
