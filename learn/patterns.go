package learn

import (
	"encoding/binary"
	"io"

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
type patterns struct {
	nvars  int
	rows   [][]int   // rows[p][v]: the state of v in pattern p, or -1
	weight []float64 // weight[p]: the number of rows with pattern p
	line   []int     // line[p]: the line of its first row (0 for inline rows without lines)
	n      int       // rows added
	cells  int       // observed cells of the model's discrete variables, over the rows

	index map[string]int
	key   []byte
	row   []int
}

func newPatterns(nvars int) *patterns {
	return &patterns{nvars: nvars, index: map[string]int{}, key: make([]byte, 4*nvars), row: make([]int, nvars)}
}

// add adds the rows of b. Real columns are left out (the iterative
// learners refuse real variables).
func (p *patterns) add(b *data.Batch) {
	var cols []int // the discrete columns of b
	for j, v := range b.Vars {
		if int(v) < p.nvars && b.Cols[j] != nil {
			cols = append(cols, j)
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
		for v, s := range p.row {
			binary.LittleEndian.PutUint32(p.key[4*v:], uint32(int32(s)))
		}
		k, ok := p.index[string(p.key)]
		if !ok {
			k = len(p.rows)
			p.index[string(p.key)] = k
			p.rows = append(p.rows, append([]int(nil), p.row...))
			p.weight = append(p.weight, 0)
			line := 0
			if i < len(b.Lines) {
				line = b.Lines[i]
			}
			p.line = append(p.line, line)
		}
		p.weight[k]++
	}
	p.n += b.N
}

// readPatterns reads every row of r into patterns for m.
func readPatterns(r *data.Reader, m *ir.Model) (*patterns, error) {
	p := newPatterns(len(m.Vars))
	b := r.NewBatch(batchRows)
	for {
		err := r.Read(b)
		p.add(b)
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
