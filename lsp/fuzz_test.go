package lsp

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzServe feeds the server arbitrary sessions: it must never panic or
// hang, whatever the JSON or the document text. Each line of the input is
// the body of a message, which the harness frames with its Content-Length
// (FuzzStream fuzzes the framing). Seeds: a session over every example
// model, with each request kind.
//
// When the fuzzer finds an input that reaches new code, it minimizes it,
// for up to -fuzzminimizetime (60 s by default), counting no execs
// meanwhile: it tries cutting each byte, then each run of bytes, a number
// of runs that grows as the square of the input's length. A session over
// an example model is 2–5 KB, and the fuzzer spent its whole minute on
// every new input, showing 0 execs/s for minutes on end. So the harness
// frames the bodies, so that a cut shortens a body (a cut of a framed
// session broke its Content-Length and every message after it, and none
// was kept), and the fuzzer minimizes for at most minimizeTime unless
// -fuzzminimizetime is given.
func FuzzServe(f *testing.F) {
	limitMinimizeTime(f)
	files, _ := filepath.Glob("../examples/*.pbl")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Join(sessionBodies("file:///fuzz/m.pbl", string(src)), []byte("\n")))
	}
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var s bytes.Buffer
		for body := range bytes.SplitSeq(in, []byte("\n")) {
			s.WriteString(frame(string(body)))
		}
		Serve(&s, io.Discard, nil)
	})
}

// minimizeTime is how long the fuzzer minimizes a new input of FuzzServe
// and FuzzStream unless -fuzzminimizetime is given.
const minimizeTime = "1s"

// limitMinimizeTime sets -fuzzminimizetime to minimizeTime unless it was
// given. The flag is read when f.Fuzz starts to fuzz.
func limitMinimizeTime(f *testing.F) {
	const name = "test.fuzzminimizetime"
	given := false
	flag.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	if !given {
		if err := flag.Set(name, minimizeTime); err != nil {
			f.Fatal(err)
		}
	}
}

// FuzzStream feeds the server arbitrary streams: it must never panic or
// hang, whatever the framing. Seeds: frames with the headers clients
// send, and a short session.
func FuzzStream(f *testing.F) {
	limitMinimizeTime(f)
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("content-length:2\n\n{}Content-Length: 0\r\n\r\n"))
	f.Add(sessionOf("file:///fuzz/m.pbl", "var A: bool\nP(A) = 0.2\nquery P(A)\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		Serve(bytes.NewReader(in), io.Discard, nil)
	})
}

// sessionOf frames an editor's session over the document uri, of text.
func sessionOf(uri, text string) []byte {
	var b bytes.Buffer
	for _, body := range sessionBodies(uri, text) {
		b.WriteString(frame(string(body)))
	}
	return b.Bytes()
}

// sessionBodies returns the bodies of the messages of an editor's session
// over the document uri, of text: open, completion, hover, definition,
// symbols, shutdown and exit. They hold no newline.
func sessionBodies(uri, text string) [][]byte {
	at := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 3, "character": 4}}
	msgs := []map[string]any{
		{"id": 1, "method": "initialize", "params": map[string]any{}},
		{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": text}}},
		{"id": 2, "method": "textDocument/completion", "params": at},
		{"id": 3, "method": "textDocument/hover", "params": at},
		{"id": 4, "method": "textDocument/definition", "params": at},
		{"id": 5, "method": "textDocument/documentSymbol", "params": map[string]any{"textDocument": map[string]any{"uri": uri}}},
		{"id": 6, "method": "shutdown"},
		{"method": "exit"},
	}
	var out [][]byte
	for _, m := range msgs {
		m["jsonrpc"] = "2.0"
		body, _ := json.Marshal(m)
		out = append(out, body)
	}
	return out
}

func itoa(n int) string {
	s, _ := json.Marshal(n)
	return string(s)
}
