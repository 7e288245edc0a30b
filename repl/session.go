package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
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
}

// Session is one interactive session: a model, the evidence observed so
// far and the settings. Its methods are not safe for concurrent use.
type Session struct {
	cfg   Config
	out   io.Writer
	err   io.Writer
	opt   infer.Options
	json  bool
	model *ir.Model

	path    string  // the loaded model file, or ""
	base    string  // the .pbl file the generated source imports: path, or a conversion of it; "" if none yet
	tmpBase string  // a temporary conversion to remove at Close, or ""
	chunks  []chunk // accepted interactive declarations
	evid    []obs   // session evidence, in the order observed

	line    int      // input lines read so far
	pending []string // lines of an incomplete statement
	start   int      // input line of pending[0]

	last    *ir.Query // the last query answered, or nil
	printed bool      // a text result has been printed (for separators)
	failed  bool      // an error was reported

	// incomplete holds the errors of declarations accepted while the
	// model they make is incomplete (a variable without a distribution
	// yet), or nil.
	incomplete error
	quit       bool

	// answerFn answers queries; tests replace it.
	answerFn func(*ir.Model, *ir.Query, infer.Options) (*infer.Result, error)
}

// chunk is one accepted piece of input that declared something.
type chunk struct {
	line int // input line of its first line
	text string
}

// obs is one observation of the session evidence, by name so that it
// survives reloading the model.
type obs struct{ name, state string }

// New returns a session with an empty model.
func New(cfg Config) *Session {
	if cfg.Err == nil {
		cfg.Err = cfg.Out
	}
	s := &Session{cfg: cfg, out: cfg.Out, err: cfg.Err, opt: cfg.Options, json: cfg.JSON, answerFn: infer.Answer}
	s.model = &ir.Model{} // a model file must declare something; the session starts empty
	return s
}

// Close removes the session's temporary files.
func (s *Session) Close() {
	if s.tmpBase != "" {
		os.Remove(s.tmpBase)
		s.tmpBase = ""
	}
}

// Model returns the session's current model.
func (s *Session) Model() *ir.Model { return s.model }

// Failed reports whether any error has been reported.
func (s *Session) Failed() bool { return s.failed }

// Load replaces the session's model by the model file at path (any format
// pbl reads). Interactive declarations and the evidence are dropped. On
// error the session is unchanged.
func (s *Session) Load(path string) error {
	m, err := loadModel(path)
	if err != nil {
		return err
	}
	s.Close()
	s.path, s.base, s.chunks, s.evid, s.last, s.incomplete = path, "", nil, nil, nil, nil
	if isPBL(path) {
		s.base = path
	}
	s.model = m
	return nil
}

func isPBL(path string) bool { return strings.EqualFold(filepath.Ext(path), ".pbl") }

// Reload reads the model file again and replays the interactive
// declarations. Evidence that no longer fits the model is dropped, with a
// note. On error the session is unchanged.
func (s *Session) Reload() error {
	if s.path == "" && len(s.chunks) == 0 {
		return errors.New("no model loaded (use :load FILE)")
	}
	var m *ir.Model
	var err error
	if s.path != "" && !isPBL(s.path) {
		// Convert again: the file may have changed.
		m, err = loadModel(s.path)
		if err != nil {
			return err
		}
		if len(s.chunks) > 0 {
			old := s.model
			s.model = m
			s.Close()
			s.base = ""
			if err := s.ensureBase(); err != nil {
				s.model = old
				return err
			}
			m, err = s.lower(nil)
			if err != nil {
				s.model = old
				return err
			}
		}
	} else {
		m, err = s.lower(nil)
		if err != nil {
			return err
		}
	}
	s.incomplete = nil
	s.setModel(m)
	return nil
}

// setModel installs a new model and drops evidence that no longer fits.
func (s *Session) setModel(m *ir.Model) {
	s.model = m
	kept := s.evid[:0]
	for _, o := range s.evid {
		v, ok := m.Lookup(o.name)
		if !ok || v.State(o.state) < 0 {
			fmt.Fprintf(s.err, "note: dropped the evidence %s=%s, which the model no longer has\n", ir.Quote(o.name), ir.Quote(o.state))
			continue
		}
		kept = append(kept, o)
	}
	s.evid = kept
}

// ensureBase makes sure a non-.pbl model has a .pbl conversion that the
// generated source can import.
func (s *Session) ensureBase() error {
	if s.base != "" || s.path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := source.Write(&b, s.model, "converted from "+s.path+" by pbl repl"); err != nil {
		return fmt.Errorf("cannot add declarations to %s: %v", s.path, err)
	}
	f, err := os.CreateTemp("", "pbl-repl-*.pbl")
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	s.base, s.tmpBase = f.Name(), f.Name()
	return nil
}

