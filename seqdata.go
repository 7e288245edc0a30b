package pbl

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// A Sequence is one sequence of observations of a time-indexed model,
// read by ReadSequences: a row of the CSV file per step.
type Sequence struct {
	ID   string // the sequence column's value, or "" when the file has none
	Line int    // the line of its first row

	// Steps[t][i] is the value of the time-indexed variable
	// m.Time.Vars[i] at step t: a state's index (-1 when missing), or a
	// real value (NaN when missing). A variable without a column is
	// missing at every step.
	Steps [][]float64

	// Static[j] is the value of the static variable Statics(m)[j], the
	// same in every row of the sequence (or missing in some): -1 or NaN
	// when no row gives it.
	Static []float64
}

// ErrSequenceData is the kind of error of sequence data that does not
// fit its model: a static variable with two values in one sequence, a
// model that is not time-indexed.
var ErrSequenceData = errors.New("sequence data that does not fit the model")

// Statics returns the static variables of a time-indexed model (those
// declared without [t]), in declaration order.
func Statics(m *ir.Model) []ir.VarID {
	in := make([]bool, len(m.Vars))
	for _, tv := range m.Time.Vars {
		for _, v := range tv.Slices {
			in[v] = true
		}
	}
	var out []ir.VarID
	for v := range m.Vars {
		if !in[v] {
			out = append(out, ir.VarID(v))
		}
	}
	return out
}

// SequenceOptions configures ReadSequences.
type SequenceOptions struct {
	// Column names the column that says which sequence a row belongs to
	// ("sequence" if empty). A file without it is one sequence.
	Column string
}

// ErrSequenceColumn is the kind of error of a sequence column named as a
// variable of the model: its cells would name sequences, and the variable
// would be hidden.
var ErrSequenceColumn = errors.New("a sequence column named as a variable")

// CheckSequenceColumn returns an ErrSequenceColumn error if col, the
// column naming each row's sequence, is the name of a variable of the
// time-indexed model m (time-indexed, without its index, or static).
func CheckSequenceColumn(m *ir.Model, col string) error {
	names := make([]string, 0, len(m.Time.Vars))
	for _, tv := range m.Time.Vars {
		names = append(names, tv.Name)
	}
	for _, v := range Statics(m) {
		names = append(names, m.Vars[v].Name)
	}
	if slices.Contains(names, col) {
		return fmt.Errorf("the sequence column %s is a variable of the model: %w", ir.Quote(col), ErrSequenceColumn)
	}
	return nil
}

// ReadSequences reads the sequences of the CSV file at path for the
// time-indexed model m: a column per time-indexed variable, named as
// declared without its index (Rain for var Rain[t]), a column per static
// variable, and optionally the sequence column; one row per step, the
// rows of a sequence in order (those of several sequences may
// interleave: each row goes to its sequence's end). Missing cells are
// allowed. Errors are positioned file:line:col, as every CSV reader's.
func ReadSequences(m *ir.Model, path string, opt SequenceOptions) ([]*Sequence, error) {
	seqs, _, err := readSequenceFile(m, path, opt)
	return seqs, err
}

// readSequenceFile is ReadSequences, which also returns the names of the
// variables the file's header gives columns to (not the sequence
// column), sorted.
func readSequenceFile(m *ir.Model, path string, opt SequenceOptions) ([]*Sequence, []string, error) {
	return readSequences(m, path, opt, func(slice func(*data.Header) (*ir.Model, error)) (*data.Reader, error) {
		return data.OpenFunc(path, slice, data.Options{Workers: 1})
	})
}

// ReadSequencesFrom is ReadSequences of the CSV data src, named path in
// errors (a shard a pipeline opened).
func ReadSequencesFrom(m *ir.Model, path string, src io.Reader, opt SequenceOptions) ([]*Sequence, error) {
	seqs, _, err := readSequences(m, path, opt, func(slice func(*data.Header) (*ir.Model, error)) (*data.Reader, error) {
		return data.NewReaderFunc(path, src, slice, data.Options{Workers: 1})
	})
	return seqs, err
}

