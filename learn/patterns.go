package learn

import (
	"encoding/binary"
	"math"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// patterns are the distinct rows of a data set as evidence for the
// model's discrete variables, each with its weight (the number of rows
// like it) and the line of its first row: the iterative learners (EM,
// gradient ascent) calibrate once per pattern, not once per row. A
// variable without a column in the data, and a missing cell, are -1.
// Patterns are kept in order of first appearance, so that everything
// computed from them is the same from run to run.
//
// A row that gives a value to a real variable of reals (the children of
// the model's densities) is its own evidence, never grouped: it is kept
// apart in real, with its discrete states and its real values.
type patterns struct {
	nvars  int
	rows   [][]int   // rows[p][v]: the state of v in pattern p, or -1
	weight []float64 // weight[p]: the number of rows with pattern p
	line   []int     // line[p]: the line of its first row (0 for inline rows without lines)
	n      int       // rows added
	cells  int       // observed cells of the model's discrete variables, over the rows

	file  string     // the data file, or ""
	reals []ir.VarID // the real variables read, or nil
	real  realRows   // the rows that give one of them a value

	index map[string]int
	key   []byte
	row   []int
}

// realRows are data rows with real values, each its own evidence.
type realRows struct {
	obs  [][]int   // obs[i][v]: the state of the discrete v in row i, or -1
	vals []float64 // vals[i*len(reals)+k]: the value of reals[k] in row i, NaN if missing
	line []int     // line[i]: its line (0 if unknown)
}

// n returns the number of rows.
func (r *realRows) n() int { return len(r.obs) }

func newPatterns(nvars int) *patterns {
	return &patterns{nvars: nvars, index: map[string]int{}, key: make([]byte, 4*nvars), row: make([]int, nvars)}
}

// add adds the rows of b. Real columns other than those of p.reals are
// left out.
func (p *patterns) add(b *data.Batch) {
	var cols []int // the discrete columns of b
	for j, v := range b.Vars {
		if int(v) < p.nvars && b.Cols[j] != nil {
			cols = append(cols, j)
		}
	}
	rcol := make([]int, len(p.reals)) // the column of each of p.reals in b, or -1
	for k, v := range p.reals {
		rcol[k] = -1
		for j, u := range b.Vars {
			if u == v && j < len(b.Reals) && b.Reals[j] != nil {
				rcol[k] = j
			}
		}
	}
	for i := range b.N {
		for v := range p.row {
			p.row[v] = -1
		}
		for _, j := range cols {
			s := int(b.Cols[j][i])
			if s < 0 {
				s = -1
			} else {
				p.cells++
			}
			p.row[b.Vars[j]] = s
		}
		line := 0
		if i < len(b.Lines) {
			line = b.Lines[i]
		}
		if p.addReal(b, rcol, i, line) {
			continue
		}
		for v, s := range p.row {
			binary.LittleEndian.PutUint32(p.key[4*v:], uint32(int32(s)))
		}
		k, ok := p.index[string(p.key)]
		if !ok {
			k = len(p.rows)
			p.index[string(p.key)] = k
			p.rows = append(p.rows, append([]int(nil), p.row...))
			p.weight = append(p.weight, 0)
			p.line = append(p.line, line)
		}
		p.weight[k]++
	}
	p.n += b.N
}

// addReal adds row i of b, whose discrete states are in p.row, to the
// real rows if it gives a value to one of p.reals (columns rcol), and
// reports whether it did.
func (p *patterns) addReal(b *data.Batch, rcol []int, i, line int) bool {
	any := false
	for _, j := range rcol {
		if j >= 0 && !math.IsNaN(b.Reals[j][i]) {
			any = true
			break
		}
	}
	if !any {
		return false
	}
	for _, j := range rcol {
		x := math.NaN()
		if j >= 0 {
			x = b.Reals[j][i]
		}
		p.real.vals = append(p.real.vals, x)
	}
	p.real.obs = append(p.real.obs, append([]int(nil), p.row...))
	p.real.line = append(p.real.line, line)
	return true
}

// densityVars returns the real variables of m that have a density,
// parents or children (whose values are evidence), in VarID order.
func densityVars(m *ir.Model) []ir.VarID {
	var out []ir.VarID
	children := m.Children()
	for v, x := range m.Vars {
		if !x.Discrete() && (m.Dist(ir.VarID(v)) != nil || len(m.Parents[v]) > 0 || len(children[v]) > 0) {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// readPatterns reads every row of r into patterns for m.
func readPatterns(r *data.Reader, m *ir.Model) (*patterns, error) {
	p, _, err := readPatternsUpTo(r, m, math.MaxInt)
	return p, err
}
