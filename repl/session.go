package repl

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/parser"
)

// InputName is the file name of interactive input in error positions.
const InputName = "<stdin>"

// ErrInterrupt is returned by a readline function when the user aborts
// the line being typed (Ctrl-C at the prompt): the session discards any
// statement in progress and reads on.
var ErrInterrupt = errors.New("interrupted")

// Config configures a Session.
type Config struct {
	Out io.Writer // results
	Err io.Writer // error messages; Out if nil

	// Interactive turns on what only a person at a terminal wants: the
	// banner, prompts that show the evidence, confirmations of commands,
	// bars beside probabilities and the source line under an error.
	// Without it the output of queries is exactly what `pbl query` prints.
	Interactive bool
	JSON        bool          // start with :json on
	Options     infer.Options // engine and limits

	// Interrupt, if not nil, is called before each query; it returns a
	// channel that is closed when the user interrupts (Ctrl-C), and a
	// function to call when the query is over. An interrupted query's
	// result is discarded and the session returns to the prompt.
	Interrupt func() (interrupted <-chan struct{}, stop func())

	// WriteFile, if not nil, writes the files the session writes (:graph
	// FILE.dot), as the command line writes its outputs; its errors name
	// path. Without it the session writes through a temporary file
	// renamed over path.
	WriteFile func(path string, data []byte) error

	// Load is how model files are loaded (:load, :reload and the file
	// given at the start): the command line's --data bindings. They
	// apply to the learn statements typed in the session too.
	Load pbl.LoadOptions
}

// Session is one interactive session: a model, the evidence observed so
// far and the settings. Its methods are not safe for concurrent use.
type Session struct {
	cfg   Config
	out   io.Writer
	err   io.Writer
	opt   infer.Options
	json  bool
	model *ir.Model // never written to: a declaration replaces it

	path     string            // the loaded model file, or ""
	inputs   [][]*grammar.File // the accepted inputs that declared something, in order, to replay at :reload
	imported map[string]bool   // the absolute paths of the loaded .pbl file and of the files imported in the session
	evid     []obs             // session evidence, in the order observed

	line    int      // input lines read so far
	pending []string // lines of an incomplete statement
	start   int      // input line of pending[0], or of the command being run
	src     string   // the command being run, or ""

	last    ir.Query // the last query answered, or nil
	printed bool     // a text result has been printed (for separators)
	failed  bool     // an error was reported
	quit    bool

	// answerFn answers queries; tests replace it.
	answerFn func(*ir.Model, ir.Query, infer.Options) (infer.Result, error)
}

// obs is one observation of the session evidence, by name so that it
// survives reloading the model.
type obs struct{ name, state string }

// lowerOptions run the learn statements of typed input as a model file's
// are run when it is loaded, with the same data bindings.
func (s *Session) lowerOptions() ir.LowerOptions {
	return ir.LowerOptions{Learn: pbl.RunLearn, Data: s.cfg.Load.Data}
}

// New returns a session with an empty model.
func New(cfg Config) *Session {
	if cfg.Err == nil {
		cfg.Err = cfg.Out
	}
	s := &Session{cfg: cfg, out: cfg.Out, err: cfg.Err, opt: cfg.Options, json: cfg.JSON, answerFn: infer.Answer, imported: map[string]bool{}}
	s.model = &ir.Model{} // a model file must declare something; the session starts empty
	return s
}

// Model returns the session's current model.
func (s *Session) Model() *ir.Model { return s.model }

// Failed reports whether any error has been reported.
func (s *Session) Failed() bool { return s.failed }

// Load replaces the session's model by the model file at path (any format
// pbl reads, prepared as every command prepares it: a .pbl file's learn
// statements run). Interactive declarations and the evidence are dropped.
// On error the session is unchanged.
func (s *Session) Load(path string) error {
	m, err := pbl.LoadFileWith(path, s.cfg.Load)
	if err != nil {
		return err
	}
	s.path, s.inputs, s.evid, s.last = path, nil, nil, nil
	s.imported = map[string]bool{absPath(path): true}
	s.model = m
	return nil
}

// Reload reads the model file again and extends it with the inputs that
// declared something, in the order they were typed (their learn
// statements run again; their queries do not). Evidence that no longer
// fits the model is dropped, with a note. On error the session is
// unchanged.
func (s *Session) Reload() error {
	if s.path == "" && len(s.inputs) == 0 {
		return errors.New("no model loaded (use :load FILE)")
	}
	m := &ir.Model{}
	if s.path != "" {
		var err error
		if m, err = pbl.LoadFileWith(s.path, s.cfg.Load); err != nil {
			return err
		}
	}
	for _, files := range s.inputs {
		var err error
		if m, err = ir.Extend(m, s.lowerOptions(), files...); err != nil {
			return err
		}
	}
	s.setModel(m)
	return nil
}

