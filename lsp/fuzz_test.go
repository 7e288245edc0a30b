package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzServe feeds the server arbitrary streams: it must never panic or
// hang, whatever the framing, the JSON or the document text. Seeds: a
// session over every example model, with each request kind.
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob("../examples/*.pbl")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seedSession(string(src)))
	}
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		Serve(bytes.NewReader(in), io.Discard, nil)
	})
}

// seedSession frames an editor's session over one document.
func seedSession(text string) []byte { return sessionOf("file:///fuzz/m.pbl", text) }

// sessionOf frames an editor's session over the document uri, of text:
// open, completion, hover, definition, symbols, shutdown and exit.
func sessionOf(uri, text string) []byte {
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
	var b bytes.Buffer
	for _, m := range msgs {
		m["jsonrpc"] = "2.0"
		body, _ := json.Marshal(m)
		b.WriteString("Content-Length: ")
		b.WriteString(itoa(len(body)))
		b.WriteString("\r\n\r\n")
		b.Write(body)
	}
	return b.Bytes()
}

func itoa(n int) string {
	s, _ := json.Marshal(n)
	return string(s)
}