// readSequences is readSequenceFile of the data that open opens.
func readSequences(m *ir.Model, path string, opt SequenceOptions, open func(func(*data.Header) (*ir.Model, error)) (*data.Reader, error)) ([]*Sequence, []string, error) {
	if m.Time == nil {
		return nil, nil, fmt.Errorf("%s: the model has no time-indexed variables (var X[t]: ...): %w", path, ErrSequenceData)
	}
	col := opt.Column
	if col == "" {
		col = "sequence"
	}
	if err := CheckSequenceColumn(m, col); err != nil {
		return nil, nil, err
	}
	statics := Statics(m)
	seqVar := ir.VarID(-1)
	var sm *ir.Model // the model of the file's columns
	slice := func(h *data.Header) (*ir.Model, error) {
		b := ir.NewBuilder(path)
		add := func(name string, x *ir.Variable) {
			lo := 0
			if x.Kind == ir.Range && len(x.States) > 0 {
				lo, _ = strconv.Atoi(x.States[0])
			}
			b.AddVar(x.Pos, name, x.Kind, x.States, lo)
		}
		for _, tv := range m.Time.Vars {
			add(tv.Name, m.Vars[tv.Slices[0]])
		}
		for _, v := range statics {
			add(m.Vars[v].Name, m.Vars[v])
		}
		for k, name := range h.Names {
			if name == col {
				seqVar, _ = b.AddOpenVar(h.Pos(k), col)
			}
		}
		sm = b.Model()
		return sm, nil
	}
	r, err := open(slice)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var cols []string
	for _, v := range r.Vars {
		if v != seqVar {
			cols = append(cols, sm.Vars[v].Name)
		}
	}
	slices.Sort(cols)
	nt := len(m.Time.Vars)
	byID := map[int32]*Sequence{}
	var out []*Sequence
	batch := r.NewBatch(4096)
	var slab []float64
	for {
		err := r.Read(batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		for i := range batch.N {
			id := int32(0)
			for j, v := range batch.Vars {
				if v == seqVar {
					id = batch.Cols[j][i]
					if id < 0 {
						return nil, nil, &ir.Error{Pos: ir.Pos{File: path, Line: batch.Lines[i], Col: r.Cols[j] + 1},
							Msg: fmt.Sprintf("the %s column has no value here: every row names its sequence", col), Err: ErrSequenceData}
					}
				}
			}
			s := byID[id]
			if s == nil {
				s = &Sequence{Line: batch.Lines[i], Static: make([]float64, len(statics))}
				for j, v := range statics {
					s.Static[j] = missingOf(m.Vars[v])
				}
				byID[id] = s
				out = append(out, s)
			}
			if len(slab) < nt {
				slab = make([]float64, max(nt, 4096*nt)) // steps in slabs, not an allocation each
			}
			step := slab[:nt:nt]
			slab = slab[nt:]
			for k, tv := range m.Time.Vars {
				step[k] = missingOf(m.Vars[tv.Slices[0]])
			}
			for j, v := range batch.Vars {
				var x float64
				if batch.Cols[j] != nil {
					x = float64(batch.Cols[j][i])
				} else {
					x = batch.Reals[j][i]
				}
				switch {
				case v == seqVar:
				case int(v) < nt:
					step[v] = x
				default:
					k := int(v) - nt
					sx := m.Vars[statics[k]]
					if isMissing(sx, x) {
						continue
					}
					if prev := s.Static[k]; !isMissing(sx, prev) && prev != x {
						return nil, nil, &ir.Error{Pos: ir.Pos{File: path, Line: batch.Lines[i]},
							Msg: fmt.Sprintf("the static variable %s changes within the sequence that starts on line %d", m.Vars[statics[k]].Name, s.Line), Err: ErrSequenceData}
					}
					s.Static[k] = x
				}
			}
			s.Steps = append(s.Steps, step)
		}
	}
	if seqVar >= 0 {
		states := r.States()[seqVar]
		for id, s := range byID {
			if int(id) >= 0 && int(id) < len(states) {
				s.ID = states[id]
			}
		}
	}
	return out, cols, nil
}

// missingOf returns the value of a missing cell of x: -1 for a discrete
// variable, NaN for a real one.
func missingOf(x *ir.Variable) float64 {
	if x.Discrete() {
		return -1
	}
	return math.NaN()
}

// isMissing reports whether x is the value of a missing cell of v.
func isMissing(v *ir.Variable, x float64) bool {
	if v.Discrete() {
		return x < 0
	}
	return math.IsNaN(x)
}