// setModel installs a new model and drops evidence that no longer fits.
func (s *Session) setModel(m *ir.Model) {
	s.model = m
	kept := s.evid[:0]
	for _, o := range s.evid {
		v, ok := m.Lookup(o.name)
		if _, real := realValue(m, v, o.state); ok && real {
			kept = append(kept, o)
			continue
		}
		if !ok || !v.Discrete() || v.State(o.state) < 0 {
			fmt.Fprintf(s.err, "note: dropped the evidence %s=%s, which the model no longer has\n", ir.Quote(o.name), ir.Quote(o.state))
			continue
		}
		kept = append(kept, o)
	}
	s.evid = kept
}

// observations returns the session evidence as observations of the
// session's model: discrete states, and values of real variables.
func (s *Session) observations() ([]ir.Obs, []ir.RealObs) {
	ev := make([]ir.Obs, 0, len(s.evid))
	var reals []ir.RealObs
	for _, o := range s.evid {
		// setModel keeps only evidence that fits the model.
		v, _ := s.model.Lookup(o.name)
		if x, ok := realValue(s.model, v, o.state); ok {
			reals = append(reals, ir.RealObs{Var: v.ID, Value: x})
			continue
		}
		ev = append(ev, ir.Obs{Var: v.ID, State: v.State(o.state)})
	}
	return ev, reals
}

// realValue returns the value text gives the real variable v of m, and
// whether v is a real variable with a density and text a finite number.
func realValue(m *ir.Model, v *ir.Variable, text string) (float64, bool) {
	if v == nil || v.Discrete() || m.Dist(v.ID) == nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(text, 64)
	return x, err == nil && !math.IsInf(x, 0) && !math.IsNaN(x)
}

// withSession returns q with the session evidence added.
func (s *Session) withSession(q ir.Query) (ir.Query, error) {
	ev, reals := s.observations()
	q, err := ir.WithEvidence(s.model, q, ev)
	if err != nil {
		return nil, err
	}
	return ir.WithRealEvidence(s.model, q, reals)
}

// Prompt returns the prompt for the next line: "pbl> ", with the evidence
// as in "pbl[Storm=true]> ", or "...  " while a statement is incomplete.
func (s *Session) Prompt() string {
	if len(s.pending) > 0 {
		return "...> "
	}
	if len(s.evid) == 0 {
		return "pbl> "
	}
	e := s.evidenceText()
	if utf8.RuneCountInString(e) > 50 {
		first := ir.Quote(s.evid[0].name) + "=" + ir.Quote(s.evid[0].state)
		e = fmt.Sprintf("%s, +%d", first, len(s.evid)-1)
	}
	return "pbl[" + e + "]> "
}

func (s *Session) evidenceText() string {
	parts := make([]string, len(s.evid))
	for i, o := range s.evid {
		v, _ := s.model.Lookup(o.name)
		if _, real := realValue(s.model, v, o.state); real {
			parts[i] = ir.Quote(o.name) + "=" + o.state // a number, as typed
			continue
		}
		parts[i] = ir.Quote(o.name) + "=" + ir.Quote(o.state)
	}
	return strings.Join(parts, ", ")
}

// Banner is printed when an interactive session starts.
func (s *Session) banner() {
	fmt.Fprintln(s.out, "pbl repl: type a query such as P(X | Y=y), a declaration, or :help. Ctrl-D exits.")
	if s.path != "" {
		fmt.Fprintf(s.out, "loaded %s: %s\n", s.path, s.summary())
	}
}

func (s *Session) summary() string {
	n := len(s.model.Vars)
	if n == 1 {
		return "1 variable"
	}
	return fmt.Sprintf("%d variables", n)
}

// Run reads lines with readline until it returns io.EOF or the user types
// :quit, and returns the exit status: 0, or 1 if the session is not
// interactive and an error was reported (so that scripts piping queries
// in can tell).
func (s *Session) Run(readline func() (string, error)) int {
	if s.cfg.Interactive {
		s.banner()
	}
	for !s.quit {
		line, err := readline()
		if errors.Is(err, ErrInterrupt) {
			s.pending = nil
			continue
		}
		if errors.Is(err, io.EOF) {
			if s.cfg.Interactive {
				fmt.Fprintln(s.out)
			}
			s.endOfInput()
			break
		}
		if err != nil {
			s.errorf("%v", err)
			break
		}
		s.Feed(line)
	}
	if s.failed && !s.cfg.Interactive {
		return 1
	}
	return 0
}

