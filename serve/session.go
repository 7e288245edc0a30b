package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// editTimeout bounds the learn statements of a source the page sends (an
// edit): the page must not hang on one. The first load, of the file as
// opened, runs them to the end, as every command does (a model whose EM
// takes seconds still opens). The language server, which gives the
// diagnostics, stops them at 2 s and says so.
var editTimeout = 10 * time.Second

// answerTimeout bounds each of the model's statements' answers, as the
// language server bounds a hover's.
var answerTimeout = 2 * time.Second

// A Session is one opened model: its file, its source as last given, the
// last model that loaded, and the language server that diagnoses the
// source. Its methods may be called from several goroutines.
type Session struct {
	path     string // the model's file, as opened
	editable bool   // a .pbl file: the source is edited, formatted and saved

	mu      sync.Mutex
	src     string
	model   *ir.Model // the last model that loaded, or nil
	version int       // incremented at each model that loads
	diag    *diagnoser
	limits  Limits
}

// Limits bound the answers of a session (the beliefs, P(e), MPE): the
// memory of an exact plan and the time of one answer. Beyond either, the
// Auto engine answers approximately, and the answer says so
// (docs/approximate.md). The zero value is the engines' defaults: the
// default memory limit and no time limit.
type Limits struct {
	MaxMemory int64         // bytes of an exact plan; 0: infer's default
	TimeLimit time.Duration // of one answer; 0: none
}

// SetLimits bounds the session's answers from now on.
func (s *Session) SetLimits(l Limits) {
	s.mu.Lock()
	s.limits = l
	s.mu.Unlock()
}

// inferOptions are the options of every answer of a session: its limits,
// cancelled with ctx, and many queries on one model so that Auto shares a
// junction tree's compilation among them.
func (s *Session) inferOptions(ctx context.Context) infer.Options {
	s.mu.Lock()
	l := s.limits
	s.mu.Unlock()
	return infer.Options{Cancel: ctx.Done(), Queries: 1000, MaxMemory: l.MaxMemory, TimeLimit: l.TimeLimit}
}

// NewSession opens the model at path: a .pbl file, or any format pbl
// reads (shown, not edited).
func NewSession(path string) (*Session, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(src) > maxSource {
		return nil, &TooLargeError{Path: path, Size: int64(len(src)), Limit: maxSource}
	}
	return NewSessionSource(path, string(src))
}

// NewSessionSource opens the model at path with src as its source, which
// need not be on disk (the page in the browser alone keeps its models in
// the browser's storage).
func NewSessionSource(path, src string) (*Session, error) {
	s := &Session{path: path, src: src, editable: isPbl(path)}
	if s.editable {
		d, err := newDiagnoser(path)
		if err != nil {
			return nil, err
		}
		s.diag = d
	}
	return s, nil
}

// Close stops the session's language server.
func (s *Session) Close() error {
	if s.diag != nil {
		return s.diag.Close()
	}
	return nil
}

// Path returns the model's file as opened.
func (s *Session) Path() string { return s.path }

// Source returns the source as last given.
func (s *Session) Source() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src
}

func isPbl(path string) bool { return strings.EqualFold(filepath.Ext(path), ".pbl") }

// maxSource is the largest source the page edits or saves (4 MiB; a
// larger model is read by pbl itself, not through a page).
const maxSource = 4 << 20

// TooLargeError is the refusal of a source or a request body larger than
// the page's limit.
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, more than the page's limit of %d", e.Path, e.Size, e.Limit)
}

