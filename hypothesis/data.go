package hypothesis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// maxErrors is how many cell errors NewData and ReadCSV collect before
// they stop reading.
const maxErrors = 10

// Data are the rows given to a space: one column of float64 per entry of
// [Columns] (s, m), all of the same length. A numeric column holds its
// numbers, a bernoulli-observed column 0 or 1, a concept's attribute or
// target column the index of the state in the model variable's States.
type Data struct {
	Names []string    // the column names, Columns(s, m)
	Cols  [][]float64 // Cols[j][i]: column j of row i
	n     int
	pos   func(row, col int) ir.Pos // or nil
}

// Len returns the number of rows.
func (d *Data) Len() int { return d.n }

// Pos returns the position of row's cell in column col (an index in
// Names), or of the whole row when col is -1. It is the zero Pos when the
// data carry no positions.
func (d *Data) Pos(row, col int) ir.Pos {
	if d.pos == nil {
		return ir.Pos{}
	}
	return d.pos(row, col)
}

// Columns returns the names of the columns a space reads, in the order of
// Data.Cols: Space.Columns for a parameterised space; for a concept space,
// its attributes' names then its target's.
func Columns(s *ir.Space, m *ir.Model) []string {
	if c := s.Concept; c != nil {
		out := make([]string, 0, len(c.Attrs)+1)
		for _, a := range c.Attrs {
			out = append(out, m.Vars[a].Name)
		}
		return append(out, m.Vars[c.Target].Name)
	}
	return s.Columns
}

// cellKind is how a column's cells are read.
type cellKind int

const (
	cellNumber cellKind = iota // a finite number
	cellBinary                 // 0/1/true/false/yes/no, for a bernoulli observation
	cellState                  // a state name of a model variable
)

// plan says, for each column the space reads, which field of a record
// holds it and how to read it.
type plan struct {
	names  []string
	field  []int // field[j]: index of column j in the header
	kind   []cellKind
	states [][]string // for cellState
	vars   []string   // for cellState: the variable's name
}

func newPlan(s *ir.Space, m *ir.Model, header []string, headerPos func(field int) ir.Pos) (*plan, error) {
	names := Columns(s, m)
	p := &plan{names: names, field: make([]int, len(names)), kind: make([]cellKind, len(names)),
		states: make([][]string, len(names)), vars: make([]string, len(names))}
	if c := s.Concept; c != nil {
		for j := range names {
			v := c.Target
			if j < len(c.Attrs) {
				v = c.Attrs[j]
			}
			p.kind[j], p.states[j], p.vars[j] = cellState, m.Vars[v].States, m.Vars[v].Name
		}
	} else {
		for _, o := range s.Obs {
			if o.Family == ir.FamilyBernoulli {
				p.kind[o.Column] = cellBinary
			}
		}
	}
	index := make(map[string]int, len(header))
	var errs ir.ErrorList
	for f, h := range header {
		h = strings.TrimSpace(h)
		if f == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		if _, dup := index[h]; dup {
			index[h] = -1 - f // a duplicate: an error if the space reads it
			continue
		}
		index[h] = f
	}
	for j, name := range names {
		f, ok := index[name]
		switch {
		case !ok:
			msg := fmt.Sprintf("the data have no column %q", name)
			if near := spell.Nearest(name, header); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			errs = append(errs, &ir.Error{Pos: headerPos(-1), Msg: msg, Err: ErrMissingColumn})
		case f < 0:
			errs = append(errs, &ir.Error{Pos: headerPos(-1 - f), Msg: fmt.Sprintf("column %q appears twice in the header", name), Err: ErrBadValue})
		default:
			p.field[j] = f
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// row reads a record's cells into d's row i, adding errors to errs;
// cellPos(field) positions a field of the record.
func (p *plan) row(d *Data, i int, rec []string, cellPos func(field int) ir.Pos, errs *ir.ErrorList) {
	for j, f := range p.field {
		if f >= len(rec) {
			*errs = append(*errs, &ir.Error{Pos: cellPos(-1), Msg: fmt.Sprintf("missing value for %q: the row has %s", p.names[j], ir.Plural(len(rec), "field")), Err: ErrMissingValue})
			continue
		}
		v, err := p.cell(j, rec[f])
		if err != nil {
			err.Pos = cellPos(f)
			*errs = append(*errs, err)
			continue
		}
		d.Cols[j][i] = v
	}
}

// cell reads one cell of column j; the error's Pos is left for the caller.
func (p *plan) cell(j int, s string) (float64, *ir.Error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, &ir.Error{Msg: fmt.Sprintf("missing value for %q", p.names[j]), Err: ErrMissingValue}
	}
	switch p.kind[j] {
	case cellBinary:
		v, err := bernoulliCell(s, p.names[j])
		if err != nil {
			return 0, &ir.Error{Msg: err.Error(), Err: ErrBadValue}
		}
		return v, nil
	case cellState:
		for k, st := range p.states[j] {
			if st == s {
				return float64(k), nil
			}
		}
		msg := fmt.Sprintf("unknown state %q for %s", s, p.vars[j])
		if near := spell.Nearest(s, p.states[j]); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		} else {
			msg += fmt.Sprintf(" (its states are %s)", strings.Join(p.states[j], ", "))
		}
		return 0, &ir.Error{Msg: msg, Err: ErrBadValue}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, &ir.Error{Msg: fmt.Sprintf("%s is out of float64's range in column %q", s, p.names[j]), Err: ErrBadValue}
		}
		return 0, &ir.Error{Msg: fmt.Sprintf("%q is not a number (column %q)", s, p.names[j]), Err: ErrBadValue}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &ir.Error{Msg: fmt.Sprintf("%s is not a finite number (column %q)", s, p.names[j]), Err: ErrBadValue}
	}
	return v, nil
}

