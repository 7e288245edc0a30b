package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
)

// Missing is the state of a missing cell of a discrete column.
const Missing = -1

// MaxHeaderErrors is the most errors about the columns of a header that
// are reported one by one (each unknown column with the variable it may
// have meant); one more error says how many more columns are in error.
// A header of a million columns that name no variable is so eleven
// errors, found in time linear in the header's length.
const MaxHeaderErrors = 10

// ErrUnknownColumn is the kind (ir.Error.Err) of the error about a header
// column that names no variable of the model, and of the error that
// counts those beyond MaxHeaderErrors.
var ErrUnknownColumn = errors.New("column names no variable of the model")

// ErrMalformed is the kind of the errors about a file that is not CSV as
// this package reads it (see "Dialect" in the package doc): a quote out
// of place or never closed, a row with too many or too few fields, a
// lone carriage return, a field, row or header over the limits, gzip data
// that does not decompress.
var ErrMalformed = errors.New("malformed CSV")

// ErrNoHeader is the kind of the error about a file that is empty, or
// whose first row is empty: it has no header.
var ErrNoHeader = errors.New("no header row")

// ErrMissingValue is the kind of the error about a missing cell (empty,
// ? or NA, or NaN in a real-valued column) when [Options].Required says
// every cell must have a value.
var ErrMissingValue = errors.New("missing value")

// ErrBadValue is the kind of the error about a cell that is not a value
// of its column: an unknown state, text or an infinity in a real-valued
// column, or a cell that an [Options].Decode function refuses.
var ErrBadValue = errors.New("bad value")

// maxListed is the number of variables listed in a message about a
// column that names none.
const maxListed = 8

// Options configures a Reader.
type Options struct {
	IgnoreUnknownColumns bool // skip columns that name no model variable instead of failing

	// Workers is the number of goroutines that parse a large input (see
	// "Parallel parsing" in the package doc); 0 means GOMAXPROCS, and 1
	// parses on the goroutine that calls Read. The rows, their numbering
	// and the errors are the same for any number.
	Workers int

	// Required makes a missing cell (see "Cells" in the package doc) an
	// error of kind ErrMissingValue at the cell, for a command that needs
	// a value in every cell (pbl cluster, a hypothesis space's data). What
	// is missing is the same with or without it.
	Required bool

	// Decode, for the real-valued variables it has, reads their cells in
	// place of strconv.ParseFloat: a cell that is not missing is passed
	// to the function, and an error it returns is reported at the cell,
	// its message the error's text and its kind (ir.Error.Err) the error
	// itself, so that errors.Is finds the caller's kinds. The function is
	// called from the goroutines that parse (see "Parallel parsing"), so
	// it must be safe for concurrent use.
	Decode map[ir.VarID]func(cell string) (float64, error)

	chunkSize int // tests: the size of the chunks in parallel mode; 0 means chunkSize
}

// Reader streams the rows of a CSV file whose header names model variables.
// Columns that name a variable are bound; the others (with
// IgnoreUnknownColumns) are checked for shape only. A Reader is not safe
// for concurrent use: one goroutine reads batches and may hand them to
// others.
type Reader struct {
	Vars []ir.VarID // the model variable of each bound column, in column order
	Cols []int      // the CSV column index (0-based) of each bound column
	// HeaderPos[j] is where bound column j's name stands in the header,
	// for messages about the column as a whole.
	HeaderPos []ir.Pos
	Header    []string // the CSV header as written

	s       scanner
	m       *ir.Model
	nf      int                              // number of fields in every row: len(Header)
	bind    []int32                          // bind[k]: the bound column of CSV column k, or -1
	cols    []column                         // per bound column
	mk      func(*Header) (*ir.Model, error) // makes the model from the header (OpenFunc), or nil
	req     bool                             // Options.Required
	closer  io.Closer
	rows    int   // data rows delivered so far
	rowErr  error // the first bad cell of the row being scanned
	pending int   // blank lines read but not yet delivered (one-column files)
	pendAt  int   // line of the first pending blank line

	shards  []string  // the files still to read after this one (OpenShards)
	opt     Options   // to open them
	workers int       // Options.Workers, resolved: at least 1
	chunk   int       // the size of the chunks in parallel mode
	started bool      // Read has been called: the mode is chosen
	pipe    *pipeline // the splitter and workers in parallel mode, or nil
}