// Open loads the source (src, or if nil the source as last given) and
// returns the model's graph, its statements with their answers and the
// source's diagnostics. The findings of keep whose variable and state the
// new model has are returned in Graph.Evidence. An edit that does not
// load leaves the last model in place (Graph.Loaded is false).
func (s *Session) Open(ctx context.Context, src *string, keep []Finding) (*Graph, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if src != nil {
		if !s.editable {
			return nil, ErrReadOnly
		}
		if len(*src) > maxSource {
			return nil, &TooLargeError{Path: s.path, Size: int64(len(*src)), Limit: maxSource}
		}
		s.src = *src
	}
	g := &Graph{File: filepath.Base(s.path), Source: s.src, Editable: s.editable, Diagnostics: []Diagnostic{}, Stmts: []Stmt{}, Mixtures: []MixtureInfo{}, Spaces: []SpaceBox{}}
	var m *ir.Model
	var err error
	if s.editable {
		lctx, cancel := ctx, context.CancelFunc(func() {})
		if src != nil {
			lctx, cancel = context.WithTimeout(ctx, editTimeout)
		}
		m, err = pbl.LoadWith(s.path, []byte(s.src), pbl.LoadOptions{Cancel: lctx.Done(), MaxEntries: infer.DefaultMaxTable, RegularFilesOnly: true})
		cancel()
		d, derr := s.diag.Diagnose(s.src)
		if derr != nil {
			return nil, derr
		}
		g.Diagnostics = d
	} else {
		m, err = pbl.LoadFile(s.path)
		if err != nil {
			g.Diagnostics = diagnosticsOf(err)
		}
	}
	if err != nil {
		if s.model == nil {
			return g, nil
		}
		m = s.model // the graph of the last model that loaded
	} else {
		s.model = m
		s.version++
		g.Loaded = true
	}
	g.Version = s.version
	g.Nodes = nodesOf(m)
	g.Stmts = stmtsOf(ctx, m)
	g.Evidence = keepFindings(m, keep)
	g.Mixtures = mixturesOf(m)
	g.Spaces = spacesOf(ctx, m)
	return g, nil
}

// diagnosticsOf returns a load's errors as diagnostics at their positions
// (a model in another format than .pbl, which the language server does
// not read).
func diagnosticsOf(err error) []Diagnostic {
	var l ir.ErrorList
	var e *ir.Error
	switch {
	case errors.As(err, &l):
	case errors.As(err, &e):
		l = ir.ErrorList{e}
	default:
		return []Diagnostic{{Line: 1, Col: 1, EndLine: 1, EndCol: 1, Message: err.Error()}}
	}
	out := make([]Diagnostic, len(l))
	for i, e := range l {
		line, col := max(e.Pos.Line, 1), max(e.Pos.Col, 1)
		out[i] = Diagnostic{Line: line, Col: col, EndLine: line, EndCol: col, Message: e.Msg}
	}
	return out
}

// current returns the last model that loaded.
func (s *Session) current() (*ir.Model, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.model == nil {
		return nil, 0, ErrNoModel
	}
	return s.model, s.version, nil
}

// ErrNoModel is the answer to a question asked before any model loaded.
var ErrNoModel = errors.New("the model has not loaded: see its errors")

// ErrReadOnly is the refusal to edit a model that is not a .pbl file.
var ErrReadOnly = errors.New("only a .pbl model can be edited")

// nodesOf returns the model's variables as the graph draws them.
func nodesOf(m *ir.Model) []Node {
	out := make([]Node, len(m.Vars))
	for i, v := range m.Vars {
		n := Node{Var: v.Name, Kind: "discrete", States: v.States, Parents: []string{}}
		if !v.Discrete() {
			n.Kind, n.States = "real", []string{}
		}
		for _, p := range m.Parents[i] {
			n.Parents = append(n.Parents, m.Vars[p].Name)
		}
		out[i] = n
	}
	return out
}

// stmtsOf answers the model's query and expect statements, each within
// answerTimeout, as pbl test and pbl run do.
func stmtsOf(ctx context.Context, m *ir.Model) []Stmt {
	out := []Stmt{}
	for _, st := range m.Stmts {
		var q ir.Query
		var ex *ir.ExpectStmt
		kind := "query"
		switch st := st.(type) {
		case *ir.QueryStmt:
			q = st.Query
		case *ir.ExpectStmt:
			q, ex, kind = st.Query, st, "expect"
		default:
			continue
		}
		pos := st.Position()
		r := Stmt{Line: pos.Line, Kind: kind, Text: q.Head().Text}
		if ex != nil {
			r.Text = fmt.Sprintf("%s == %s", q.Head().Text, ex.Want.Text)
		}
		actx, cancel := context.WithTimeout(ctx, answerTimeout)
		a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Context: actx})
		cancel()
		switch {
		case err != nil:
			r.Error = err.Error()
			if ex != nil {
				r.Pass = new(bool)
			}
		case ex != nil:
			cerr := pbl.CheckAnswer(m, ex, a)
			pass := cerr == nil
			r.Pass = &pass
			if cerr != nil {
				r.Error = cerr.Msg
			}
		default:
			var b bytes.Buffer
			a.Text(&b, m)
			r.Answer = strings.TrimRight(b.String(), "\n")
		}
		out = append(out, r)
	}
	return out
}
