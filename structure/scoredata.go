package structure

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// Data is a data set held column-major as state indices, the form every
// score and search here reads.
type Data struct {
	Names  []string   // the variables, in column order
	States [][]string // States[v]: v's states; a cell is an index into it
	Card   []int      // Card[v] = len(States[v])
	Cols   [][]int32  // Cols[v][r]: the state of v in row r, or data.Missing
	N      int        // the number of rows

	// Real[v], for a real-valued variable v, holds its values (Cols[v],
	// States[v] and Card[v] are then nil, nil and 0); nil for a discrete
	// one. See realdata.go.
	Real [][]float64
}

// MaxVars is the most variables (columns) ReadCSV accepts, which the
// largest networks of the bnlearn repository (munin, 1,041) fit. Every
// search here weighs every pair of variables (Chow-Liu's mutual
// information, the hill climber's moves, tabu list, constraints and
// score cache, PC's adjacencies and separating sets), in memory that
// grows as the square of their number and time faster: 50,000 columns
// would need tens of gigabytes (see docs/cli.md for measurements).
const MaxVars = 1100

// ReadCSV reads a CSV file whose columns are all discrete variables:
// each column's states are its distinct values, in order of first
// appearance; an empty cell, ? or NA is missing. It reads the file with
// package data's reader, as every command reads CSV (quoting, byte order
// mark, gzip, positioned errors), the model made from its header
// (data.OpenFunc). A file of more than MaxVars columns is an error,
// found from its header alone. The reader's errors about the file's
// syntax are of kind ErrBadData, about a file with no header ErrNoData.
func ReadCSV(path string) (*Data, error) {
	return readCSV(path, nil)
}

// readCSV is ReadCSV with the columns real[k] declared real-valued: their
// cells are read as numbers (a missing one NaN) and go to Data.Real.
func readCSV(path string, real []bool) (*Data, error) {
	r, err := openCSV(path, real)
	if err != nil {
		return nil, readError(err)
	}
	defer r.Close()
	m := r.Model()
	d := &Data{Names: m.Names(), Cols: make([][]int32, len(m.Vars))}
	if real != nil {
		d.Real = make([][]float64, len(m.Vars))
	}
	if err := eachBatch(r, func(batch *data.Batch) {
		for j, v := range batch.Vars {
			if !m.Vars[v].Discrete() {
				d.Real[v] = append(d.Real[v], batch.Reals[j][:batch.N]...)
				continue
			}
			d.Cols[v] = append(d.Cols[v], batch.Cols[j][:batch.N]...)
		}
		d.N += batch.N
	}); err != nil {
		return nil, readError(err)
	}
	if d.N == 0 {
		return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: "no data rows", Err: ErrNoData}
	}
	st := r.States()
	d.States = make([][]string, len(m.Vars))
	d.Card = make([]int, len(m.Vars))
	for v := range m.Vars {
		if !m.Vars[v].Discrete() {
			d.Cols[v] = nil
			if d.Real[v] == nil {
				d.Real[v] = []float64{}
			}
			for i, x := range d.Real[v] {
				if math.IsNaN(x) {
					return nil, &ir.Error{Pos: r.HeaderPos[v], Msg: fmt.Sprintf("column %q is real-valued and has a missing cell in data row %d: learning from real-valued columns needs every value", d.Names[v], i+1), Err: ErrBadData}
				}
			}
			continue
		}
		d.States[v] = st[ir.VarID(v)]
		d.Card[v] = len(d.States[v])
		if d.Card[v] == 0 {
			return nil, &ir.Error{Pos: r.HeaderPos[v], Msg: fmt.Sprintf("column %q has no values: every cell is missing", d.Names[v]), Err: ErrNoData}
		}
		if d.Cols[v] == nil {
			d.Cols[v] = []int32{}
		}
	}
	return d, nil
}

// openCSV opens a CSV file whose header names the variables, the columns
// real[k] real-valued and the others open discrete variables.
func openCSV(path string, real []bool) (*data.Reader, error) {
	return data.OpenFunc(path, func(h *data.Header) (*ir.Model, error) {
		names := h.Names
		if len(names) > MaxVars {
			return nil, &ir.Error{Pos: h.Pos(MaxVars), Msg: fmt.Sprintf("%d columns: structure learning takes at most %d variables (its searches score every pair, in memory and time that grow as the square)", len(names), MaxVars), Err: ErrTooManyVars}
		}
		b := ir.NewBuilder(path)
		twice := 0
		for k, name := range names {
			var ok bool
			if k < len(real) && real[k] {
				_, ok = b.AddVar(h.Pos(k), name, ir.Real, nil, 0)
			} else {
				_, ok = b.AddOpenVar(h.Pos(k), name)
			}
			if !ok && name != "" {
				// The first few, and the number of the rest (as package data
				// reports a header's errors).
				if twice++; twice <= data.MaxHeaderErrors {
					b.Errorf(h.Pos(k), "column %q appears twice", name)
				}
			}
		}
		if n := twice - data.MaxHeaderErrors; n > 0 {
			verb := "appear"
			if n == 1 {
				verb = "appears"
			}
			b.Errorf(ir.Pos{File: path, Line: 1}, "and %s %s twice", ir.Plural(n, "more column"), verb)
		}
		if len(b.Errs) > 0 {
			return nil, b.Errs
		}
		return b.Finish()
	}, data.Options{})
}

