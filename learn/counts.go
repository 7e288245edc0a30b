package learn

import (
	"fmt"
	"strconv"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// Method is a way of turning counts into probabilities.
type Method int

const (
	MLE       Method = iota // maximum likelihood: relative frequencies
	Bayes                   // Dirichlet pseudo-counts (Alpha) or BDeu (ESS)
	MEstimate               // Mitchell's m-estimate (n_c + m·p)/(n + m), p = 1/k
)

var methodNames = []string{"mle", "bayes", "mestimate"}

func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// ParseMethod parses a method name: "mle", "bayes" or "mestimate".
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if s == n {
			return Method(i), nil
		}
	}
	msg := "unknown learning method " + strconv.Quote(s)
	if h := spell.Nearest(s, methodNames); h != "" {
		return 0, fmt.Errorf("%s (did you mean %q?)", msg, h)
	}
	return 0, fmt.Errorf("%s (methods: mle, bayes, mestimate)", msg)
}

// Options configures learning.
type Options struct {
	Method Method
	Alpha  float64    // Bayes: Dirichlet pseudo-count added to every cell (Laplace = 1)
	ESS    float64    // Bayes: BDeu equivalent sample size; > 0 replaces Alpha
	M      float64    // MEstimate: m, with p = 1/k
	Vars   []ir.VarID // the variables whose CPTs are learned; nil = every discrete variable (every unlearned one AND every one with a CPT, whose numbers are replaced)
}

// Counts holds sufficient statistics: for each learned variable a flat
// count table over (parents..., child), child fastest (the CPT layout).
// Counts merge associatively (Beam-ready). A Counts is not safe for
// concurrent use; give each goroutine its own and Merge them.
type Counts struct {
	fams    []*family
	open    []bool // open[v]: v's states may still grow (indexed by VarID)
	rows    int    // rows seen
	missing int    // (row, family) contributions skipped for a missing cell
	partial int    // rows with a missing cell in some family

	// scratch, per Add
	idx  []int32
	bad  []bool
	cols []int // column of each VarID in the batch, or -1
	max  []int32
}

// family is the count table of one variable given its parents.
type family struct {
	child ir.VarID
	vars  []ir.VarID // parents..., child
	card  []int      // current sizes (for open variables, states seen so far)
	n     []float64  // row-major, child fastest
}

// NewCounts returns empty counts for the variables opt.Vars selects in m,
// with their current parents (m.Parents). It panics if a table would be
// larger than ir.MaxTableSize; [Learn] and [LearnTable] check that first
// and return an error.
func NewCounts(m *ir.Model, opt Options) *Counts {
	var fams [][]ir.VarID
	for _, v := range learnedVars(m, opt) {
		fams = append(fams, append(append([]ir.VarID(nil), m.Parents[v]...), v))
	}
	return newCounts(m, fams)
}

