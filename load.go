package pbl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/hugin"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/formats/xmlbif"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/parser"
)

// Formats lists the model file extensions LoadFile understands.
var Formats = []string{".pbl", ".bif", ".bif.gz", ".xml", ".xmlbif", ".net", ".uai"}

// LoadFile prepares the model file at path for use, choosing the format by
// the file's extension. It is the one meaning of a model file, which every
// command gives it: a .pbl file's imports are resolved, its declarations
// lowered, its learn statements run in order (against a CSV file named
// relative to the file, or an inline data table), each on the model the
// previous one learned, and its queries and expectations lowered against
// the result. The model returned is never changed afterwards.
//
// A .pbl file may give structure without numbers (edges, naive_bayes,
// tan); the variables it leaves without distributions are listed by
// Model.Unlearned, and a question that needs them fails with an error
// matching ir.ErrNoDistribution.
func LoadFile(path string) (*ir.Model, error) {
	return LoadFileWith(path, LoadOptions{})
}

// LoadOptions configures LoadFileWith and LoadWith.
type LoadOptions struct {
	// Data binds the model's data sets to other files with the same
	// columns, by name (--data NAME=FILE): see ir.LowerOptions.Data.
	Data map[string]string
	// Cancel, if not nil and closed, stops a learn statement: its
	// iterative method (em, gradient) at the end of its iteration, the
	// reading of its data file within a megabyte. The load fails with an
	// error at the statement that matches learn.ErrCanceled. Options can
	// make such a method run for ages (em(restarts = 1000000, max_iter =
	// 1000000, tol = 0)), and a file be large; the language server stops
	// it rather than hang.
	Cancel <-chan struct{}
	// MaxEntries, if positive, is the most entries the tables of the
	// distributions may have together: see ir.LowerOptions.MaxEntries.
	MaxEntries int
	// RegularFilesOnly makes a learn statement whose data file is not a
	// regular file (a named pipe, a device) an error at the statement
	// rather than read it: the language server, answering one message at
	// a time, must not wait for a writer that may never come. (Imports
	// are always regular files.)
	RegularFilesOnly bool
	// MemoryBudget, if not nil, is told the memory that loading a .pbl
	// source will hold: it is called with a number of bytes for the main
	// file and for each import read (a multiple of its size, fileBudget or
	// memBudget), and the function it returns is called when that memory
	// is no longer needed: once the model is loaded, and while a learn
	// statement runs (learning takes memory in proportion to its data,
	// not to the source), after which the budgets are given again. The
	// library itself leaves the runtime's memory limit and collector
	// settings alone: the pbl command lowers its memory limit by these
	// budgets (cmd/pbl/loadmem.go, docs/performance.md
	// "Front-end memory").
	MemoryBudget func(bytes int64) (release func())
}

// The memory a lean load holds per byte of source, for
// LoadOptions.MemoryBudget.
const (
	// fileBudget is the budget per byte of a file whose source is
	// dropped once parsed (parser.ParseLeanFrom): the source while it is
	// parsed, then the model and the lowering's tables (2.8 times the
	// source at the end for a model of many small tables), and the
	// collector's slack. (3.5 took 9% less CPU, for 7 MB more at the peak
	// of a 23.7 MB model.)
	fileBudget = 3.0
	// memBudget is the budget per byte of source held in memory, which
	// the lowering parses again (an import that is not a regular file):
	// the source as well as the model.
	memBudget = 5
)