// column is what the scanner needs to decode the cells of a bound column.
type column struct {
	v      *ir.Variable
	real   bool
	decode func(string) (float64, error) // Options.Decode's function for a real column, or nil
	states []string                      // the variable's states, looked up linearly when few
	index  map[string]int32              // state index by name, when there are many
	na     bool                          // NA is a state, not a missing value
	qmark  bool                          // ? is a state, not a missing value

	// The states looked up linearly, as words for a quick comparison:
	// key[i] holds the bytes of state i (little-endian, zero-padded) and
	// klen[i] its length, or -1 if it is longer than 8 bytes.
	key  [linearStates]uint64
	klen [linearStates]int8
}

// linearStates is the largest number of states looked up by linear scan
// rather than by map.
const linearStates = 8

// wordMask[n] keeps the first n bytes of a little-endian word.
var wordMask = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, ^uint64(0)}

// setKey sets the lookup word of state i, if it is looked up linearly.
func (c *column) setKey(i int) {
	if i >= linearStates {
		return
	}
	s := c.states[i]
	if len(s) > 8 {
		c.klen[i] = -1
		return
	}
	var w [8]byte
	copy(w[:], s)
	c.key[i], c.klen[i] = binary.LittleEndian.Uint64(w[:]), int8(len(s))
}

// state returns the index of the state named val, or -1.
func (c *column) state(val []byte) int32 {
	if c.index != nil {
		if s, ok := c.index[string(val)]; ok {
			return s
		}
		return -1
	}
	if n := len(val); n <= 8 && cap(val) >= 8 {
		// val is in the read buffer, which has 8 bytes from its start:
		// one word comparison per state.
		w := binary.LittleEndian.Uint64(val[:8]) & wordMask[n]
		for i := range c.states {
			if int(c.klen[i]) == n && c.key[i] == w {
				return int32(i)
			}
		}
		return -1
	}
	for i, s := range c.states {
		if string(val) == s {
			return int32(i)
		}
	}
	return -1
}

// missing reports whether val, which is not a state of c's variable, marks a
// missing cell.
func (c *column) missing(val []byte) bool {
	switch string(val) {
	case "":
		return true
	case "?":
		return !c.qmark
	case "NA":
		return !c.na
	}
	return false
}

// Batch is a block of rows, column-major.
type Batch struct {
	N     int         // rows filled
	Cols  [][]int32   // Cols[j][i]: state index of bound column j in row i, or Missing (discrete columns; nil for real columns)
	Reals [][]float64 // Reals[j][i]: value of real column j in row i, NaN if missing (nil for discrete columns)
	Lines []int       // Lines[i]: the 1-based line number of row i in the file (for messages)
	Vars  []ir.VarID  // Vars[j]: the model variable of column j (the Reader's Vars)

	// States, set by ReadAll only, are the states of the open variables
	// after the rows (see Reader.States), or nil.
	States map[ir.VarID][]string
}

// BatchBytes is the most memory [Reader.NewBatch] gives a batch: a batch
// of wide rows has room for fewer of them than asked for (at least one).
const BatchBytes = 4 << 20

// rowBytes returns the memory a row of r takes in a batch.
func (r *Reader) rowBytes() int {
	n := 8 // its line
	for _, c := range r.cols {
		if c.real {
			n += 8
		} else {
			n += 4
		}
	}
	return n
}

// NewBatch returns a batch for r with room for size rows, or for as many
// as BatchBytes holds (at least one) if that is fewer: a row of a million
// columns takes 4 to 8 MB, and a thousand of them would not fit in memory.
// Read fills a batch up to its room, len(Lines); to have the first n rows
// in one batch, use ReadHead. NewBatch panics if size is not positive.
func (r *Reader) NewBatch(size int) *Batch {
	if size <= 0 {
		panic("data: NewBatch: size must be positive")
	}
	size = max(1, min(size, BatchBytes/r.rowBytes()))
	b := &Batch{
		Cols:  make([][]int32, len(r.cols)),
		Reals: make([][]float64, len(r.cols)),
		Lines: make([]int, size),
		Vars:  r.Vars,
	}
	for j, c := range r.cols {
		if c.real {
			b.Reals[j] = make([]float64, size)
		} else {
			b.Cols[j] = make([]int32, size)
		}
	}
	return b
}