// newCounts returns empty counts over the given variable lists (each
// laid out last fastest; the last is the "child").
func newCounts(m *ir.Model, fams [][]ir.VarID) *Counts {
	c := &Counts{open: make([]bool, len(m.Vars))}
	for v, x := range m.Vars {
		c.open[v] = x.Open
	}
	for _, vars := range fams {
		f := &family{child: vars[len(vars)-1], vars: vars, card: make([]int, len(vars))}
		for i, v := range vars {
			f.card[i] = len(m.Vars[v].States)
		}
		n, ok := tableSize(f.card)
		if !ok {
			panic("learn: NewCounts: table too large")
		}
		f.n = make([]float64, n)
		c.fams = append(c.fams, f)
	}
	return c
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

// learnedVars returns the variables whose CPTs opt asks to learn.
func learnedVars(m *ir.Model, opt Options) []ir.VarID {
	if opt.Vars != nil {
		return opt.Vars
	}
	var out []ir.VarID
	for v, x := range m.Vars {
		if x.Kind != ir.Real {
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
		if int(v) < len(c.cols) && b.Cols[j] != nil {
			c.cols[v] = j
			if c.open[v] {
				mx := int32(-1)
				for _, s := range b.Cols[j][:n] {
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
		if !present {
			continue
		}
		f.fit(c)
		clear(idx)
		stride := int32(1)
		for k := len(f.vars) - 1; k >= 0; k-- {
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

// fit grows f's table so that it holds every state c.max records for its
// open variables.
func (f *family) fit(c *Counts) {
	var want []int
	for k, v := range f.vars {
		if c.open[v] && int(c.max[v]) >= f.card[k] {
			if want == nil {
				want = append([]int(nil), f.card...)
			}
			want[k] = int(c.max[v]) + 1
		}
	}
	if want != nil {
		f.grow(want)
	}
}

// grow re-lays f's table out for the (larger or equal) sizes card.
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
	n := make([]float64, size)
	if len(f.n) > 0 {
		a := make([]int, len(card))
		for i, x := range f.n {
			// a = assignment of i in the old layout; index in the new one
			r := i
			for k := len(card) - 1; k >= 0; k-- {
				a[k] = r % f.card[k]
				r /= f.card[k]
			}
			j := 0
			for k := range card {
				j = j*card[k] + a[k]
			}
			n[j] = x
		}
	}
	f.card = append(f.card[:0], card...)
	f.n = n
}

// Merge adds o's counts to c. c and o must have been made for the same
// model and variables.
func (c *Counts) Merge(o *Counts) {
	if len(c.fams) != len(o.fams) {
		panic("learn: Merge: counts of different families")
	}
	for i, f := range c.fams {
		g := o.fams[i]
		if len(f.vars) != len(g.vars) || f.child != g.child {
			panic("learn: Merge: counts of different families")
		}
		card := append([]int(nil), f.card...)
		for k := range card {
			card[k] = max(card[k], g.card[k])
		}
		f.grow(card)
		g.grow(card)
		for j, x := range g.n {
			f.n[j] += x
		}
	}
	c.rows += o.rows
	c.missing += o.missing
	c.partial += o.partial
}

// Estimate replaces the learned variables' CPTs in m (in place, ir.CPT
// with a fresh *ir.Factor) from the counts, and closes the open variables
// of every learned family (see the package doc). It fails, changing
// nothing, if a learned variable has no states (an open variable that the
// data never gave a value).
func Estimate(m *ir.Model, c *Counts, opt Options) error {
	for _, f := range c.fams {
		for _, v := range f.vars {
			if len(m.Vars[v].States) == 0 {
				return fmt.Errorf("%s has no states: no row of the data gives it a value", ir.Quote(m.Vars[v].Name))
			}
		}
		card := make([]int, len(f.vars))
		for k, v := range f.vars {
			card[k] = len(m.Vars[v].States)
		}
		if _, ok := ir.TableSize(card); !ok {
			return fmt.Errorf("the table of %s is too large", ir.Quote(m.Vars[f.child].Name))
		}
	}
	for _, f := range c.fams {
		card := make([]int, len(f.vars))
		for k, v := range f.vars {
			card[k] = len(m.Vars[v].States)
		}
		f.grow(card)
		fac := ir.NewFactor(f.vars, card)
		estimate(fac.Vals, f.n, card[len(card)-1], opt)
		parents := append([]ir.VarID(nil), f.vars[:len(f.vars)-1]...)
		pos := m.Vars[f.child].Pos
		if old := m.CPTs[f.child]; old != nil {
			pos = old.Pos
		}
		m.CPTs[f.child] = &ir.CPT{Pos: pos, Child: f.child, Parents: parents, Factor: fac}
		m.Parents[f.child] = append([]ir.VarID(nil), parents...)
	}
	for _, f := range c.fams {
		for _, v := range f.vars {
			m.Vars[v].Open = false
		}
	}
	return nil
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
