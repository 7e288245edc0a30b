package serve

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/pbl-lang/pbl/lsp"
)

// A Diagnostic is an error in the source as the language server gives it:
// its message at a range, lines and columns 1-based, columns in UTF-16
// code units (as the editor counts them).
type Diagnostic struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"endLine"`
	EndCol  int    `json:"endCol"`
	Message string `json:"message"`
}

// A diagnoser is a client of pbl's language server (package lsp), run in
// the process over pipes: the diagnostics the page shows are the ones an
// editor connected to pbl lsp shows, by the same code, without a copy of
// it here. One document, the opened model, changed with its whole text.
type diagnoser struct {
	mu      sync.Mutex
	w       *io.PipeWriter // to the server
	r       *bufio.Reader  // from the server
	uri     string
	version int
	nextID  int
	done    chan error // the server's end
}

// errServerEnded is returned once the language server has stopped.
var errServerEnded = errors.New("serve: the language server ended")

// newDiagnoser starts a language server for the document at path.
func newDiagnoser(path string) (*diagnoser, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := &diagnoser{w: inW, r: bufio.NewReader(outR), done: make(chan error, 1),
		uri: lsp.PathURI(abs)}
	go func() {
		err := lsp.Serve(inR, outW, io.Discard)
		outW.CloseWithError(errServerEnded)
		d.done <- err
	}()
	if _, err := d.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}); err != nil {
		d.w.Close()
		return nil, err
	}
	if err := d.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		return nil, err
	}
	return d, nil
}

// Diagnose gives the server src as the document's text and returns the
// diagnostics it publishes for it.
func (d *diagnoser) Diagnose(src string) ([]Diagnostic, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.version++
	var err error
	if d.version == 1 {
		err = d.notify("textDocument/didOpen", lsp.DidOpenTextDocumentParams{TextDocument: lsp.TextDocumentItem{URI: d.uri, LanguageID: "pbl", Version: d.version, Text: src}})
	} else {
		err = d.notify("textDocument/didChange", lsp.DidChangeTextDocumentParams{
			TextDocument:   lsp.VersionedTextDocumentIdentifier{URI: d.uri, Version: d.version},
			ContentChanges: []lsp.TextDocumentContentChangeEvent{{Text: src}},
		})
	}
	if err != nil {
		return nil, err
	}
	for {
		m, err := d.read()
		if err != nil {
			return nil, err
		}
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p lsp.PublishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		if p.URI != d.uri || p.Version == nil || *p.Version != d.version {
			continue
		}
		out := make([]Diagnostic, len(p.Diagnostics))
		for i, g := range p.Diagnostics {
			out[i] = Diagnostic{Line: g.Range.Start.Line + 1, Col: g.Range.Start.Character + 1,
				EndLine: g.Range.End.Line + 1, EndCol: g.Range.End.Character + 1, Message: g.Message}
		}
		return out, nil
	}
}

// Close shuts the server down and waits for it.
func (d *diagnoser) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.request("shutdown", nil); err != nil {
		d.w.Close()
		<-d.done
		return err
	}
	d.notify("exit", nil)
	d.w.Close()
	return <-d.done
}

// A message is a JSON-RPC message from the server.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (d *diagnoser) request(method string, params any) (*message, error) {
	d.nextID++
	id := d.nextID
	if err := d.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		m, err := d.read()
		if err != nil {
			return nil, err
		}
		if string(m.ID) != strconv.Itoa(id) || m.Method != "" {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("serve: the language server refused %s: %s", method, m.Error.Message)
		}
		return m, nil
	}
}

func (d *diagnoser) notify(method string, params any) error {
	return d.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (d *diagnoser) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(d.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = d.w.Write(body)
	return err
}

func (d *diagnoser) read() (*message, error) {
	body, err := lsp.ReadMessage(d.r)
	if err != nil {
		return nil, err
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