// Open opens the CSV file at path, which may be gzip-compressed (recognised
// by its magic bytes), and calls NewReader. Close closes the file. An error
// opening the file, or a path that names a directory, is an
// *os.PathError.
//
// A path that is not a regular file (a pipe, /dev/stdin) is read whole
// by input.ReadData, which keeps what it read: a learner that opens its
// data for each pass reads the same rows every time.
func Open(path string, m *ir.Model, opt Options) (*Reader, error) {
	return open(path, m, nil, opt)
}

// OpenFunc opens the CSV file at path as Open does, for a command that
// has no model of its own (pbl cluster, pbl structure, a hypothesis
// space's data): the model is made from the header, by model, which is
// given the header's fields as written (unquoted, after a byte order
// mark) and returns the model whose variables the columns bind to, by
// name, as for Open. An error model returns is OpenFunc's. The file's
// header is read once, with the same rules as every other (see the
// package doc), so that its syntax errors are positioned as theirs.
func OpenFunc(path string, model func(*Header) (*ir.Model, error), opt Options) (*Reader, error) {
	return open(path, nil, model, opt)
}

// NewReaderFunc is NewReader with the model made from the header, as for
// OpenFunc.
func NewReaderFunc(filename string, src io.Reader, model func(*Header) (*ir.Model, error), opt Options) (*Reader, error) {
	return newReader(filename, src, nil, model, opt)
}

// Header is a file's header row, as OpenFunc gives it to the function
// that makes the model.
type Header struct {
	Names []string // the fields, unquoted: Names[k] is column k's
	file  string
	at    []cell // at[k]: where column k's field starts
}

// cell is a position in a file, without the file's name.
type cell struct{ line, col int32 }

// Pos returns where column k's field stands in the header, for messages
// about the column.
func (h *Header) Pos(k int) ir.Pos {
	return ir.Pos{File: h.file, Line: int(h.at[k].line), Col: int(h.at[k].col)}
}

// File returns the name of the file, for messages.
func (h *Header) File() string { return h.file }