// endOfInput reports a statement left incomplete at the end of input.
func (s *Session) endOfInput() {
	if len(s.pending) == 0 {
		return
	}
	text := s.pendingText()
	src := strings.Join(s.pending, "\n")
	s.pending = nil
	// A query that ended early is reported as a query; anything else (a
	// table whose braces were never closed, P(Z) = {) as a statement.
	_, err := parser.Parse(InputName, []byte(text))
	if isQueryStart(src) {
		if _, qerr := parser.ParseQuery(InputName, text); errors.Is(qerr, parser.ErrIncomplete) || !errors.Is(err, parser.ErrIncomplete) {
			err = qerr
		}
	}
	if err != nil {
		for _, e := range ir.Positioned(ir.Pos{File: InputName}, err) {
			if errors.Is(e, parser.ErrIncomplete) {
				e = &ir.Error{Pos: e.Pos, Msg: "the input ended inside a statement: " + e.Msg, Err: e.Err}
			}
			s.report(e, "")
		}
	}
}

// Feed handles one line of input.
func (s *Session) Feed(line string) {
	s.line++
	line = strings.TrimRight(line, "\r\n")
	if len(s.pending) == 0 {
		t := strings.TrimSpace(line)
		if t == "" {
			return
		}
		if strings.HasPrefix(t, ":") {
			s.command(line)
			return
		}
		s.start = s.line
	}
	s.pending = append(s.pending, line)
	s.statement()
}

// pendingText is the pending statement padded with newlines so that its
// positions are the input's line numbers.
func (s *Session) pendingText() string {
	return strings.Repeat("\n", s.start-1) + strings.Join(s.pending, "\n")
}

// statement parses the pending lines and, when they are complete, runs
// them.
func (s *Session) statement() {
	text := s.pendingText()
	src := strings.Join(s.pending, "\n")
	if isQueryStart(src) {
		q, qerr := parser.ParseQuery(InputName, text)
		if qerr == nil {
			s.pending = nil
			s.query(q, src)
			return
		}
		f, ferr := parser.Parse(InputName, []byte(text))
		if ferr == nil {
			s.pending = nil
			s.input(f, text, src)
			return
		}
		if errors.Is(qerr, parser.ErrIncomplete) || errors.Is(ferr, parser.ErrIncomplete) {
			return // incomplete: read on
		}
		s.pending = nil
		if errPos(ferr).Before(errPos(qerr)) || errPos(ferr) == errPos(qerr) {
			s.report(qerr, src)
		} else {
			s.report(ferr, src)
		}
		return
	}
	f, err := parser.Parse(InputName, []byte(text))
	if err != nil {
		if errors.Is(err, parser.ErrIncomplete) {
			return // incomplete: read on
		}
		s.pending = nil
		s.report(err, src)
		return
	}
	s.pending = nil
	s.input(f, text, src)
}

// isQueryStart reports whether src starts with a query keyword and "(".
func isQueryStart(src string) bool {
	sc := grammar.NewScanner(InputName, src)
	t, err := sc.Next()
	if err != nil || t.Type != grammar.Ident {
		return false
	}
	switch t.Value {
	case "P", "MPE", "MAP", "ML", "MDL", "Gibbs", "indep", "density", "entropy", "MI", "MEU", "policy", "EU", "identify", "adjust", "CF":
	default:
		return false
	}
	t, err = sc.Next()
	return err == nil && t.Type == grammar.Punct && t.Value == "("
}

func errPos(err error) ir.Pos {
	var list ir.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return list[0].Pos
	}
	var e *ir.Error
	if errors.As(err, &e) {
		return e.Pos
	}
	return ir.Pos{}
}

// input runs a complete piece of input that is not a bare query. If it
// declares anything (variables, edges, distributions, a classifier, data
// tables, learn statements, imports), the model is extended with it;
// then its queries and expectations are answered, in order. An input
// that fails to lower is rejected as a whole and the model is unchanged.
func (s *Session) input(f *grammar.File, text, src string) {
	if len(f.Stmts) == 0 {
		return
	}
	decl, imports, onlyQueries := false, false, true
	for _, st := range f.Stmts {
		switch st.(type) {
		case *grammar.QueryStmt:
			continue
		case *grammar.Expect:
		case *grammar.Import:
			decl, imports = true, true
		default:
			decl = true
		}
		onlyQueries = false
	}
	if onlyQueries {
		// Queries need no extension of the model.
		for _, st := range f.Stmts {
			if st, ok := st.(*grammar.QueryStmt); ok {
				s.query(st.Query, src)
			}
		}
		return
	}
	files := []*grammar.File{f}
	if imports {
		// Imports in typed input are relative to the current directory,
		// the directory of InputName.
		var err error
		if files, err = pbl.Parse(InputName, []byte(text)); err != nil {
			s.report(err, src)
			return
		}
		files = s.newImports(files)
	}
	before := s.model
	m, err := ir.Extend(s.model, s.lowerOptions(), files...)
	if err != nil {
		s.report(err, src)
		return
	}
	if decl {
		for _, f := range files[:len(files)-1] {
			s.imported[absPath(f.Pos.Filename)] = true
		}
		s.inputs = append(s.inputs, declarations(files))
		s.model = m // the evidence still fits: extending only adds
		s.noteUnlearned(before)
	}
	// The statements were lowered against m; without declarations m is
	// s.model with the same variables, and the session keeps s.model so
	// that the junction tree compiled for it is reused.
	for _, st := range m.Stmts {
		switch st := st.(type) {
		case *ir.QueryStmt:
			s.ask(st.Query, src)
		case *ir.ExpectStmt:
			s.expect(st, src)
		}
	}
}

