package structure

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"

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
}

// MaxVars is the most variables (columns) ReadCSV accepts, which the
// largest networks of the bnlearn repository (munin, 1,041) fit. Every
// search here weighs every pair of variables (Chow-Liu's mutual
// information, the hill climber's moves, tabu list, constraints and
// score cache, PC's adjacencies and separating sets), in memory that
// grows as the square of their number and time faster: 50,000 columns
// would need tens of gigabytes (see docs/cli.md for measurements).
const MaxVars = 1100

// ReadCSV reads a CSV file (gzip recognised) whose columns are all
// discrete variables: each column's states are its distinct values, in
// order of first appearance; an empty cell, ? or NA is missing. It reads
// the file in batches with package data's reader. A file of more than
// MaxVars columns is an error, found from its header alone.
func ReadCSV(path string) (*Data, error) {
	names, err := csvHeader(path)
	if err != nil {
		return nil, err
	}
	if len(names) > MaxVars {
		return nil, &ir.Error{Pos: ir.Pos{File: path, Line: 1}, Msg: fmt.Sprintf("%d columns: structure learning takes at most %d variables (its searches score every pair, in memory and time that grow as the square)", len(names), MaxVars), Err: ErrTooManyVars}
	}
	b := ir.NewBuilder(path)
	twice := 0
	for _, name := range names {
		if _, ok := b.AddOpenVar(ir.Pos{File: path, Line: 1}, name); !ok && name != "" {
			// The first few, and the number of the rest (as package data
			// reports a header's errors).
			if twice++; twice <= data.MaxHeaderErrors {
				b.Errorf(ir.Pos{File: path, Line: 1}, "column %q appears twice", name)
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
	m, err := b.Finish()
	if err != nil {
		return nil, err
	}
	r, err := data.Open(path, m, data.Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d := &Data{Names: m.Names(), Cols: make([][]int32, len(m.Vars))}
	batch := r.NewBatch(8192)
	for {
		err := r.Read(batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for j, v := range batch.Vars {
			d.Cols[v] = append(d.Cols[v], batch.Cols[j][:batch.N]...)
		}
		d.N += batch.N
	}
	st := r.States()
	d.States = make([][]string, len(m.Vars))
	d.Card = make([]int, len(m.Vars))
	for v := range m.Vars {
		d.States[v] = st[ir.VarID(v)]
		d.Card[v] = len(d.States[v])
		if d.Card[v] == 0 {
			return nil, &ir.Error{Pos: ir.Pos{File: path, Line: 1}, Msg: fmt.Sprintf("column %q has no values: every cell is missing", d.Names[v]), Err: ErrNoData}
		}
		if d.Cols[v] == nil {
			d.Cols[v] = []int32{}
		}
	}
	if d.N == 0 {
		return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: "no data rows", Err: ErrNoData}
	}
	return d, nil
}

// csvHeader returns the header row of a CSV file, which may be gzipped.
func csvHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: err.Error(), Err: &kindError{msg: err.Error(), kind: ErrBadData, cause: err}}
		}
		src = zr
	}
	cr := csv.NewReader(src)
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: "empty file: want a header naming the variables", Err: ErrNoData}
	}
	if err != nil {
		return nil, headerError(path, err)
	}
	if len(rec) > 0 && len(rec[0]) >= 3 && rec[0][:3] == "\uFEFF" {
		rec[0] = rec[0][3:]
	}
	return rec, nil
}

// FromBatch returns the discrete columns of a batch read for model m, in
// the order of m's variables: every discrete variable of m must have a
// column. The states are m's (or, for open variables, the batch's).
func FromBatch(m *ir.Model, b *data.Batch) (*Data, error) {
	col := make(map[ir.VarID]int, len(b.Vars))
	for j, v := range b.Vars {
		col[v] = j
	}
	d := &Data{N: b.N}
	for _, v := range m.Vars {
		if !v.Discrete() {
			return nil, errorf(ErrNotDiscrete, "%s is real-valued: structure scores need discrete variables", ir.Quote(v.Name))
		}
		j, ok := col[v.ID]
		if !ok {
			return nil, errorf(ErrNoColumn, "%s has no column in the data", ir.Quote(v.Name))
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
	all := &data.Batch{Vars: r.Vars, Cols: make([][]int32, len(r.Vars))}
	batch := r.NewBatch(8192)
	for {
		err := r.Read(batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for j := range batch.Vars {
			if batch.Cols[j] != nil {
				all.Cols[j] = append(all.Cols[j], batch.Cols[j][:batch.N]...)
			}
		}
		all.N += batch.N
	}
	all.States = r.States()
	d, err := FromBatch(m, all)
	if err != nil {
		return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: err.Error(), Err: err}
	}
	return d, nil
}
