package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// maxMessage is the largest message body read: a bigger Content-Length is
// an error, not an allocation.
const maxMessage = 64 << 20

// A message is an incoming JSON-RPC 2.0 request or notification (or a
// response to a request of ours, which the server does not send).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	// A response's members: a message with either is the client's
	// answer to a request, which the server never sends.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// decode reads a message's body: a JSON object whose id, if any, is a
// number or a string. Any other JSON is an invalid request (a batch, an
// array, which LSP never sends, among them), reported with the code the
// client is to be answered with.
func decode(body []byte) (*message, *rpcError) {
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		return nil, &rpcError{Code: codeParseError, Message: "not JSON: " + err.Error()}
	}
	switch t := bytes.TrimSpace(body); {
	case len(t) > 0 && t[0] == '[':
		return nil, &rpcError{Code: codeInvalidRequest, Message: "batches are not supported"}
	case len(t) == 0 || t[0] != '{':
		return nil, &rpcError{Code: codeInvalidRequest, Message: "a message is a JSON object"}
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "not a JSON-RPC message: " + err.Error()}
	}
	if id := bytes.TrimSpace(m.ID); len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') && string(id) != "null" {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "the id must be a number or a string, not " + string(id)}
	}
	return &m, nil
}

// isResponse reports whether m is a response (from the client) rather
// than a request or a notification.
func (m *message) isResponse() bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// A response answers a request: Result (JSON null when there is nothing)
// or Error.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// A notification is a message of ours that asks for no response.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// isRequest reports whether m asks for a response (it has an id).
func (m *message) isRequest() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// An rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// JSON-RPC and LSP error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeNotInitialized = -32002
	codeRequestFailed  = -32803
)

// errFraming is the kind of error of a malformed header or body length.
var errFraming = errors.New("lsp: bad message framing")

// A conn reads and writes framed messages.
type conn struct {
	r  *bufio.Reader
	mu sync.Mutex // serialises writes
	w  io.Writer
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{r: bufio.NewReader(r), w: w}
}

// read returns the next message's body. It returns io.EOF at the end of
// the stream between messages.
func (c *conn) read() ([]byte, error) {
	return ReadMessage(c.r)
}

// ReadMessage reads the next message of the base protocol from r (a
// header part with its Content-Length, then the body) and returns its
// body; io.EOF at the end of the stream between messages. A client of a
// language server reads its replies with it (package serve does), without
// net/textproto, which would link package net.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	n, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("%w: %v", errFraming, err)
	}
	return body, nil
}

// maxHeader is the most bytes a message's header part may take: a client
// sends two short lines, and a stream of header lines that does not end
// is an error, not a wait.
const maxHeader = 16 << 10

// readHeader reads a message's header part and returns its Content-Length.
// It returns io.EOF if the stream ends before the header's first byte.
//
// The base protocol's header part is a sequence of "Name: value" lines,
// each ended by CRLF, then an empty line. A line ended by a bare LF is
// accepted too, as net/textproto (which this replaces, to keep package net
// out of the binary) did. Names are compared without regard to case, and a
// value's surrounding spaces and tabs are dropped. Content-Length, a
// decimal count of the body's bytes, is required, at most once; any other
// header (Content-Type among them) is accepted and ignored. A name that is
// not an RFC 9110 token, a line without a colon, a continuation line and a
// value holding control characters are errors, all of the kind errFraming.
func readHeader(r *bufio.Reader) (int, error) {
	length, seen, size := 0, false, 0
	for {
		line, err := r.ReadSlice('\n')
		size += len(line)
		switch {
		case errors.Is(err, io.EOF) && size == 0:
			return 0, io.EOF
		case errors.Is(err, bufio.ErrBufferFull):
			return 0, fmt.Errorf("%w: a header line longer than %d bytes", errFraming, r.Size())
		case size > maxHeader:
			return 0, fmt.Errorf("%w: a header longer than %d bytes", errFraming, maxHeader)
		case errors.Is(err, io.EOF):
			return 0, fmt.Errorf("%w: %v in the header", errFraming, io.ErrUnexpectedEOF)
		case err != nil:
			return 0, fmt.Errorf("%w: %v", errFraming, err)
		}
		line = line[:len(line)-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !isToken(name) || !isFieldValue(value) {
			return 0, fmt.Errorf("%w: malformed header line %q", errFraming, line)
		}
		if !bytes.EqualFold(name, []byte("Content-Length")) {
			continue
		}
		if seen {
			return 0, fmt.Errorf("%w: more than one Content-Length", errFraming)
		}
		seen = true
		if length, err = parseLength(bytes.Trim(value, " \t")); err != nil {
			return 0, err
		}
	}
	if !seen {
		return 0, fmt.Errorf("%w: no Content-Length", errFraming)
	}
	return length, nil
}

// parseLength returns the value of a Content-Length: decimal digits, at
// most maxMessage.
func parseLength(v []byte) (int, error) {
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: Content-Length %q", errFraming, v)
		}
		if n <= maxMessage { // no overflow: n stops growing past the limit
			n = n*10 + int(c-'0')
		}
	}
	switch {
	case len(v) == 0:
		return 0, fmt.Errorf("%w: Content-Length %q", errFraming, v)
	case n > maxMessage:
		return 0, fmt.Errorf("%w: Content-Length %s is over the limit of %d", errFraming, v, maxMessage)
	}
	return n, nil
}

// isToken reports whether name is an RFC 9110 token, as a header's name
// must be: not empty, no spaces, no separators.
func isToken(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// isFieldValue reports whether v holds no control character but tab,
// the rule net/textproto applied to header values.
func isFieldValue(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// reply answers the request with id: its result, or err. An error that
// is not an *rpcError is reported as a failed request.
func (c *conn) reply(id json.RawMessage, result any, err error) error {
	r := response{JSONRPC: "2.0", ID: id}
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{Code: codeRequestFailed, Message: err.Error()}
		}
		r.Error = re
	} else {
		b, merr := json.Marshal(result)
		if merr != nil {
			return merr
		}
		r.Result = b
	}
	if len(r.ID) == 0 {
		r.ID = json.RawMessage("null")
	}
	return c.send(r)
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	return c.send(notification{JSONRPC: "2.0", Method: method, Params: params})
}

// send writes one message with its header.
func (c *conn) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}