// LoadFileWith is LoadFile with options. Data bindings apply to .pbl
// files; the other formats name no data, and binding one is an error.
func LoadFileWith(path string, opt LoadOptions) (*ir.Model, error) {
	switch ext := modelExt(path); ext {
	case ".pbl":
		l := newLoader(true, opt.MemoryBudget)
		defer l.done()
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			l.limit(fi.Size(), fileBudget)
		}
		src, f, err := readSource(path)
		if err != nil {
			return nil, err
		}
		var r io.ReaderAt // nil, not a nil *os.File
		if f != nil {
			l.open = append(l.open, f)
			r = f
		}
		return l.load(path, src, r, opt)
	}
	if len(opt.Data) > 0 {
		for name := range opt.Data {
			msg := fmt.Sprintf("a %s model names no data sets to bind %q to (only .pbl files do)", modelExt(path), name)
			return nil, &ir.Error{Pos: ir.Pos{File: path}, Msg: msg, Err: ir.NewUnknownDataError(name, msg)}
		}
	}
	switch ext := modelExt(path); ext {
	case ".bif", ".bif.gz":
		return bif.ReadFile(path)
	case ".xml", ".xmlbif":
		return xmlbif.ReadFile(path)
	case ".net":
		return hugin.ReadFile(path)
	case ".uai":
		return uai.ReadFile(path)
	default:
		return nil, fmt.Errorf("%s: unknown model format %q (pbl reads %s)", path, ext, strings.Join(Formats, ", "))
	}
}

func modelExt(path string) string {
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".bif.gz") {
		return ".bif.gz"
	}
	return filepath.Ext(lower)
}

// Load is LoadFile for .pbl source held in memory; imports and the CSV
// files of learn statements are resolved relative to filename's directory.
// src must not change while Load runs; the model does not refer to it.
func Load(filename string, src []byte) (*ir.Model, error) {
	return LoadWith(filename, src, LoadOptions{})
}

// LoadWith is Load with options.
//
// The files are parsed lean (parser.ParseLeanFrom): the trees keep each
// variable declaration and distribution as a stub that the lowering
// reads and parses again, so that the front end holds the model and
// about a dozen words per statement, not a tree of every name and number
// (15–20 times the source; docs/performance.md), nor a copy of the
// source.
func LoadWith(filename string, src []byte, opt LoadOptions) (*ir.Model, error) {
	l := newLoader(true, opt.MemoryBudget)
	defer l.done()
	l.limit(int64(len(src)), fileBudget)
	// Parsed by parser.ParseLeanFrom, which reads the lazy statements again
	// from src and copies the other strings, so that neither the trees nor
	// the model refer to src: src is not copied, but viewed as a string
	// while Load runs (the caller does not change it meanwhile).
	return l.load(filename, unsafe.String(unsafe.SliceData(src), len(src)), bytes.NewReader(src), opt)
}

// load loads the model of src, the source of filename, which r, if not
// nil, holds too (the file it was read from, or the bytes of src).
//
// The files read from disk (the main file if r is set, and the imports)
// are parsed by parser.ParseLeanFrom: their lazy statements are read
// again from the file as they are lowered, and their source is dropped
// once parsed, so that a large model is not held in memory twice, as its
// source and as its model. The files are closed by done.
func (l *loader) load(filename, src string, r io.ReaderAt, opt LoadOptions) (*ir.Model, error) {
	l.visit(filename, src, r, true, ir.Pos{})
	src = ""
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	learn := func(m *ir.Model, s *ir.LearnStmt) (*ir.Model, error) {
		// Learning takes memory in proportion to its data, not to the
		// source: lift the front end's limit meanwhile.
		l.unlimit()
		defer l.relimit()
		out, err := runLearn(m, s, opt.Cancel, opt.RegularFilesOnly)
		if err != nil && s.File != "" && boundFile(opt.Data, s.File) {
			err = namingData(err, s)
		}
		return out, err
	}
	return ir.LowerWith(ir.LowerOptions{Learn: learn, Data: opt.Data, MaxEntries: opt.MaxEntries}, l.files...)
}

// requireRegular is input.RequireRegular(path) if regularOnly (the
// language server's RegularFilesOnly), else nil.
func requireRegular(path string, regularOnly bool) error {
	if !regularOnly {
		return nil
	}
	return input.RequireRegular(path)
}