// open is Open and OpenFunc.
func open(path string, m *ir.Model, mk func(*Header) (*ir.Model, error), opt Options) (*Reader, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		b, err := input.ReadData(path)
		if err != nil {
			return nil, err
		}
		return newReader(path, bytes.NewReader(b), m, mk, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	r, err := newReader(path, f, m, mk, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Close closes the file opened by Open. It does nothing for a Reader made
// by NewReader.
func (r *Reader) Close() error {
	if r.pipe != nil {
		r.pipe.halt()
	}
	if r.closer == nil {
		return nil
	}
	c := r.closer
	r.closer = nil
	return c.Close()
}

// NewReader reads the header from src and binds its columns to m's
// variables by name (exact match; quoted header fields allowed). filename
// is used in error positions. src may be gzip-compressed (recognised by its
// magic bytes). Errors in the header are an ir.ErrorList; an error reading
// src is returned as an *ir.Error.
func NewReader(filename string, src io.Reader, m *ir.Model, opt Options) (*Reader, error) {
	return newReader(filename, src, m, nil, opt)
}

// newReader is NewReader and NewReaderFunc: the model is m, or made by mk
// from the header.
func newReader(filename string, src io.Reader, m *ir.Model, mk func(*Header) (*ir.Model, error), opt Options) (*Reader, error) {
	r := &Reader{m: m, mk: mk, req: opt.Required, workers: opt.Workers, chunk: opt.chunkSize}
	if r.chunk <= 0 {
		r.chunk = chunkSize
	}
	if r.workers <= 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	r.s = scanner{file: filename, src: src, buf: make([]byte, initialBuf), line: 1}
	s := &r.s
	for s.end < 3 && !s.eof {
		if err := s.fill(); err != nil {
			return nil, ir.Positioned(ir.Pos{File: filename}, err)
		}
	}
	if s.end >= 2 && s.buf[0] == 0x1f && s.buf[1] == 0x8b {
		start := bytes.NewReader(append([]byte(nil), s.buf[:s.end]...))
		rest := src
		switch {
		case s.eof:
			rest = bytes.NewReader(nil)
		case s.rerr != nil: // src failed after the bytes read
			rest, s.rerr = failing{s.rerr}, nil
		}
		zr, err := gzip.NewReader(io.MultiReader(start, rest))
		if err != nil {
			return nil, ir.ErrorList{malformed(ir.Pos{File: filename, Line: 1}, "the file starts as gzip data but is not valid gzip (%v): is it truncated?", err)}
		}
		s.src, s.pos, s.end, s.eof, s.gzip = zr, 0, 0, false, true
		for s.end < 3 && !s.eof {
			if err := s.fill(); err != nil {
				return nil, ir.Positioned(ir.Pos{File: filename}, err)
			}
		}
	}
	if s.end >= 3 && s.buf[0] == 0xef && s.buf[1] == 0xbb && s.buf[2] == 0xbf {
		s.pos = 3 // a UTF-8 byte order mark
	}
	if err := r.header(opt); err != nil {
		return nil, err
	}
	return r, nil
}

// header reads the header row and binds its columns. A header longer
// than the buffer is scanned once: the fields scanned are kept across
// fills.
func (r *Reader) header(opt Options) error {
	s := &r.s
	start := ir.Pos{File: s.file, Line: 1, Col: 1}
	var text []byte // the names, one after another (one string in the end)
	var ends []int  // the end of each name in text
	var offs []int  // the offset of each field from the row's start, for positions
	next := 0       // the offset of the next field to scan from the row's start
	s.rowStart, s.rowLines = s.pos, 0
	for {
		if s.pos == s.end {
			if s.eof {
				e := ir.Errorf(start, "empty file: expected a header row naming model variables")
				e.Err = ErrNoHeader
				return ir.ErrorList{e}
			}
			if err := s.fill(); err != nil {
				return ir.Positioned(ir.Pos{File: s.file}, err)
			}
			s.rowStart = s.pos
			continue
		}
		st, done := stOK, false
		for !done {
			if len(ends) == maxColumns {
				return ir.ErrorList{malformed(s.posAt(s.rowStart+next), "the header has more than %d columns", maxColumns)}
			}
			p := s.rowStart + next
			val, to, eol, fst := s.field(p)
			if st = fst; st != stOK {
				break
			}
			text = append(text, val...)
			ends = append(ends, len(text))
			offs = append(offs, next)
			next, done = to-s.rowStart, eol
		}
		switch st {
		case stBad:
			return ir.Positioned(ir.Pos{File: s.file}, s.err)
		case stMore:
			if err := s.fill(); err != nil {
				return ir.Positioned(ir.Pos{File: s.file}, err)
			}
			s.rowStart = s.pos // fill moves the row to the buffer's start
			continue
		}
		if len(ends) == 1 && ends[0] == 0 && s.buf[s.pos] != '"' {
			e := ir.Errorf(start, "the header row is empty: expected the names of model variables")
			e.Err = ErrNoHeader
			return ir.ErrorList{e}
		}
		all := string(text)
		names := make([]string, len(ends))
		for k, e := range ends {
			b := 0
			if k > 0 {
				b = ends[k-1]
			}
			names[k] = all[b:e]
		}
		r.Header = names
		for k := range offs {
			offs[k] += s.rowStart
		}
		if r.mk != nil {
			h := &Header{Names: names, file: s.file, at: make([]cell, len(offs))}
			at := s.cursor()
			for k, o := range offs {
				p := at.pos(o)
				h.at[k] = cell{int32(p.Line), int32(p.Col)}
			}
			m, err := r.mk(h)
			if err != nil {
				return err
			}
			r.m, r.mk = m, nil
		}
		errs := r.bindColumns(names, offs, opt)
		s.line += 1 + s.rowLines
		s.pos = s.rowStart + next
		return errs.Err()
	}
}

// bindColumns binds the header's columns to the model's variables. It
// reports the first MaxHeaderErrors bad columns, and then how many more
// there are; its time is linear in the header's length.
func (r *Reader) bindColumns(names []string, offs []int, opt Options) ir.ErrorList {
	s := &r.s
	m := r.m
	var errs ir.ErrorList
	r.nf = len(names)
	r.bind = make([]int32, len(names))
	n := min(len(names), len(m.Vars)) // at most, the columns bound
	r.Vars, r.Cols, r.cols = make([]ir.VarID, 0, n), make([]int, 0, n), make([]column, 0, n)
	r.HeaderPos = make([]ir.Pos, 0, n)
	first := make(map[ir.VarID]int, n) // column of each bound variable
	at := s.cursor()
	var varNames []string // m.Names(), for hints
	var more struct {
		pos                       ir.Pos // of the first column not reported
		unknown, unnamed, repeats int
	}
	// bad reports the error of column k, or counts it when MaxHeaderErrors
	// have been.
	bad := func(k int, count *int, err error, format string, args ...any) {
		if len(errs) < MaxHeaderErrors {
			e := ir.Errorf(at.pos(offs[k]), format, args...)
			e.Err = err
			errs = append(errs, e)
			return
		}
		if more.unknown+more.unnamed+more.repeats == 0 {
			more.pos = at.pos(offs[k])
		}
		*count++
	}
	for k, name := range names {
		r.bind[k] = -1
		v, ok := m.Lookup(name)
		if !ok {
			switch {
			case opt.IgnoreUnknownColumns:
			case name == "":
				bad(k, &more.unnamed, nil, "column %d of the header has no name", k+1)
			case len(errs) < MaxHeaderErrors:
				msg := "column " + show([]byte(name)) + " names no variable of the model"
				if varNames == nil {
					varNames = m.Names()
				}
				if h := spell.Nearest(name, varNames); h != "" {
					msg += " (did you mean " + strconv.Quote(h) + "?)"
				}
				bad(k, nil, ErrUnknownColumn, "%s", msg)
			default:
				bad(k, &more.unknown, nil, "")
			}
			continue
		}
		if prev, dup := first[v.ID]; dup {
			bad(k, &more.repeats, nil, "duplicate column %s (also column %d)", strconv.Quote(name), prev+1)
			continue
		}
		first[v.ID] = k
		r.bind[k] = int32(len(r.cols))
		r.Vars = append(r.Vars, v.ID)
		r.Cols = append(r.Cols, k)
		r.HeaderPos = append(r.HeaderPos, at.pos(offs[k]))
		c := newColumn(v)
		if c.real {
			c.decode = opt.Decode[v.ID]
		}
		r.cols = append(r.cols, c)
	}
	if n := more.unknown + more.unnamed + more.repeats; n > 0 {
		var msg string
		if n == more.unknown {
			msg = "and " + ir.Plural(n, "more column") + " " + verb(n, "names", "name") + " no variable of the model"
		} else {
			var parts []string
			if more.unknown > 0 {
				parts = append(parts, strconv.Itoa(more.unknown)+" "+verb(more.unknown, "names", "name")+" no variable of the model")
			}
			if more.unnamed > 0 {
				parts = append(parts, strconv.Itoa(more.unnamed)+" "+verb(more.unnamed, "has", "have")+" no name")
			}
			if more.repeats > 0 {
				parts = append(parts, strconv.Itoa(more.repeats)+" "+verb(more.repeats, "repeats", "repeat")+" an earlier column")
			}
			msg = "and " + ir.Plural(n, "more column") + " in error: " + strings.Join(parts, ", ")
		}
		e := ir.Errorf(more.pos, "%s", msg)
		if more.unknown > 0 {
			e.Err = ErrUnknownColumn
		}
		errs = append(errs, e)
	}
	if len(r.cols) == 0 && len(errs) == 0 {
		errs.Add(ir.Pos{File: s.file, Line: 1, Col: 1}, "no column of the header names a variable of the model (%s)", varList(m))
	}
	return errs
}

// verb returns one if n is 1, else many.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func newColumn(v *ir.Variable) column {
	c := column{v: v, real: !v.Discrete(), states: v.States}
	if v.Open {
		// The reader's own copy, which the data extends: the model is
		// never written.
		c.states = append([]string(nil), v.States...)
	}
	if len(v.States) > linearStates {
		c.index = make(map[string]int32, len(v.States))
		for i, s := range v.States {
			c.index[s] = int32(i)
		}
	} else {
		for i := range c.states {
			c.setKey(i)
		}
	}
	c.na = v.State("NA") >= 0
	c.qmark = v.State("?") >= 0
	return c
}

// varList lists a few of m's variable names.
func varList(m *ir.Model) string {
	names := m.Names()
	n := min(len(names), maxListed)
	var b strings.Builder
	b.WriteString("its variables are ")
	for i, name := range names[:n] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ir.Quote(name))
	}
	if n < len(names) {
		b.WriteString(", ...")
	}
	return b.String()
}

