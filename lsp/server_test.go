package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/format"
)

// A session is an editor's side of a conversation: the messages it sends,
// written up front (the server answers each before reading the next), and
// what came back.
type session struct {
	t   *testing.T
	in  bytes.Buffer
	id  int
	out map[int]json.RawMessage // responses by id
	err map[int]*rpcError
	// diagnostics published, in order
	diags []PublishDiagnosticsParams
}

func (s *session) send(method string, params any, request bool) int {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	id := 0
	if request {
		s.id++
		id = s.id
		m["id"] = id
	}
	body, err := json.Marshal(m)
	if err != nil {
		s.t.Fatal(err)
	}
	fmt.Fprintf(&s.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return id
}

// run serves the messages sent and reads every reply.
func (s *session) run() error {
	var out bytes.Buffer
	err := Serve(&s.in, &out, nil)
	c := newConn(&out, nil)
	s.out, s.err = map[int]json.RawMessage{}, map[int]*rpcError{}
	for {
		body, rerr := c.read()
		if rerr != nil {
			break
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			s.t.Fatalf("reply %s: %v", body, err)
		}
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p PublishDiagnosticsParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				s.t.Fatal(err)
			}
			s.diags = append(s.diags, p)
		case m.ID != nil && m.Error != nil:
			s.err[*m.ID] = m.Error
		case m.ID != nil:
			if m.Result == nil {
				s.t.Errorf("response %d has no result member: %s", *m.ID, body)
			}
			s.out[*m.ID] = m.Result
		}
	}
	return err
}

func (s *session) result(id int, v any) {
	s.t.Helper()
	if e := s.err[id]; e != nil {
		s.t.Fatalf("request %d: error %d %s", id, e.Code, e.Message)
	}
	if err := json.Unmarshal(s.out[id], v); err != nil {
		s.t.Fatalf("request %d: %s: %v", id, s.out[id], err)
	}
}

func pos(uri string, line, char int) TextDocumentPositionParams {
	return TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Position: Position{Line: line, Character: char}}
}

const base = `// The storm and its lightning, imported by main.pbl.
var Storm, Lightning: bool
Storm -> Lightning
P(Storm) = 0.3
P(Lightning | Storm) = { true: 0.7  false: 0.05 }
`

// broken has a row that does not sum to 1 (and a query of an undeclared
// variable, which pbl check does not reach).
const broken = `import "base.pbl"
var Campfire: {low, high}
Storm -> Campfire
P(Campfire | Storm) = {
    true:  [0.4, 0.6]
    false: [0.2, 0.9]
}
query P(Campfire | Thunder=true)
`

const fixed = `import "base.pbl"
var Campfire: {low, high}
Storm -> Campfire
P(Campfire | Storm) = {
  true: [0.4,0.6]
    false: [0.2, 0.8]
}
query P(Campfire=high | Storm=true)
`

