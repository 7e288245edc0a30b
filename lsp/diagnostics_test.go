package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportedErrorAtImport: an error in an imported file is shown on
// the import statement that brings the file in (its path), naming the
// error's place; an error in a file imported by way of another, on the
// first import.
func TestImportedErrorAtImport(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ok.pbl":     "var Rain: bool\nP(Rain) = 0.2\n",
		"bad.pbl":    "var Storm: bool\nP(Storm) = 1.5\n",
		"via.pbl":    "import \"bad.pbl\"\n",
		"cycle.pbl":  "import \"cycle2.pbl\"\n",
		"cycle2.pbl": "import \"cycle.pbl\"\nvar C: bool\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, text string
		want       Range  // of the first diagnostic
		msg        string // in its message
	}{
		{"direct", "// main\nimport \"ok.pbl\"\nimport \"bad.pbl\"\nvar A: bool\n", Range{Start: Position{Line: 2, Character: 7}, End: Position{Line: 2, Character: 16}}, "bad.pbl:2:12: probability 1.5"},
		{"indirect", "// main\n\nimport \"via.pbl\"\nvar A: bool\n", Range{Start: Position{Line: 2, Character: 7}, End: Position{Line: 2, Character: 16}}, "bad.pbl:2:12: probability 1.5"},
		{"cycle", "var A: bool\nimport \"cycle2.pbl\"\n", Range{Start: Position{Line: 1, Character: 7}, End: Position{Line: 1, Character: 19}}, "import cycle"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, "cycle.pbl")
		if tt.name != "cycle" {
			path = filepath.Join(dir, "main.pbl")
		}
		d := newDocument(pathURI(path), 1, tt.text)
		diags := d.diagnostics()
		if len(diags) == 0 {
			t.Errorf("%s: no diagnostics", tt.name)
			continue
		}
		if diags[0].Range != tt.want || !strings.Contains(diags[0].Message, tt.msg) {
			t.Errorf("%s: %+v %q, want %+v and %q", tt.name, diags[0].Range, diags[0].Message, tt.want, tt.msg)
		}
	}
}