// Model returns the model r reads rows for.
func (r *Reader) Model() *ir.Model { return r.m }

// File returns the name of the file r reads, for messages.
func (r *Reader) File() string { return r.s.file }

// Rows returns how many data rows have been read so far.
func (r *Reader) Rows() int { return r.rows }

// Read fills b with up to len(b.Lines) rows. It returns io.EOF (with
// b.N == 0) when the file is exhausted. A malformed row stops reading: Read
// returns an *ir.Error positioned file:line:col, with b.N the number of
// good rows before it, and every later call returns the same error.
func (r *Reader) Read(b *Batch) error {
	if len(b.Cols) != len(r.cols) || len(b.Reals) != len(r.cols) {
		panic("data: Read: the batch was not made for this reader")
	}
	b.N = 0
	if r.s.err != nil {
		return r.s.err
	}
	size := len(b.Lines)
	if size == 0 {
		panic("data: Read: the batch has no room")
	}
	for j, c := range r.cols {
		if c.real && len(b.Reals[j]) < size || !c.real && len(b.Cols[j]) < size {
			panic("data: Read: a column of the batch is shorter than its Lines")
		}
	}
	return r.readShards(b)
}

// readOne is Read within the current file.
func (r *Reader) readOne(b *Batch) error {
	size := len(b.Lines)
	if !r.started {
		r.started = true
		r.startParallel(r.workers)
	}
	if r.pipe != nil {
		return r.readParallel(b)
	}
	i := 0
	for i < size {
		if r.pending > 0 && r.s.eof && r.s.pos == r.s.end {
			r.pending = 0 // blank lines at the end of the file are nothing
		}
		switch r.row(b, i) {
		case stOK:
			i++
		case stSkip:
		case stFlush:
			if r.req && r.pending > 0 && len(r.cols) > 0 {
				// A blank line of a one-column file is a missing cell.
				e := ir.Errorf(ir.Pos{File: r.s.file, Line: r.pendAt, Col: 1}, "missing value for %s", ir.Quote(r.cols[0].v.Name))
				e.Err = ErrMissingValue
				r.s.err = e
				b.N = i
				r.rows += i
				return e
			}
			for ; r.pending > 0 && i < size; i++ {
				r.missingRow(b, i, r.pendAt)
				r.pendAt++
				r.pending--
			}
		case stMore:
			if err := r.s.fill(); err != nil {
				r.s.err = err
				b.N = i
				r.rows += i
				return err
			}
		case stBad:
			b.N = i
			r.rows += i
			return r.s.err
		case stEOF:
			b.N = i
			r.rows += i
			if i == 0 {
				return io.EOF
			}
			return nil
		}
	}
	b.N = i
	r.rows += i
	return nil
}