// newImports drops from files (imports first, the typed input last) the
// files already in the model: a file imported again is not lowered
// again, as in a model file that imports it twice.
func (s *Session) newImports(files []*grammar.File) []*grammar.File {
	out := make([]*grammar.File, 0, len(files))
	for _, f := range files[:len(files)-1] {
		if s.imported[absPath(f.Pos.Filename)] {
			s.note("%s is already imported", f.Pos.Filename)
			continue
		}
		out = append(out, f)
	}
	return append(out, files[len(files)-1])
}

// absPath is path made absolute, to compare the files of imports.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// declarations returns files without the main file's queries and
// expectations: what replaying the input at :reload lowers again.
func declarations(files []*grammar.File) []*grammar.File {
	main := *files[len(files)-1]
	main.Stmts = nil
	for _, st := range files[len(files)-1].Stmts {
		switch st.(type) {
		case *grammar.QueryStmt, *grammar.Expect:
		default:
			main.Stmts = append(main.Stmts, st)
		}
	}
	return append(files[:len(files)-1:len(files)-1], &main)
}

// noteUnlearned says, interactively, which variables a declaration left
// without a distribution.
func (s *Session) noteUnlearned(before *ir.Model) {
	was := before.Unlearned()
	var added []ir.VarID
	for _, v := range s.model.Unlearned() {
		if !slices.Contains(was, v) {
			added = append(added, v)
		}
	}
	switch {
	case len(added) == 1:
		name := ir.Quote(s.model.Vars[added[0]].Name)
		s.note("%s has no distribution yet: give it one (P(%s | ...) = ...) or learn it; until then a query that needs it fails", name, name)
	case len(added) > 1:
		s.note("%s have no distribution yet: give them one or learn them; until then a query that needs them fails", s.model.NameList(added, 5))
	}
}

// report prints an error. Interactively, an error in the input just typed
// is shown under its source line with a caret.
func (s *Session) report(err error, src string) {
	s.failed = true
	var list ir.ErrorList
	if !errors.As(err, &list) {
		var e *ir.Error
		if errors.As(err, &e) {
			list = ir.ErrorList{e}
		}
	}
	if list == nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = pe.Path + ": " + pe.Err.Error()
		}
		fmt.Fprintln(s.err, strings.TrimSpace(msg))
		return
	}
	lines := strings.Split(src, "\n")
	for _, e := range list {
		if s.cfg.Interactive && src != "" && e.Pos.File == InputName {
			if i := e.Pos.Line - s.start; i >= 0 && i < len(lines) && e.Pos.Col > 0 {
				l := lines[i]
				pad := []rune(l)
				if e.Pos.Col-1 <= len(pad) {
					for j := range pad[:e.Pos.Col-1] {
						if pad[j] != '\t' {
							pad[j] = ' '
						}
					}
					fmt.Fprintf(s.err, "  %s\n  %s^\n", l, string(pad[:e.Pos.Col-1]))
				}
			}
		}
		fmt.Fprintln(s.err, phrase(e))
	}
}

// phrase returns the text of e in the session's terms: the advice to use
// variable elimination names the :engine command.
func phrase(e *ir.Error) string {
	text := e.Error()
	var tl *infer.TooLargeError
	if errors.As(e, &tl) && tl.Instead == infer.VE {
		lib := tl.Error()
		text = strings.Replace(text, lib, strings.Replace(lib, "use variable elimination", "use variable elimination (:engine ve)", 1), 1)
	}
	return text
}

func (s *Session) errorf(format string, args ...any) {
	s.failed = true
	fmt.Fprintf(s.err, format+"\n", args...)
}

// note prints a confirmation, only interactively.
func (s *Session) note(format string, args ...any) {
	if s.cfg.Interactive {
		fmt.Fprintf(s.out, format+"\n", args...)
	}
}