// boundFile reports whether file is one that --data bound a data set to.
func boundFile(data map[string]string, file string) bool {
	for _, f := range data {
		if f == file {
			return true
		}
	}
	return false
}

// namingData returns a learn statement's error about its data, which is
// reported at the statement, with the data file named: when
// LoadOptions.Data bound the data set to another file the statement does
// not show which was read. Errors positioned in the file already name it.
func namingData(err error, s *ir.LearnStmt) error {
	if ir.Located(err) {
		return err
	}
	e := &BoundDataError{File: s.File, Err: err}
	return &ir.Error{Pos: s.Pos, Msg: e.Error(), Err: e}
}

// BoundDataError is an error, Err, about the data of a learn statement
// read from File, a file bound to the statement's data set by
// LoadOptions.Data in place of the one it names. errors.Is and As see
// through it to Err.
type BoundDataError struct {
	File string
	Err  error
}

func (e *BoundDataError) Error() string {
	return fmt.Sprintf("%v (in %s, bound to the data set in place of the statement's file)", e.Err, e.File)
}

func (e *BoundDataError) Unwrap() error { return e.Err }

// readSource reads a .pbl file as input.ReadFile does, with the same
// errors and limit, into a string, and returns the file too, open, if it
// is a regular file that the string is all of (and so can be read again).
func readSource(path string) (string, *os.File, error) {
	f, err := os.Open(path)
	if err == nil {
		fi, err := f.Stat()
		if err == nil && fi.Mode().IsRegular() && fi.Size() <= input.MaxSize() && fi.Size() > 0 {
			// One buffer of the file's size, which the string takes
			// over: io.ReadAll would grow a buffer by doubling, and a
			// conversion to string would copy it.
			b := make([]byte, fi.Size())
			var more [1]byte
			if _, err := io.ReadFull(f, b); err == nil {
				if n, _ := f.Read(more[:]); n == 0 { // the file is as large as it was
					return unsafe.String(&b[0], len(b)), f, nil
				}
			}
		}
		if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			// A pipe: read it from this opening, for a named pipe's
			// writer may write only once.
			b, err := input.ReadOpen(f)
			f.Close()
			if err != nil {
				return "", nil, err
			}
			return string(b), nil, nil
		}
		f.Close()
	}
	// Anything else (a directory, too large, empty, an error, a file that
	// changes size) is read as before, with input.ReadFile's errors.
	b, err := input.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	return string(b), nil, nil
}

// Parse parses .pbl source and the files it imports, directly or not, and
// returns them in the order ir.Lower takes them: imports first, the main
// file last. The trees are whole (no lazy statements).
func Parse(filename string, src []byte) ([]*grammar.File, error) {
	l := newLoader(false, nil)
	defer l.done()
	l.visit(filename, string(src), nil, true, ir.Pos{})
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return l.files, nil
}

// RunLearn runs one learn statement on m and returns the model it learns
// (m is not changed): the statement's method and options validated by the
// learn package's registry, its data read from its CSV file or inline
// table. Errors are positioned: those of the data at their file:line:col,
// the others at the statement.
func RunLearn(m *ir.Model, s *ir.LearnStmt) (*ir.Model, error) {
	return runLearn(m, s, nil, false)
}