func (p *plan) newData(n int) *Data {
	d := &Data{Names: p.names, Cols: make([][]float64, len(p.names)), n: n}
	for j := range d.Cols {
		d.Cols[j] = make([]float64, n)
	}
	return d
}

// NewData reads rows of text cells for space s of model m. header names
// the fields of each row; fields the space does not read are ignored.
// cellPos(row, field) positions a cell (row -1 is the header; field -1 the
// whole row); it may be nil. The errors are an ir.ErrorList: a missing
// column (ErrMissingColumn, with a did-you-mean), an empty cell
// (ErrMissingValue), text, NaN or an infinity in a numeric column, a
// bernoulli cell that is not 0/1/true/false/yes/no, an unknown state of a
// concept's variable (ErrBadValue).
func NewData(s *ir.Space, m *ir.Model, header []string, rows [][]string, cellPos func(row, field int) ir.Pos) (*Data, error) {
	if cellPos == nil {
		cellPos = func(int, int) ir.Pos { return ir.Pos{} }
	}
	p, err := newPlan(s, m, header, func(f int) ir.Pos { return cellPos(-1, f) })
	if err != nil {
		return nil, err
	}
	d := p.newData(len(rows))
	var errs ir.ErrorList
	for i, rec := range rows {
		p.row(d, i, rec, func(f int) ir.Pos { return cellPos(i, f) }, &errs)
		if len(errs) >= maxErrors {
			break
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	d.pos = func(row, col int) ir.Pos {
		if col >= 0 {
			col = p.field[col]
		}
		return cellPos(row, col)
	}
	return d, nil
}

// FromColumns returns data for space s of model m made of the given
// columns, in the order of [Columns] (s, m), without positions. Values
// are checked as NewData checks cells: finite numbers, 0 or 1 in a
// bernoulli column, state indices in a concept's.
func FromColumns(s *ir.Space, m *ir.Model, cols [][]float64) (*Data, error) {
	names := Columns(s, m)
	if len(cols) != len(names) {
		return nil, fmt.Errorf("hypothesis: %d columns given for %d (%s)", len(cols), len(names), strings.Join(names, ", "))
	}
	p, err := newPlan(s, m, names, func(int) ir.Pos { return ir.Pos{} })
	if err != nil {
		return nil, err
	}
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	for j, c := range cols {
		if len(c) != n {
			return nil, fmt.Errorf("hypothesis: column %q has %d values, column %q %d", names[j], len(c), names[0], n)
		}
		for i, v := range c {
			ok := !math.IsNaN(v) && !math.IsInf(v, 0)
			switch p.kind[j] {
			case cellBinary:
				ok = v == 0 || v == 1
			case cellState:
				ok = v >= 0 && v < float64(len(p.states[j])) && v == math.Trunc(v)
			}
			if !ok {
				return nil, &ir.Error{Msg: fmt.Sprintf("row %d: %v is not a value of column %q", i+1, v, names[j]), Err: ErrBadValue}
			}
		}
	}
	return &Data{Names: names, Cols: cols, n: n}, nil
}

// ReadCSV reads the CSV file at path (its first row the header; a gzip
// file is decompressed) for space s of model m, refusing a file larger
// than internal/input's limit. It reads it with package data's reader,
// as every command reads CSV (see package data's doc: quoting, byte
// order mark, line ends, what a missing cell is), and stops at the first
// bad row. Errors are an ir.ErrorList positioned path:line:col: a missing column
// (ErrMissingColumn), a missing cell (ErrMissingValue: empty, ?, NA, or
// NaN in a numeric column), text or an infinity in a numeric column, a
// bernoulli cell that is not 0/1/true/false/yes/no, an unknown state of a
// concept's variable (ErrBadValue), and the reader's errors about the
// file's syntax (data.ErrMalformed, data.ErrNoHeader).
func ReadCSV(path string, s *ir.Space, m *ir.Model) (*Data, error) {
	return ReadCSVContext(context.Background(), path, s, m)
}

// ReadCSVContext is ReadCSV, stopped when ctx is done (returning
// ctx.Err()): its rows are read with a check every few thousand.
func ReadCSVContext(ctx context.Context, path string, s *ir.Space, m *ir.Model) (*Data, error) {
	src, err := input.ReadDataContext(ctx, path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(src, []byte{0x1f, 0x8b}) {
		// Decompressed here for the size limit; data that does not
		// decompress is left to the reader, which reports where it breaks.
		plain, err := input.Gunzip(src)
		var tl *input.TooLargeError
		if errors.As(err, &tl) {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if err == nil {
			src = plain
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return readCSV(ctx, path, src, s, m)
}

func readCSV(ctx context.Context, path string, src []byte, s *ir.Space, m *ir.Model) (*Data, error) {
	names := Columns(s, m)
	decode := map[ir.VarID]func(string) (float64, error){}
	model := func(h *data.Header) (*ir.Model, error) {
		if err := checkHeader(h, names); err != nil {
			return nil, err
		}
		b := ir.NewBuilder(path)
		at := ir.Pos{File: path, Line: 1}
		for j, name := range names {
			switch c := s.Concept; {
			case c != nil:
				v := c.Target
				if j < len(c.Attrs) {
					v = c.Attrs[j]
				}
				mv := m.Vars[v]
				b.AddVar(at, name, mv.Kind, mv.States, mv.Lo)
			default:
				id, _ := b.AddVar(at, name, ir.Real, nil, 0)
				if bernoulliColumn(s, j) {
					decode[id] = func(cell string) (float64, error) { return bernoulliCell(cell, name) }
				}
			}
		}
		return b.Finish()
	}
	r, err := data.NewReaderFunc(path, bytes.NewReader(src), model, data.Options{IgnoreUnknownColumns: true, Required: true, Decode: decode})
	if err != nil {
		return nil, readError(path, err)
	}
	defer r.Close()
	d := &Data{Names: names, Cols: make([][]float64, len(names))}
	for j := range d.Cols {
		d.Cols[j] = []float64{}
	}
	var lines []int32
	batch := r.NewBatch(4096)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		err := r.Read(batch)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readError(path, err)
		}
		for j, v := range batch.Vars {
			col := batch.Reals[j]
			if col == nil { // a concept's column: state indices
				for _, st := range batch.Cols[j][:batch.N] {
					d.Cols[v] = append(d.Cols[v], float64(st))
				}
				continue
			}
			d.Cols[v] = append(d.Cols[v], col[:batch.N]...)
		}
		for _, line := range batch.Lines[:batch.N] {
			lines = append(lines, int32(line))
		}
	}
	d.n = len(lines)
	d.pos = func(row, col int) ir.Pos {
		if row < 0 {
			return ir.Pos{File: path, Line: 1}
		}
		return ir.Pos{File: path, Line: int(lines[row])}
	}
	return d, nil
}

// readError returns the data reader's error as an ir.ErrorList whose
// errors about cells have this package's kinds as well as data's.
func readError(path string, err error) error {
	list := ir.Positioned(ir.Pos{File: path}, err)
	for i, e := range list {
		var kind error
		switch {
		case errors.Is(e, ErrMissingValue), errors.Is(e, ErrBadValue):
			continue
		case errors.Is(e, data.ErrMissingValue):
			kind = ErrMissingValue
		case errors.Is(e, data.ErrBadValue):
			kind = ErrBadValue
		default:
			continue
		}
		list[i] = &ir.Error{Pos: e.Pos, Msg: e.Msg, Err: errors.Join(kind, e.Err)}
	}
	return list
}

// checkHeader checks that the header h has each of the columns a space
// reads, once.
func checkHeader(h *data.Header, names []string) error {
	index := make(map[string]int, len(names))
	for _, name := range names {
		index[name] = -1
	}
	var errs ir.ErrorList
	for k, name := range h.Names {
		switch f, ok := index[name]; {
		case !ok:
		case f >= 0:
			errs = append(errs, &ir.Error{Pos: h.Pos(k), Msg: fmt.Sprintf("column %q appears twice in the header", name), Err: ErrBadValue})
		default:
			index[name] = k
		}
	}
	for _, name := range names {
		if index[name] < 0 {
			msg := fmt.Sprintf("the data have no column %q", name)
			if near := spell.Nearest(name, h.Names); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			errs = append(errs, &ir.Error{Pos: ir.Pos{File: h.File(), Line: 1}, Msg: msg, Err: ErrMissingColumn})
		}
	}
	return errs.Err()
}

// bernoulliColumn reports whether column j of parameterised space s is a
// bernoulli observation's.
func bernoulliColumn(s *ir.Space, j int) bool {
	for _, o := range s.Obs {
		if o.Family == ir.FamilyBernoulli && o.Column == j {
			return true
		}
	}
	return false
}

// bernoulliCell reads a cell of the bernoulli column name: 0, 1, true,
// false, yes or no, in any case.
func bernoulliCell(cell, name string) (float64, error) {
	switch strings.ToLower(cell) {
	case "1", "true", "yes":
		return 1, nil
	case "0", "false", "no":
		return 0, nil
	}
	return 0, &valueError{fmt.Sprintf("%q is not a value of the bernoulli column %q (0, 1, true, false, yes or no)", cell, name)}
}

// valueError is an error of kind ErrBadValue with its own message.
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }
func (e *valueError) Unwrap() error { return ErrBadValue }

// FromTable reads an inline data table (ir.DataTable with Header and
// Cells, as lowered from `data D { ... }`) for space s of model m, with
// the cells' positions; a cell written ? is missing.
func FromTable(s *ir.Space, m *ir.Model, t *ir.DataTable) (*Data, error) {
	return NewData(s, m, t.Header, t.Cells, func(row, f int) ir.Pos {
		switch {
		case row < 0 && f >= 0 && f < len(t.HeaderPos):
			return t.HeaderPos[f]
		case row < 0:
			return t.Pos
		case row < len(t.CellPos) && f >= 0 && f < len(t.CellPos[row]):
			return t.CellPos[row][f]
		case row < len(t.Lines):
			return t.Lines[row]
		case row < len(t.CellPos) && len(t.CellPos[row]) > 0:
			p := t.CellPos[row][0]
			p.Col = 0
			return p
		}
		return t.Pos
	})
}