// missingRow sets row i of b to all missing.
func (r *Reader) missingRow(b *Batch, i, line int) {
	for j, c := range r.cols {
		if c.real {
			b.Reals[j][i] = math.NaN()
		} else {
			b.Cols[j][i] = Missing
		}
	}
	b.Lines[i] = line
}

// row scans the row at s.pos into row i of b.
func (r *Reader) row(b *Batch, i int) status {
	s := &r.s
	buf, end := s.buf[:s.end], s.end
	p := s.pos
	s.rowStart, s.rowLines = p, 0
	if p == end {
		if s.eof {
			return stEOF
		}
		return stMore
	}
	if c := buf[p]; c == '\n' || c == '\r' {
		n := 1
		if c == '\r' {
			var st status
			if n, st = s.crlf(p); st != stOK {
				return st
			}
		}
		if r.nf == 1 {
			if r.pending == 0 {
				r.pendAt = s.line
			}
			r.pending++
		}
		s.pos += n
		s.line++
		return stSkip
	}
	if r.pending > 0 {
		return stFlush
	}
	r.rowErr = nil
	bind := r.bind
	nf := len(bind)
	k := 0
	for ; ; k++ {
		fs := p
		if k < nf && r.rowErr == nil {
			// A real cell that is a number of the common form, followed by
			// a comma or a newline, is parsed as it is scanned.
			if j := bind[k]; j >= 0 && r.cols[j].real && r.cols[j].decode == nil {
				if x, n, ok := parseFloatPrefix(buf[p:end]); ok && p+n < end {
					if c := buf[p+n]; c == ',' || c == '\n' {
						b.Reals[j][i] = x
						p += n + 1
						if c == '\n' {
							break
						}
						continue
					}
				}
			}
		}
		for p < end && !stop[buf[p]] {
			p++
		}
		var val []byte
		eol := false
		if p < end && buf[p] == ',' && p-fs <= maxField {
			val = buf[fs:p]
			p++
		} else if p < end && buf[p] == '\n' && p-fs <= maxField {
			val = buf[fs:p]
			p++
			eol = true
		} else if p+1 < end && buf[p] == '\r' && buf[p+1] == '\n' && p-fs <= maxField {
			val = buf[fs:p]
			p += 2
			eol = true
		} else {
			v, next, e, st := s.field(fs)
			if st != stOK {
				return st
			}
			val, p, eol = v, next, e
		}
		if k < nf {
			if j := bind[k]; j >= 0 && r.rowErr == nil {
				c := &r.cols[j]
				if c.real {
					b.Reals[j][i] = r.real(c, val, fs)
				} else {
					st := int32(Missing)
					if len(val) > 0 {
						if st = c.state(val); st < 0 {
							st = r.badState(c, val, fs)
						}
					} else if r.req {
						r.missingCell(c, fs)
					}
					b.Cols[j][i] = st
				}
			}
		}
		if eol {
			break
		}
	}
	if k+1 != nf {
		if k+1 > nf {
			return s.bad(r.fieldStart(nf), "row has %s, expected %d (one per header column)", ir.Plural(k+1, "field"), nf)
		}
		e := p
		if e > s.rowStart && buf[e-1] == '\n' {
			e--
			if e > s.rowStart && buf[e-1] == '\r' {
				e--
			}
		} else if e > s.rowStart && buf[e-1] == '\r' {
			e--
		}
		return s.bad(e, "row has %s, expected %d (one per header column)", ir.Plural(k+1, "field"), nf)
	}
	if r.rowErr != nil {
		s.err = r.rowErr
		return stBad
	}
	b.Lines[i] = s.line
	s.line += 1 + s.rowLines
	s.pos = p
	return stOK
}