// runLearn is RunLearn, its iterative method stopped when cancel is
// closed (learn.Options.Cancel), refusing a data file that is not a
// regular file if regularOnly.
func runLearn(m *ir.Model, s *ir.LearnStmt, cancel <-chan struct{}, regularOnly bool) (*ir.Model, error) {
	opt, err := learn.StmtOptions(s)
	if err != nil {
		return nil, err
	}
	opt.Cancel = cancel
	var out *ir.Model
	if m.Time != nil {
		// A time-indexed model learns from sequences.
		if s.Table != nil {
			return nil, &ir.Error{Pos: s.Pos, Err: ir.ErrTime, Msg: "a time-indexed model learns from a CSV file of sequences, not an inline table"}
		}
		if err := requireRegular(s.File, regularOnly); err != nil {
			return nil, err
		}
		out, _, err = LearnSequences(m, s.File, SequenceOptions{}, learn.SeqOptions{Options: opt})
	} else if s.Table != nil {
		out, _, err = learn.LearnTable(m, s.Table, opt)
	} else {
		var files []*os.File
		var fired atomic.Bool // a cancelReader stopped a read
		defer func() {
			for _, f := range files {
				f.Close()
			}
		}()
		out, _, err = learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
			if err := requireRegular(s.File, regularOnly); err != nil {
				return nil, err
			}
			if cancel == nil || input.RequireRegular(s.File) != nil {
				return data.Open(s.File, m, data.Options{})
			}
			// Read through cancelReader, so that reading a large file
			// (counting, a pass of em) stops too, within a megabyte.
			f, err := os.Open(s.File)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
			return data.NewReader(s.File, &cancelReader{r: f, cancel: cancel, fired: &fired}, m, data.Options{})
		}, opt)
		if err != nil && fired.Load() {
			// The reader's error says "read error: learning canceled",
			// at a line of the file: it is the statement's.
			return nil, &ir.Error{Pos: s.Pos, Msg: "learning canceled", Err: learn.ErrCanceled}
		}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return nil, &ir.Error{Pos: s.Pos, Msg: fmt.Sprintf("cannot read %s: %v", pe.Path, pe.Err), Err: err}
	}
	return out, err
}

// loader collects a file and its imports in post-order (imports first).
type loader struct {
	files []*grammar.File
	state map[string]int // 1 while visiting, 2 when done
	stack []string
	errs  ir.ErrorList
	lean  bool // parse with parser.ParseLean, or ParseLeanFrom for files read
	open  []*os.File

	budget   func(int64) func() // LoadOptions.MemoryBudget, or nil
	budgets  []int64            // the memory budgets of the sources
	releases []func()           // their releases, while in force
}

func newLoader(lean bool, budget func(int64) func()) *loader {
	return &loader{state: map[string]int{}, lean: lean, budget: budget}
}

// done closes the files that the lean trees read again, and releases the
// memory budgets.
func (l *loader) done() {
	for _, f := range l.open {
		f.Close()
	}
	l.open = nil
	l.unlimit()
	l.budgets = nil
}

// limit gives LoadOptions.MemoryBudget, if set, a budget for a source of
// size bytes, perByte times that, while the model is loaded. Only lean
// loads have budgets: whole trees take 15–20 times their source.
func (l *loader) limit(size int64, perByte float64) {
	if !l.lean || l.budget == nil {
		return
	}
	b := int64(float64(size) * perByte)
	l.budgets = append(l.budgets, b)
	l.releases = append(l.releases, l.budget(b))
}

// unlimit releases the memory budgets; relimit puts them back.
func (l *loader) unlimit() {
	for _, r := range l.releases {
		if r != nil {
			r()
		}
	}
	l.releases = l.releases[:0]
}

func (l *loader) relimit() {
	for _, b := range l.budgets {
		l.releases = append(l.releases, l.budget(b))
	}
}