// TestChangesCoalesced: a burst of changes to a document (keystrokes
// that arrived while the server was busy) is analysed once, at its last
// version, and a request that follows a change sees the changed text;
// changes of two documents are each analysed.
func TestChangesCoalesced(t *testing.T) {
	const a, b = "file:///a.pbl", "file:///b.pbl"
	change := func(uri string, version int, text string) string {
		return frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":` + itoa(version) + `},"contentChanges":[{"text":"` + text + `"}]}}`)
	}
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"`+a+`","version":1,"text":"var A: bool\n"}}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"`+b+`","version":1,"text":"var B: bool\n"}}}`) +
		change(a, 2, `var A: bool\nP(A) = 1.5\n`) + change(a, 3, `var A: bool\nP(A) = 2.5\n`) + change(a, 4, `var Ab: bool\n`) +
		change(b, 2, `var B: bool\nP(B) = 7\n`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/completion","params":{"textDocument":{"uri":"`+b+`"},"position":{"line":1,"character":3}}}`) +
		change(a, 5, `var A: bool\nP(A) = 3\n`) +
		frame(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)
	var out strings.Builder
	if err := Serve(strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	c := newConn(strings.NewReader(out.String()), nil)
	var got []string // "uri version errors" of each publication, "reply N" of each response
	for {
		body, err := c.read()
		if err != nil {
			break
		}
		var m struct {
			ID     *int
			Params PublishDiagnosticsParams
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		if m.ID != nil {
			got = append(got, "reply "+itoa(*m.ID))
			continue
		}
		got = append(got, m.Params.URI+" "+itoa(*m.Params.Version)+" "+itoa(len(m.Params.Diagnostics)))
	}
	want := []string{"reply 1", a + " 1 0", b + " 1 0", a + " 4 0", b + " 2 1", "reply 2", a + " 5 1", "reply 3"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("messages\n%s\nwant\n%s", strings.Join(got, "; "), strings.Join(want, "; "))
	}
}

// TestDiagnosticsCapped: a document with more errors than maxDiagnostics
// gets maxDiagnostics diagnostics, the last saying how many more there
// are; with as many as that or fewer, all of them. Before, every error was
// published: 39,998 for a data file's header of 40,000 columns that name
// no variable, which an editor lists one by one. The errors come from
// the model (rows that do not sum to 1) and from a learn statement's data
// file (columns that name no variable), and are reported in their order.
func TestDiagnosticsCapped(t *testing.T) {
	dir := t.TempDir()
	wide := func(n int) string {
		var b strings.Builder
		b.WriteString("A")
		for i := range n {
			b.WriteString(",u" + itoa(i))
		}
		b.WriteString("\ntrue" + strings.Repeat(",1", n) + "\n")
		return b.String()
	}
	if err := os.WriteFile(filepath.Join(dir, "wide.csv"), []byte(wide(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("var X" + itoa(i) + ": bool\nP(X" + itoa(i) + ") = [0.5, 0.6]\n")
		}
		return b.String()
	}
	tests := []struct {
		name, text string
		errors     int // the document's errors, 0 if not known
	}{
		{"250 rows", rows(250), 250},
		{"100 rows", rows(100), 100},
		{"101 rows", rows(101), 101},
		{"3 rows", rows(3), 3},
		{"a wide header", "var A: bool\nlearn from \"wide.csv\"\n", 0},
	}
	uri := pathURI(filepath.Join(dir, "m.pbl"))
	for _, tt := range tests {
		s := &session{t: t}
		s.send("initialize", map[string]any{}, true)
		s.send("textDocument/didOpen", DidOpenTextDocumentParams{TextDocument: TextDocumentItem{URI: uri, LanguageID: "pbl", Version: 1, Text: tt.text}}, false)
		s.send("shutdown", nil, true)
		s.send("exit", nil, false)
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		if len(s.diags) != 1 {
			t.Fatalf("%s: %d publications", tt.name, len(s.diags))
		}
		ds := s.diags[0].Diagnostics
		want := min(tt.errors, maxDiagnostics)
		if tt.errors == 0 {
			want = len(ds)
		}
		if len(ds) != want || len(ds) == 0 || len(ds) > maxDiagnostics {
			t.Errorf("%s: %d diagnostics, want %d (at most %d)", tt.name, len(ds), want, maxDiagnostics)
			continue
		}
		more := strings.HasPrefix(ds[len(ds)-1].Message, "and ")
		switch {
		case tt.errors > maxDiagnostics && ds[len(ds)-1].Message != "and "+itoa(tt.errors-maxDiagnostics+1)+" more errors (pbl check lists them all)":
			t.Errorf("%s: the last diagnostic says %q, want how many more", tt.name, ds[len(ds)-1].Message)
		case tt.errors > 0 && tt.errors <= maxDiagnostics && more:
			t.Errorf("%s: the last diagnostic says %q, with no more", tt.name, ds[len(ds)-1].Message)
		case tt.errors == 0 && len(ds) == maxDiagnostics && !more:
			t.Errorf("%s: %d diagnostics, the last %q, want how many more", tt.name, len(ds), ds[len(ds)-1].Message)
		}
		for i, d := range ds[:len(ds)-1] {
			if i > 0 && tt.errors > 0 && d.Range.Start.Line != ds[i-1].Range.Start.Line+2 {
				t.Errorf("%s: diagnostic %d at %+v, after %+v", tt.name, i, d.Range.Start, ds[i-1].Range.Start)
				break
			}
		}
	}
}

// TestLinearGaussianDiagnostics: a document with linear Gaussian densities
// (a mean affine in real parents) has no diagnostics; a non-linear mean and
// a misspelt parent in one are diagnosed at their places (0-based lines and
// characters), with their messages.
func TestLinearGaussianDiagnostics(t *testing.T) {
	const head = "var Age, Pressure: real\nvar Smoker: bool\nP(Smoker) = 0.3\nP(Age) = normal(50, 12)\n"
	good := head + "P(Pressure | Age, Smoker) = {\n    true:  normal(90 + 0.6 * Age, 8)\n    false: normal(80 + 0.5 * Age, 7)\n}\n"
	if diags := newDocument("file:///clg.pbl", 1, good).diagnostics(); len(diags) != 0 {
		t.Errorf("a linear Gaussian density: %+v", diags)
	}
	bad := head + "P(Pressure | Age, Smoker) = {\n    true:  normal(90 + Age * Age, 8)\n    false: normal(80 + 0.5 * Agee, 7)\n}\n"
	diags := newDocument("file:///clg.pbl", 1, bad).diagnostics()
	want := []struct {
		line, char int
		msg        string
	}{{5, 27, "not linear in its real parents"}, {6, 29, `did you mean "Age"`}}
	if len(diags) != len(want) {
		t.Fatalf("diagnostics %+v, want %d", diags, len(want))
	}
	for i, w := range want {
		d := diags[i]
		if d.Range.Start.Line != w.line || d.Range.Start.Character != w.char || !strings.Contains(d.Message, w.msg) {
			t.Errorf("diagnostic %d: %+v %q, want %d:%d and %q", i, d.Range.Start, d.Message, w.line, w.char, w.msg)
		}
	}
}