// readError gives the data reader's errors about a file's syntax the kind
// ErrBadData, and its error about a file with no header ErrNoData, their
// messages and positions unchanged.
func readError(err error) error {
	kind := func(e *ir.Error) *ir.Error {
		var k error
		switch {
		case errors.Is(e, data.ErrMalformed):
			k = ErrBadData
		case errors.Is(e, data.ErrNoHeader):
			k = ErrNoData
		default:
			return e
		}
		return &ir.Error{Pos: e.Pos, Msg: e.Msg, Err: &kindError{msg: e.Msg, kind: k, cause: e.Err}}
	}
	var list ir.ErrorList
	if errors.As(err, &list) {
		out := make(ir.ErrorList, len(list))
		for i, e := range list {
			out[i] = kind(e)
		}
		return out
	}
	var e *ir.Error
	if errors.As(err, &e) {
		return kind(e)
	}
	return err
}

// FromBatch returns the columns of a batch read for model m, in the order
// of m's variables: every variable of m must have a column (a real-valued
// one without missing cells). The states are m's (or, for open
// variables, the batch's).
func FromBatch(m *ir.Model, b *data.Batch) (*Data, error) {
	col := make(map[ir.VarID]int, len(b.Vars))
	for j, v := range b.Vars {
		col[v] = j
	}
	d := &Data{N: b.N}
	for _, v := range m.Vars {
		j, ok := col[v.ID]
		if !ok {
			return nil, errorf(ErrNoColumn, "%s has no column in the data", ir.Quote(v.Name))
		}
		if !v.Discrete() {
			// A real-valued variable: its values, every one present.
			if j >= len(b.Reals) || len(b.Reals[j]) < b.N {
				return nil, errorf(ErrNoColumn, "%s has no real-valued column in the data", ir.Quote(v.Name))
			}
			vals := b.Reals[j][:b.N]
			for i, x := range vals {
				if math.IsNaN(x) {
					return nil, errorf(ErrBadData, "%s is real-valued and has a missing cell in data row %d: scoring real-valued variables needs every value", ir.Quote(v.Name), i+1)
				}
			}
			if d.Real == nil {
				d.Real = make([][]float64, len(m.Vars))
			}
			d.Real[len(d.Names)] = vals
			d.Names = append(d.Names, v.Name)
			d.States = append(d.States, nil)
			d.Card = append(d.Card, 0)
			d.Cols = append(d.Cols, nil)
			continue
		}
		states := v.States
		if s, ok := b.States[v.ID]; ok {
			states = s
		}
		d.Names = append(d.Names, v.Name)
		d.States = append(d.States, states)
		d.Card = append(d.Card, len(states))
		d.Cols = append(d.Cols, b.Cols[j][:b.N])
	}
	return d, nil
}

// ReadModelData reads a CSV file for model m (every discrete variable of m
// must have a column; other columns are an error unless opt says to skip
// them) and returns its discrete columns in the order of m's variables.
func ReadModelData(path string, m *ir.Model, opt data.Options) (*Data, error) {
	r, err := data.Open(path, m, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	all := &data.Batch{Vars: r.Vars, Cols: make([][]int32, len(r.Vars)), Reals: make([][]float64, len(r.Vars))}
	if err := eachBatch(r, func(batch *data.Batch) {
		for j := range batch.Vars {
			if batch.Cols[j] != nil {
				all.Cols[j] = append(all.Cols[j], batch.Cols[j][:batch.N]...)
			}
			if j < len(batch.Reals) && batch.Reals[j] != nil {
				all.Reals[j] = append(all.Reals[j], batch.Reals[j][:batch.N]...)
			}
		}
		all.N += batch.N
	}); err != nil {
		return nil, err
	}
	all.States = r.States()
	d, err := FromBatch(m, all)
	if err != nil {
		return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: err.Error(), Err: err}
	}
	return d, nil
}

// eachBatch reads r to its end, calling fn with each batch; it returns
// the first error other than io.EOF.
func eachBatch(r *data.Reader, fn func(*data.Batch)) error {
	b := r.NewBatch(8192)
	for {
		err := r.Read(b)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		fn(b)
	}
}