// visit parses the file at path (its source src if have, else read from
// the file) and, first, its imports. r, if not nil, is the file that src
// was read from.
func (l *loader) visit(path string, src string, r io.ReaderAt, have bool, from ir.Pos) {
	key := filepath.Clean(path)
	switch l.state[key] {
	case 1:
		cycle := append(append([]string(nil), l.stack[indexOf(l.stack, key):]...), key)
		l.errs.Add(from, "import cycle: %s", strings.Join(cycle, " -> "))
		return
	case 2:
		return
	}
	if !have {
		if ext := modelExt(path); ext != ".pbl" && slices.Contains(Formats, ext) {
			l.errs.Add(from, "cannot import %q: import takes .pbl files (a %s model can be converted: pbl convert %s %s)",
				path, ext, filepath.Base(path), strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".pbl")
			return
		}
		// Only regular files: a FIFO might never end.
		if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
			l.errs.Add(from, "cannot import %q: not a regular file", path)
			return
		}
		var f *os.File
		var err error
		src, f, err = readSource(path)
		if err != nil {
			l.errs = append(l.errs, &ir.Error{Pos: from, Msg: fmt.Sprintf("cannot import %q: %v", path, unwrapPathErr(err)), Err: err})
			return
		}
		switch {
		case f == nil: // not a regular file: parsed from src, which is kept
			l.limit(int64(len(src)), memBudget)
		case l.lean:
			l.open = append(l.open, f)
			r = f
			l.limit(int64(len(src)), fileBudget)
		default:
			f.Close()
		}
	}
	if strings.HasPrefix(src, "\x1f\x8b") {
		// Lazy statements are read again from the file at their offsets,
		// which a compressed file does not have.
		l.errs.Add(ir.Pos{File: path, Line: 1}, "the file is gzip-compressed: pbl reads .pbl source as text (gunzip it first)")
		return
	}
	var f *grammar.File
	var err error
	switch {
	case l.lean && r != nil:
		f, err = parser.ParseLeanFrom(path, src, r)
	case l.lean:
		f, err = parser.ParseLean(path, src)
	default:
		f, err = parser.ParseString(path, src)
	}
	if err == nil && f.Indexed && f.Lazy != nil {
		// A time-indexed model is lowered from its whole tree, its
		// template statements once per slice: parsed in full (such
		// models are small).
		f, err = parser.ParseString(path, src)
	}
	if err != nil {
		l.errs = append(l.errs, ir.Positioned(from, err)...)
		return
	}
	l.state[key] = 1
	l.stack = append(l.stack, key)
	for _, s := range f.Stmts {
		if imp, ok := s.(*grammar.Import); ok {
			target := imp.Path
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			l.visit(target, "", nil, false, parser.Pos(imp.Pos))
		}
	}
	l.stack = l.stack[:len(l.stack)-1]
	l.state[key] = 2
	l.files = append(l.files, f)
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return 0
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseQuery parses and validates a query against m. Errors are positioned
// in a pseudo-file named "query".
func ParseQuery(m *ir.Model, text string) (ir.Query, error) {
	g, err := parser.ParseQuery("query", text)
	if err != nil {
		return nil, err
	}
	return ir.LowerQuery(m, g)
}

// closed reports whether c is closed (never, if nil).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A cancelReader reads r until cancel is closed, then fails (with
// learn.ErrCanceled; the callers tell by the channel). It closes r at its
// end if r is an io.Closer: a learner that opens its data for each pass
// (em's streaming) does not hold a file open per pass.
type cancelReader struct {
	r      io.Reader
	cancel <-chan struct{}
	fired  *atomic.Bool // if not nil, set when a read fails for cancel
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if closed(c.cancel) {
		if c.fired != nil {
			c.fired.Store(true)
		}
		return 0, learn.ErrCanceled
	}
	n, err := c.r.Read(p)
	if cl, ok := c.r.(io.Closer); ok && err == io.EOF {
		cl.Close()
	}
	return n, err
}

// Unrolled returns m unrolled as far as the queries texts need, if m is a
// time-indexed model and one of them names a slice beyond its horizon
// (P(Rain[40] | ...)); otherwise m. Texts that do not parse are left to
// ParseQuery to report.
func Unrolled(m *ir.Model, texts ...string) (*ir.Model, error) {
	if m.Time == nil {
		return m, nil
	}
	h := -1
	for _, text := range texts {
		if g, err := parser.ParseQuery("query", text); err == nil {
			h = max(h, ir.SliceHorizon(g))
		}
	}
	return ir.Unroll(m, h)
}