// fieldStart returns the offset of field k of the complete row at
// s.rowStart.
func (r *Reader) fieldStart(k int) int {
	s := &r.s
	p := s.rowStart
	for range k {
		_, next, _, st := s.field(p)
		if st != stOK {
			break // cannot happen: the row was scanned whole
		}
		p = next
	}
	return p
}

// real decodes a cell of a real-valued column.
func (r *Reader) real(c *column, val []byte, fs int) float64 {
	if c.decode == nil {
		if x, ok := parseFloat(val); ok {
			return x // finite, not NaN; "", "?" and "NA" are not numbers
		}
	}
	if len(val) == 0 || c.missing(val) {
		if r.req {
			r.missingCell(c, fs)
		}
		return math.NaN()
	}
	if c.decode != nil {
		x, err := c.decode(string(val))
		if err != nil {
			e := r.s.errorf(fs, "%s", err.Error())
			e.Err = err
			r.rowErr = e
			return math.NaN()
		}
		return x
	}
	x, err := strconv.ParseFloat(string(val), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			r.badValue(fs, "number %s for %s is out of range", show(val), ir.Quote(c.v.Name))
		} else {
			r.badValue(fs, "%s is not a number (%s is real-valued)", show(val), ir.Quote(c.v.Name))
		}
		return math.NaN()
	}
	switch {
	case math.IsInf(x, 0):
		r.badValue(fs, "number %s for %s is not finite", show(val), ir.Quote(c.v.Name))
	case math.IsNaN(x) && r.req: // NaN written as such is a missing value
		r.missingCell(c, fs)
	}
	return x
}

// badValue records the error, of kind ErrBadValue, of the cell at
// buf[fs].
func (r *Reader) badValue(fs int, format string, args ...any) {
	e := r.s.errorf(fs, format, args...)
	e.Err = ErrBadValue
	r.rowErr = e
}

// missingCell records the error of the missing cell of column c at
// buf[fs], when Options.Required.
func (r *Reader) missingCell(c *column, fs int) {
	e := r.s.errorf(fs, "missing value for %s", ir.Quote(c.v.Name))
	e.Err = ErrMissingValue
	r.rowErr = e
}

