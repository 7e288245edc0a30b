package lsp

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/internal/testrun"
)

// A live is a server on pipes: the test sends a message, then reads the
// replies as they come.
type live struct {
	t   *testing.T
	in  *io.PipeWriter
	out *conn
	id  int
}

func newLive(t *testing.T) *live {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		Serve(inR, outW, nil)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return &live{t: t, in: inW, out: newConn(outR, nil)}
}

// send sends a message, a request if request is set, and returns its id.
func (l *live) send(method string, params any, request bool) int {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if request {
		l.id++
		m["id"] = l.id
	}
	body, _ := json.Marshal(m)
	if _, err := fmt.Fprintf(l.in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		l.t.Fatal(err)
	}
	return l.id
}

// await reads messages until the response to id (or, id 0, a
// notification of method) and returns its result or params.
func (l *live) await(id int, method string) json.RawMessage {
	for {
		body, err := l.out.read()
		if err != nil {
			l.t.Fatalf("waiting for %d %s: %v", id, method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			l.t.Fatal(err)
		}
		if id != 0 && m.ID != nil && *m.ID == id {
			return m.Result
		}
		if id == 0 && m.Method == method {
			return m.Params
		}
	}
}

// TestHoverWorkStops: a hover over a query whose answer takes long gets
// its reply at hoverTimeout, and the work stops soon after (no answer
// under way, after two hovers in a row), whatever it was doing — reading the rows of a large data
// file for a space, or exact inference on each distinct row for a
// variable's states — and the server answers the next request at once.
// Before, the limit bounded only the reply: the server read every row
// (a 72 MB file: 13 s) and ran every inference before saying that the
// limit had passed, answering nothing meanwhile.
func TestHoverWorkStops(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(name string, rows int, row func(*strings.Builder)) {
		var b strings.Builder
		for range rows {
			row(&b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 8 MB: 450,000 rows of x and d.
	write("xd.csv", 450_001, func(b *strings.Builder) {
		if b.Len() == 0 {
			b.WriteString("x,d\n")
			return
		}
		x := rng.Float64() * 10
		fmt.Fprintf(b, "%.6f,%.6f\n", x, 0.5+0.8*x+rng.NormFloat64())
	})
	// 4 MB: 200,000 rows of 6 variables of 20 states, nearly all distinct.
	write("abcd.csv", 200_001, func(b *strings.Builder) {
		if b.Len() == 0 {
			b.WriteString("A,B,C,D,E,F\n")
			return
		}
		fmt.Fprintf(b, "%d,%d,%d,%d,%d,%d\n", rng.IntN(20), rng.IntN(20), rng.IntN(20), rng.IntN(20), rng.IntN(20), rng.IntN(20))
	})
	row := strings.TrimSuffix(strings.Repeat("0.05, ", 20), ", ")
	var vars strings.Builder
	vars.WriteString("var H: {a, b}\nvar A, B, C, D, E, F: 0..19\nP(H) = [0.5, 0.5]\n")
	for _, v := range []string{"A", "B", "C", "D", "E", "F"} {
		fmt.Fprintf(&vars, "H -> %s\nP(%s | H) = { a: [%s]  b: [%s] }\n", v, v, row, row)
	}
	tests := []struct{ name, src string }{
		{"space, rows to read", "space S {\n    w0, w1 in -2 .. 2 by 0.05\n    d ~ normal(w0 + w1 * x, 1)\n}\ndata X = \"xd.csv\"\nquery MAP(S | X)\n"},
		{"states of a variable, rows to infer", vars.String() + "data X = \"abcd.csv\"\nquery P(H | X)\n"},
	}
	defer func(old time.Duration) { hoverTimeout = old }(hoverTimeout)
	hoverTimeout = 100 * time.Millisecond
	// The work checks for cancellation between rows; how long a row takes
	// in wall time depends on the machine's load and, under the race
	// detector, on its instrumentation, which slows these loops five to
	// twenty times (a race run on two busy cores saw the work stop 750 ms
	// after the hover). The plain run keeps the tight slack; the race run
	// checks that the work stops at all, and promptly for its speed.
	slack := 500 * time.Millisecond
	if testrun.Race {
		slack = 3 * time.Second
	}
	for _, tt := range tests {
		uri := pathURI(filepath.Join(dir, "m.pbl"))
		l := newLive(t)
		l.await(l.send("initialize", map[string]any{}, true), "")
		l.send("textDocument/didOpen", DidOpenTextDocumentParams{TextDocument: TextDocumentItem{URI: uri, LanguageID: "pbl", Version: 1, Text: tt.src}}, false)
		var diags PublishDiagnosticsParams
		json.Unmarshal(l.await(0, "textDocument/publishDiagnostics"), &diags)
		if len(diags.Diagnostics) > 0 {
			t.Fatalf("%s: %+v", tt.name, diags.Diagnostics)
		}
		line := strings.Count(tt.src, "\n") - 1
		start := time.Now()
		var h Hover
		json.Unmarshal(l.await(l.send("textDocument/hover", pos(uri, line, 2), true), ""), &h)
		replied := time.Since(start)
		if !strings.Contains(h.Contents.Value, "takes longer than") {
			t.Errorf("%s: hover %q, want a note that it takes longer", tt.name, h.Contents.Value)
		}
		if replied > hoverTimeout+slack {
			t.Errorf("%s: the hover's reply took %v, with a limit of %v", tt.name, replied, hoverTimeout)
		}
		// Again at once: the answer before may not have stopped yet, and
		// at most one runs; the reply still comes at the limit.
		again := time.Now()
		json.Unmarshal(l.await(l.send("textDocument/hover", pos(uri, line, 2), true), ""), &h)
		if el := time.Since(again); el > hoverTimeout+slack || !strings.Contains(h.Contents.Value, "takes longer than") {
			t.Errorf("%s: a second hover: %q after %v, with a limit of %v", tt.name, h.Contents.Value, el, hoverTimeout)
		}
		if n := answering.Load(); n > 1 {
			t.Errorf("%s: %d answers under way", tt.name, n)
		}
		var list CompletionList
		json.Unmarshal(l.await(l.send("textDocument/completion", pos(uri, line, 0), true), ""), &list)
		if len(list.Items) == 0 {
			t.Errorf("%s: no completion after the hover", tt.name)
		}
		for answering.Load() > 0 && time.Since(start) < 10*time.Second {
			time.Sleep(time.Millisecond)
		}
		stopped := time.Since(start)
		t.Logf("%s: replied after %v, the work stopped after %v", tt.name, replied, stopped)
		if stopped > 2*hoverTimeout+slack {
			t.Errorf("%s: the work stopped %v after the hover, with a limit of %v", tt.name, stopped, hoverTimeout)
		}
		l.await(l.send("shutdown", nil, true), "")
		l.send("exit", nil, false)
	}
}