// TestSession drives the server as an editor does: initialize, open a
// model with errors, fix it, ask for completion, hover, definition,
// symbols and formatting, break it again, shut down.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "base.pbl"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	mainPath := filepath.Join(dir, "main.pbl")
	uri := pathURI(mainPath)
	s := &session{t: t}
	initID := s.send("initialize", map[string]any{"processId": nil, "rootUri": pathURI(dir), "capabilities": map[string]any{}}, true)
	s.send("initialized", map[string]any{}, false)
	s.send("textDocument/didOpen", DidOpenTextDocumentParams{TextDocument: TextDocumentItem{URI: uri, LanguageID: "pbl", Version: 1, Text: broken}}, false)
	s.send("textDocument/didChange", DidChangeTextDocumentParams{TextDocument: VersionedTextDocumentIdentifier{URI: uri, Version: 2}, ContentChanges: []TextDocumentContentChangeEvent{{Text: fixed}}}, false)
	// An incremental change: Campfire's first state renamed low → cold.
	s.send("textDocument/didChange", DidChangeTextDocumentParams{TextDocument: VersionedTextDocumentIdentifier{URI: uri, Version: 3},
		ContentChanges: []TextDocumentContentChangeEvent{{Range: &Range{Start: Position{Line: 1, Character: 15}, End: Position{Line: 1, Character: 18}}, Text: "cold"}}}, false)
	statesID := s.send("textDocument/completion", pos(uri, 7, 17), true)   // P(Campfire=|high: after "Campfire="
	namesID := s.send("textDocument/completion", pos(uri, 2, 12), true)    // Storm -> Cam|pfire
	hoverVarID := s.send("textDocument/hover", pos(uri, 2, 1), true)       // St|orm
	hoverQueryID := s.send("textDocument/hover", pos(uri, 7, 2), true)     // qu|ery …
	defLocalID := s.send("textDocument/definition", pos(uri, 7, 10), true) // Campfire in the query
	defImportID := s.send("textDocument/definition", pos(uri, 2, 2), true) // Storm: in base.pbl
	symbolsID := s.send("textDocument/documentSymbol", DocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}}, true)
	formatID := s.send("textDocument/formatting", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, true)
	// Broken again mid-edit: completion and symbols still answer.
	s.send("textDocument/didChange", DidChangeTextDocumentParams{TextDocument: VersionedTextDocumentIdentifier{URI: uri, Version: 4},
		ContentChanges: []TextDocumentContentChangeEvent{{Text: fixed + "query P(Storm | Cam"}}}, false)
	brokenNamesID := s.send("textDocument/completion", pos(uri, 8, 19), true)
	brokenFormatID := s.send("textDocument/formatting", DocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}}, true)
	brokenSymbolsID := s.send("textDocument/documentSymbol", DocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}}, true)
	unknownID := s.send("textDocument/hover", pos("file:///nowhere.pbl", 0, 0), true)
	methodID := s.send("textDocument/rename", map[string]any{}, true)
	shutdownID := s.send("shutdown", nil, true)
	s.send("exit", nil, false)
	if err := s.run(); err != nil {
		t.Fatalf("Serve: %v", err)
	}

	var init InitializeResult
	s.result(initID, &init)
	if c := init.Capabilities; !c.HoverProvider || !c.DefinitionProvider || !c.DocumentSymbolProvider || !c.DocumentFormattingProvider || c.CompletionProvider == nil {
		t.Errorf("capabilities %+v", c)
	}

	// Diagnostics: version 1 has two errors, at the right places. The
	// changes to versions 2 and 3 came together: one analysis, of 3.
	if len(s.diags) != 3 {
		t.Fatalf("%d diagnostics notifications, want 3 (the open, the changes to 2 and 3 together, the change to 4)", len(s.diags))
	}
	type at struct{ line, char int }
	var got []at
	for _, d := range s.diags[0].Diagnostics {
		got = append(got, at{d.Range.Start.Line, d.Range.Start.Character})
		if d.Severity != SeverityError || d.Message == "" || d.Range.End.Character <= d.Range.Start.Character && d.Range.End.Line == d.Range.Start.Line {
			t.Errorf("diagnostic %+v", d)
		}
	}
	want := []at{{5, 4}} // the row false: [0.2, 0.9] (pbl check stops before the queries)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("diagnostics at %v, want %v: %+v", got, want, s.diags[0].Diagnostics)
	}
	if n := len(s.diags[1].Diagnostics); n != 0 {
		t.Errorf("fixed text: %d diagnostics: %+v", n, s.diags[1])
	}
	if v := s.diags[1].Version; v == nil || *v != 3 {
		t.Errorf("diagnostics version %v, want 3", v)
	}
	if len(s.diags[2].Diagnostics) != 1 || s.diags[2].Diagnostics[0].Range.Start != (Position{8, 19}) {
		t.Errorf("broken again: %+v", s.diags[2].Diagnostics)
	}

	labels := func(id int) string {
		var l CompletionList
		s.result(id, &l)
		var out []string
		for _, it := range l.Items {
			out = append(out, it.Label)
		}
		return strings.Join(out, " ")
	}
	if got := labels(statesID); got != "cold high" {
		t.Errorf("states after Campfire=: %q, want \"cold high\"", got)
	}
	if got := labels(namesID); got != "Campfire" {
		t.Errorf("completion of Cam: %q", got)
	}
	if got := labels(brokenNamesID); got != "Campfire" {
		t.Errorf("completion of Cam in a file with errors: %q", got)
	}

	var h Hover
	s.result(hoverVarID, &h)
	for _, w := range []string{"**Storm**: bool", "children: Lightning, Campfire", "Storm=true", "0.3"} {
		if !strings.Contains(h.Contents.Value, w) {
			t.Errorf("hover on Storm: %q lacks %q", h.Contents.Value, w)
		}
	}
	s.result(hoverQueryID, &h)
	if !strings.Contains(h.Contents.Value, "0.6") {
		t.Errorf("hover on the query: %q, want its answer 0.6", h.Contents.Value)
	}

	var locs []Location
	s.result(defLocalID, &locs)
	if len(locs) != 1 || locs[0].URI != uri || locs[0].Range.Start != (Position{1, 4}) || locs[0].Range.End != (Position{1, 12}) {
		t.Errorf("definition of Campfire: %+v", locs)
	}
	s.result(defImportID, &locs)
	if len(locs) != 1 || locs[0].URI != pathURI(filepath.Join(dir, "base.pbl")) || locs[0].Range.Start != (Position{1, 4}) {
		t.Errorf("definition of Storm: %+v", locs)
	}

	for _, id := range []int{symbolsID, brokenSymbolsID} {
		var syms []DocumentSymbol
		s.result(id, &syms)
		if len(syms) != 1 || syms[0].Name != "Campfire" || syms[0].Kind != SymbolVariable || syms[0].SelectionRange.Start != (Position{1, 4}) {
			t.Errorf("symbols: %+v", syms)
		}
	}

	// Formatting: one edit, the whole text in pbl fmt's layout; a text
	// with a syntax error is refused.
	var edits []TextEdit
	s.result(formatID, &edits)
	want3 := strings.Replace(fixed, "{low, high}", "{cold, high}", 1)
	wantFmt, err := format.Source(mainPath, []byte(want3))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case string(wantFmt) == want3:
		t.Errorf("the test's text is formatted already: it tests no edit")
	case len(edits) != 1 || edits[0].NewText != string(wantFmt) || edits[0].Range.Start != (Position{}) || edits[0].Range.End != (Position{8, 0}):
		t.Errorf("formatting: %+v, want the whole text replaced by %q", edits, wantFmt)
	}
	if e := s.err[brokenFormatID]; e == nil {
		t.Errorf("formatting a text with a syntax error: %s", s.out[brokenFormatID])
	}

	if e := s.err[unknownID]; e == nil || e.Code != codeInvalidParams {
		t.Errorf("hover in a document not open: %+v", e)
	}
	if e := s.err[methodID]; e == nil || e.Code != codeMethodNotFound {
		t.Errorf("an unknown method: %+v", e)
	}
	if string(s.out[shutdownID]) != "null" {
		t.Errorf("shutdown: %s", s.out[shutdownID])
	}
}

// Serve's stream errors: a client that goes away without shutdown, a
// malformed frame, a body that is not JSON (answered, then on).
func TestServeErrors(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"no shutdown", "", false},
		{"bad length", "Content-Length: x\r\n\r\n{}", false},
		{"too long", fmt.Sprintf("Content-Length: %d\r\n\r\n", maxMessage+1), false},
		{"short body", "Content-Length: 10\r\n\r\n{}", false},
		{"exit without shutdown", frame(`{"jsonrpc":"2.0","method":"exit"}`), false},
		{"not JSON, then shutdown", frame(`{nope`) + frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`), true},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := Serve(strings.NewReader(tt.in), &out, nil)
		if (err == nil) != tt.ok {
			t.Errorf("%s: Serve = %v", tt.name, err)
		}
	}
}

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}