// badState handles a cell that names no state: a missing value, or an
// error recorded in r.rowErr.
func (r *Reader) badState(c *column, val []byte, fs int) int32 {
	if c.missing(val) {
		if r.req {
			r.missingCell(c, fs)
		}
		return Missing
	}
	v := c.v
	if v.Open {
		return r.addState(c, val, fs)
	}
	msg := "unknown state " + show(val) + " for " + ir.Quote(v.Name)
	if t := strings.TrimSpace(string(val)); t != string(val) && v.State(t) >= 0 {
		msg += " (did you mean " + strconv.Quote(t) + "? spaces are part of a field)"
	} else {
		msg += ir.StateHint(v, string(val))
	}
	r.badValue(fs, "%s", msg)
	return Missing
}

// addState gives the open variable of column c the new state val in the
// reader's list of its states (see "Open variables" in the package doc)
// and returns its index.
func (r *Reader) addState(c *column, val []byte, fs int) int32 {
	v := c.v
	if len(c.states) >= ir.MaxStates {
		r.rowErr = r.s.errorf(fs, "%s has more than %d states: is it a real-valued or identifier column?", ir.Quote(v.Name), ir.MaxStates)
		return Missing
	}
	return c.appendState(string(val))
}

// appendState appends the state name to c's list and returns its index.
func (c *column) appendState(name string) int32 {
	c.states = append(c.states, name)
	s := int32(len(c.states) - 1)
	switch {
	case c.index != nil:
		c.index[name] = s
	case len(c.states) > linearStates:
		c.index = make(map[string]int32, 2*len(c.states))
		for i, st := range c.states {
			c.index[st] = int32(i)
		}
	default:
		c.setKey(int(s))
	}
	return s
}

// States returns the states of the open variables bound to columns: for
// each, its states in the model followed by those the rows read so far
// gave it, in order of first appearance. The indices of the batches'
// cells are indices into these lists. A model whose open variables are
// given these states ([ir.Model.WithStates]) numbers them as the batches
// do.
func (r *Reader) States() map[ir.VarID][]string {
	out := map[ir.VarID][]string{}
	for j, c := range r.cols {
		if c.v.Open {
			out[r.Vars[j]] = append([]string(nil), c.states...)
		}
	}
	return out
}

// ReadAll reads every row of the CSV data in src (see NewReader). It is
// meant for small data: tests and inline tables. The batch's slices have
// length N.
func ReadAll(filename string, src io.Reader, m *ir.Model, opt Options) (out *Batch, err error) {
	r, err := NewReader(filename, src, m, opt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return ReadRest(r)
}

// ReadRest reads every row r has not yet delivered into one batch, like
// ReadAll: for data that fits in memory, from any reader (OpenShards'
// included).
func ReadRest(r *Reader) (out *Batch, err error) {
	return readRows(r, -1)
}

// ReadHead reads the next n rows of r (fewer at the end of its data) into
// one batch, whose slices have length N and grow with the rows read: the
// first rows of a data set, read whole however wide they are. The end of
// the data is no error. n must be positive.
func ReadHead(r *Reader, n int) (*Batch, error) {
	if n <= 0 {
		panic("data: ReadHead: n must be positive")
	}
	return readRows(r, n)
}

// readRows is ReadRest (limit < 0) and ReadHead.
func readRows(r *Reader, limit int) (out *Batch, err error) {
	out = &Batch{Cols: make([][]int32, len(r.cols)), Reals: make([][]float64, len(r.cols)), Vars: r.Vars}
	for j, c := range r.cols {
		if c.real {
			out.Reals[j] = []float64{}
		} else {
			out.Cols[j] = []int32{}
		}
	}
	size := 1024
	if limit > 0 {
		size = min(size, limit)
	}
	b := r.NewBatch(size)
	defer func() {
		if out != nil {
			out.States = r.States()
		}
	}()
	for {
		if limit >= 0 && out.N+len(b.Lines) > limit {
			if out.N == limit {
				return out, nil
			}
			b = r.NewBatch(limit - out.N) // the last rows: no more than asked for
		}
		err := r.Read(b)
		for j := range r.cols {
			if out.Reals[j] != nil {
				out.Reals[j] = append(out.Reals[j], b.Reals[j][:b.N]...)
			} else {
				out.Cols[j] = append(out.Cols[j], b.Cols[j][:b.N]...)
			}
		}
		out.Lines = append(out.Lines, b.Lines[:b.N]...)
		out.N += b.N
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