// lower builds the model from the base file, the accepted chunks and
// extra (if not nil).
func (s *Session) lower(extra *chunk) (*ir.Model, error) {
	var b strings.Builder
	line := 1
	add := func(c chunk) {
		for ; line < c.line; line++ {
			b.WriteByte('\n')
		}
		b.WriteString(c.text)
		line += strings.Count(c.text, "\n")
	}
	for _, c := range s.chunks {
		add(c)
	}
	if extra != nil {
		add(*extra)
	}
	if s.base != "" {
		fmt.Fprintf(&b, "\nimport %s\n", strconv.Quote(s.base))
	}
	m, err := pbl.Load(InputName, append([]byte{}, b.String()...))
	if err != nil {
		return nil, err
	}
	return m, nil
}

// loadModel reads a model file for the session. A structure whose numbers
// are still to be learned is accepted (queries on it say so until a learn
// statement runs), and the file's own learn statements run; its queries do
// not.
func loadModel(path string) (*ir.Model, error) {
	return pbl.LoadFile(path)
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
		if err == io.EOF {
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
	var err error
	if isQueryStart(src) {
		_, err = parser.ParseQuery(InputName, text)
	} else {
		_, err = parser.Parse(InputName, []byte(text))
	}
	if err != nil {
		s.report(err, "")
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
			s.command(t)
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
			s.chunk(f, text, src)
			return
		}
		if atEnd(qerr, text) || atEnd(ferr, text) {
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
		if atEnd(err, text) {
			return
		}
		s.pending = nil
		s.report(err, src)
		return
	}
	s.pending = nil
	s.chunk(f, text, src)
}

// isQueryStart reports whether src starts with a query keyword and "(".
func isQueryStart(src string) bool {
	sc := grammar.NewScanner(InputName, src)
	t, err := sc.Next()
	if err != nil || t.Type != grammar.Ident {
		return false
	}
	switch t.Value {
	case "P", "MPE", "MAP", "ML", "MDL", "indep", "density":
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

// atEnd reports whether err is positioned at the end of text: the parser
// wanted more, so the statement is incomplete.
func atEnd(err error, text string) bool {
	p := errPos(err)
	line := 1 + strings.Count(text, "\n")
	col := 1 + utf8.RuneCountInString(text[strings.LastIndexByte(text, '\n')+1:])
	return p.Line > line || p.Line == line && p.Col >= col
}

// chunk runs a complete piece of input that is not a bare query: its
// declarations extend the model, its queries and expectations are
// answered.
func (s *Session) chunk(f *grammar.File, text, src string) {
	if len(f.Stmts) == 0 {
		return
	}
	decl, expects := false, false
	for _, st := range f.Stmts {
		switch st.(type) {
		case *grammar.QueryStmt:
		case *grammar.Expect:
			expects = true
		default:
			decl = true
		}
	}
	var lowered *ir.Model
	if decl || expects {
		// Expectations are lowered with the evidence written into their
		// queries: check the evidence against them first.
		ins, err := s.evidenceInserts(f, src)
		if err != nil {
			s.report(err, src)
			return
		}
		if err := s.ensureBase(); err != nil {
			s.report(err, src)
			return
		}
		c := chunk{line: s.start, text: insert(src, ins)}
		m, err := s.lower(&c)
		if err != nil && decl && onlyIncomplete(err) {
			// Declarations typed one at a time: var Smoke: bool now,
			// its distribution later. Keep them; the model stays as it
			// was until they are complete.
			s.chunks = append(s.chunks, c)
			s.incomplete = err
			if s.cfg.Interactive {
				fmt.Fprintf(s.out, "pending until the model is complete (queries use the model as it was):\n%s", indent(err.(ir.ErrorList).Lines()))
			}
			return
		}
		if err != nil {
			s.report(err, src)
			return
		}
		lowered = m
		if decl {
			s.chunks = append(s.chunks, c)
			s.incomplete = nil
			s.setModel(m)
		}
	}
	for _, st := range f.Stmts {
		switch st := st.(type) {
		case *grammar.QueryStmt:
			s.query(st.Query, src)
		case *grammar.Expect:
			s.expect(lowered, st, src)
		}
	}
}

// onlyIncomplete reports whether every error of a lowering says that a
// variable still lacks its distribution.
func onlyIncomplete(err error) bool {
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return false
	}
	for _, e := range list {
		if !strings.Contains(e.Msg, "has no distribution") {
			return false
		}
	}
	return true
}

func indent(lines string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(lines, "\n"), "\n", "\n  ") + "\n"
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
		if pe, ok := err.(*os.PathError); ok {
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
		fmt.Fprintln(s.err, e.Error())
	}
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
