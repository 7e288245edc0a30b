package learn

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// Report says what learning used.
type Report struct {
	Rows    int            // data rows read
	Skipped map[string]int // reason → cells/rows (see the keys below)
	Seconds float64        // wall time
}

// The keys of Report.Skipped.
const (
	// SkippedCounts is the number of (row, family) contributions not made
	// because the child or a parent was missing in the row.
	SkippedCounts = "family counts with a missing cell"
	// SkippedRows is the number of rows with a missing cell in some
	// learned family; each still counts for its other families.
	SkippedRows = "rows with a missing cell (used for their other families)"
	// SkippedGaussians is the number of parent configurations of learned
	// real variables in which no row gave the variable a value: each gets
	// the density normal(0, 1).
	SkippedGaussians = "Gaussian parent configurations without data (given normal(0, 1))"
)

// batchRows is the number of rows per batch handed to a counting worker.
const batchRows = 4096

// Learn streams the reader that open returns (counting on every core: the
// calling goroutine reads batches and hands them to one worker per core,
// each with its own Counts, merged at the end), then estimates the CPTs
// (see Estimate). A TAN classifier's tree (m.Classifier.Kind == "tan") is
// learned first, in a pass of its own over a second reader from open.
// Every variable whose CPT or density is learned, and each of its parents,
// must be a column of the data. On an error, m is left as it was.
func Learn(m *ir.Model, open func() (*data.Reader, error), opt Options) (*Report, error) {
	start := time.Now()
	undo := saveStates(m)
	rep, err := learn(m, opt, func(c *Counts) error {
		r, err := open()
		if err != nil {
			return err
		}
		defer r.Close()
		if err := checkColumns(m, c, r.Vars); err != nil {
			return err
		}
		return countReader(r, c)
	})
	if err != nil {
		undo()
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// LearnTable learns from an inline data table, like Learn.
func LearnTable(m *ir.Model, t *ir.DataTable, opt Options) (*Report, error) {
	b := &data.Batch{N: len(t.Rows), Cols: make([][]int32, len(t.Vars)), Reals: make([][]float64, len(t.Vars)), Vars: t.Vars}
	for j := range t.Vars {
		col := make([]int32, len(t.Rows))
		for i, r := range t.Rows {
			col[i] = r[j]
		}
		b.Cols[j] = col
	}
	for _, l := range t.Lines {
		b.Lines = append(b.Lines, l.Line)
	}
	return learnBatch(m, b, opt)
}

// learnBatch learns from the rows of b, like Learn.
func learnBatch(m *ir.Model, b *data.Batch, opt Options) (*Report, error) {
	start := time.Now()
	var cols []ir.VarID
	for j, v := range b.Vars {
		if b.Cols[j] != nil || j < len(b.Reals) && b.Reals[j] != nil {
			cols = append(cols, v)
		}
	}
	undo := saveStates(m)
	rep, err := learn(m, opt, func(c *Counts) error {
		if err := checkColumns(m, c, cols); err != nil {
			return err
		}
		c.Add(b)
		return nil
	})
	if err != nil {
		undo()
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// learn learns the TAN structure if there is one, then counts and
// estimates; pass fills the counts it is given from one pass over the data.
func learn(m *ir.Model, opt Options, pass func(c *Counts) error) (*Report, error) {
	if err := checkModel(m, opt); err != nil {
		return nil, err
	}
	var parents [][]ir.VarID // the TAN structure, installed if all goes well
	if cl := m.Classifier; cl != nil && cl.Kind == "tan" && learnsAny(m, opt, discreteFeatures(m, cl)) {
		pc := newCounts(m, pairFamilies(m, cl))
		if err := pass(pc); err != nil {
			return nil, err
		}
		tree := chowLiu(m, cl, pc)
		parents = make([][]ir.VarID, len(m.Vars))
		feats := discreteFeatures(m, cl)
		for i, f := range feats {
			parents[f] = []ir.VarID{cl.Class}
			if tree[i] >= 0 {
				parents[f] = append(parents[f], feats[tree[i]])
			}
		}
	}
	// Count with the new structure without installing it yet.
	var fams [][]ir.VarID
	for _, v := range learnedVars(m, opt) {
		ps := m.Parents[v]
		if parents != nil && parents[v] != nil {
			ps = parents[v]
		}
		fams = append(fams, append(append([]ir.VarID(nil), ps...), v))
	}
	for _, f := range fams {
		for _, v := range f[:len(f)-1] {
			if m.Vars[v].Kind == ir.Real {
				return nil, fmt.Errorf("cannot learn %s: its parent %s is real-valued (pbl learns CPTs and Gaussians given discrete parents only)", familyName(m, f), ir.Quote(m.Vars[v].Name))
			}
		}
	}
	if err := checkSizes(m, fams); err != nil {
		return nil, err
	}
	c := newCounts(m, fams)
	if err := pass(c); err != nil {
		return nil, err
	}
	if err := Estimate(m, c, opt); err != nil {
		return nil, err
	}
	rep := &Report{Rows: c.rows, Skipped: map[string]int{}}
	if c.missing > 0 {
		rep.Skipped[SkippedCounts] = c.missing
		rep.Skipped[SkippedRows] = c.partial
	}
	if k := c.emptyConfigs(); k > 0 {
		rep.Skipped[SkippedGaussians] = k
	}
	return rep, nil
}

// learnsAny reports whether opt learns any of vs.
func learnsAny(m *ir.Model, opt Options, vs []ir.VarID) bool {
	if opt.Vars == nil {
		return true
	}
	for _, v := range opt.Vars {
		for _, w := range vs {
			if v == w {
				return true
			}
		}
	}
	return false
}

// checkModel checks what can be checked before reading data.
func checkModel(m *ir.Model, opt Options) error {
	if !m.IsBayesNet() {
		return fmt.Errorf("cannot learn a Markov network's factors: only the CPTs of a Bayesian network")
	}
	for _, v := range opt.Vars {
		if int(v) < 0 || int(v) >= len(m.Vars) {
			panic("learn: Options.Vars names no variable")
		}
	}
	if s := opt.VarSmoothing; !(s >= 0) || math.IsInf(s, 0) {
		return fmt.Errorf("the variance smoothing must be a non-negative number, not %v", s)
	}
	switch opt.Method {
	case MLE:
	case Bayes:
		if !(opt.Alpha >= 0) || !(opt.ESS >= 0) {
			return fmt.Errorf("the Dirichlet pseudo-count and the equivalent sample size must be non-negative")
		}
	case MEstimate:
		if !(opt.M >= 0) {
			return fmt.Errorf("the m-estimate's m must be non-negative")
		}
	default:
		return fmt.Errorf("unknown learning method %v", opt.Method)
	}
	return nil
}

// checkSizes refuses count tables that would be too large.
func checkSizes(m *ir.Model, fams [][]ir.VarID) error {
	for _, f := range fams {
		card := make([]int, len(f))
		for k, v := range f {
			card[k] = max(1, len(m.Vars[v].States)) // 1 for a real child
		}
		if _, ok := ir.TableSize(card); !ok {
			return fmt.Errorf("the table of %s given its %d parents would have more than %d entries", ir.Quote(m.Vars[f[len(f)-1]].Name), len(f)-1, ir.MaxTableSize)
		}
	}
	return nil
}

// checkColumns checks that the data has a column for every variable of
// every family counted.
func checkColumns(m *ir.Model, c *Counts, cols []ir.VarID) error {
	have := make([]bool, len(m.Vars))
	for _, v := range cols {
		have[v] = true
	}
	var missing []string
	var need string
	for _, f := range c.fams {
		for _, v := range f.vars {
			if !have[v] {
				have[v] = true // report once
				missing = append(missing, ir.Quote(m.Vars[v].Name))
				if need == "" {
					need = familyName(m, f.vars)
				}
			}
		}
	}
	if missing == nil {
		return nil
	}
	return fmt.Errorf("the data has no column for %s (needed to learn %s); add the column, or learn only some variables with learn X, Y from ...", strings.Join(missing, ", "), need)
}

// familyName names a family as P(X | U, V).
func familyName(m *ir.Model, vars []ir.VarID) string {
	var b strings.Builder
	b.WriteString("P(" + ir.Quote(m.Vars[vars[len(vars)-1]].Name))
	for i, p := range vars[:len(vars)-1] {
		if i == 0 {
			b.WriteString(" | ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(ir.Quote(m.Vars[p].Name))
	}
	return b.String() + ")"
}

// saveStates remembers the number of states of m's open variables and
// returns a function that restores it (the reader appends states).
func saveStates(m *ir.Model) func() {
	n := make([]int, len(m.Vars))
	for v, x := range m.Vars {
		n[v] = len(x.States)
	}
	return func() {
		for v, x := range m.Vars {
			if x.Open && len(x.States) > n[v] {
				x.States = x.States[:n[v]]
			}
		}
	}
}

// countReader counts every row of r into c, on every core.
func countReader(r *data.Reader, c *Counts) error {
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

// empty returns empty counts with c's families and their current sizes.
func (c *Counts) empty() *Counts {
	o := &Counts{open: c.open}
	for _, f := range c.fams {
		size, _ := tableSize(f.card)
		g := &family{child: f.child, vars: f.vars, card: append([]int(nil), f.card...), real: f.real}
		g.alloc(size)
		o.fams = append(o.fams, g)
	}
	return o
}
