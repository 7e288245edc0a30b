package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A Server is a language server for one client.
type Server struct {
	conn        *conn
	docs        map[string]*document
	initialized bool      // initialize was answered
	shutdown    bool      // shutdown was asked for: only exit remains
	pending     *document // changed, its analysis not yet done (didChange)
	log         io.Writer
}

// Serve runs a language server reading requests from r and writing to w
// until the client sends exit or r ends. It returns nil after shutdown and
// exit, and an error otherwise (a stream that ends before shutdown, a
// broken message frame). log, if not nil, receives a line per problem the
// client is not told about.
func Serve(r io.Reader, w io.Writer, log io.Writer) error {
	s := &Server{conn: newConn(r, w), docs: map[string]*document{}, log: log}
	for {
		if s.pending != nil && s.conn.r.Buffered() == 0 {
			// Nothing more has come: analyse the change before waiting.
			if err := s.analyse(); err != nil {
				return err
			}
		}
		body, err := s.conn.read()
		if errors.Is(err, io.EOF) {
			if s.shutdown {
				return nil
			}
			return errors.New("lsp: the client closed the stream without shutdown")
		}
		if err != nil {
			return err
		}
		m, rerr := decode(body)
		if rerr != nil {
			if err := s.conn.reply(nil, nil, rerr); err != nil {
				return err
			}
			continue
		}
		if m.isResponse() {
			continue // the server asks the client nothing
		}
		if m.Method == "exit" {
			if s.shutdown {
				return nil
			}
			return errors.New("lsp: exit without shutdown")
		}
		if s.pending != nil && !s.changes(m, s.pending.uri) {
			if err := s.analyse(); err != nil {
				return err
			}
		}
		if err := s.handle(m); err != nil {
			return err
		}
	}
}

// handle answers one message; it returns an error only when writing fails.
func (s *Server) handle(m *message) error {
	result, err := s.dispatch(m)
	if !m.isRequest() {
		if err != nil && s.log != nil {
			fmt.Fprintf(s.log, "pbl lsp: %s: %v\n", m.Method, err)
		}
		return nil
	}
	return s.conn.reply(m.ID, result, err)
}

// dispatch runs a method and returns its result.
func (s *Server) dispatch(m *message) (any, error) {
	switch {
	case m.Method == "":
		return nil, &rpcError{Code: codeInvalidRequest, Message: "a request needs a method"}
	case m.Method == "initialize":
		s.initialized = true
		return InitializeResult{
			Capabilities: ServerCapabilities{
				TextDocumentSync:           2,
				CompletionProvider:         &CompletionOptions{TriggerCharacters: []string{"=", "(", "|", ","}},
				HoverProvider:              true,
				DefinitionProvider:         true,
				DocumentSymbolProvider:     true,
				DocumentFormattingProvider: true,
			},
			ServerInfo: ServerInfo{Name: "pbl"},
		}, nil
	case !s.initialized:
		return nil, &rpcError{Code: codeNotInitialized, Message: "initialize first"}
	case s.shutdown:
		return nil, &rpcError{Code: codeInvalidRequest, Message: "the server is shut down: only exit remains"}
	}
	switch m.Method {
	case "initialized", "$/setTrace", "$/cancelRequest", "workspace/didChangeConfiguration", "textDocument/didSave":
		return nil, nil
	case "shutdown":
		s.shutdown = true
		return nil, nil
	case "textDocument/didOpen":
		var p DidOpenTextDocumentParams
		if err := params(m, &p); err != nil {
			return nil, err
		}
		d := newDocument(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
		s.docs[d.uri] = d
		return nil, s.publish(d)
	case "textDocument/didChange":
		var p DidChangeTextDocumentParams
		if err := params(m, &p); err != nil {
			return nil, err
		}
		d, err := s.doc(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		src := d.text.src
		for _, c := range p.ContentChanges {
			src = applyChange(src, c)
		}
		d.version = p.TextDocument.Version
		d.text = newText(src)
		// Analysed (loaded, learn statements run) when the next message
		// is not another change of it, or none is waiting: a burst of
		// keystrokes costs one analysis, not one each.
		s.pending = d
		return nil, nil
	case "textDocument/didClose":
		var p DidCloseTextDocumentParams
		if err := params(m, &p); err != nil {
			return nil, err
		}
		delete(s.docs, p.TextDocument.URI)
		return nil, s.conn.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []Diagnostic{}})
	case "textDocument/completion", "textDocument/hover", "textDocument/definition":
		var p TextDocumentPositionParams
		if err := params(m, &p); err != nil {
			return nil, err
		}
		d, err := s.doc(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		off := d.text.offset(p.Position)
		switch m.Method {
		case "textDocument/completion":
			return CompletionList{Items: d.complete(off)}, nil
		case "textDocument/hover":
			return d.hover(off), nil
		}
		return d.definition(off), nil
	case "textDocument/documentSymbol", "textDocument/formatting":
		var p DocumentParams
		if err := params(m, &p); err != nil {
			return nil, err
		}
		d, err := s.doc(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		if m.Method == "textDocument/formatting" {
			return d.format()
		}
		return d.symbols(), nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "method not supported: " + m.Method}
}

// analyse analyses the pending document's text and publishes its
// diagnostics.
func (s *Server) analyse() error {
	d := s.pending
	s.pending = nil
	d.update(d.text.src)
	return s.publish(d)
}

// changes reports whether m is a didChange of the document uri.
func (s *Server) changes(m *message, uri string) bool {
	if m.Method != "textDocument/didChange" {
		return false
	}
	var p DidChangeTextDocumentParams
	return json.Unmarshal(m.Params, &p) == nil && p.TextDocument.URI == uri
}

// publish sends the document's diagnostics.
func (s *Server) publish(d *document) error {
	v := d.version
	return s.conn.notify("textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: d.diagnostics()})
}

// doc returns an open document.
func (s *Server) doc(uri string) (*document, error) {
	d, ok := s.docs[uri]
	if !ok {
		open := make([]string, 0, len(s.docs))
		for u := range s.docs {
			open = append(open, u)
		}
		slices.Sort(open)
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("%s is not open (open: %v)", uri, open)}
	}
	return d, nil
}

// params decodes a message's parameters.
func params(m *message, v any) error {
	if err := json.Unmarshal(m.Params, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("%s: bad parameters: %v", m.Method, err)}
	}
	return nil
}

// applyChange applies one content change to src.
func applyChange(src string, c TextDocumentContentChangeEvent) string {
	if c.Range == nil {
		return c.Text
	}
	t := newText(src)
	start, end := t.offset(c.Range.Start), t.offset(c.Range.End)
	if end < start {
		start, end = end, start
	}
	return src[:start] + c.Text + src[end:]
}
