package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
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
	tp := textproto.NewReader(c.r)
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		if errors.Is(err, io.EOF) && len(h) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("%w: %v", errFraming, err)
	}
	v := h.Get("Content-Length")
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: Content-Length %q", errFraming, v)
	}
	if n > maxMessage {
		return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d", errFraming, n, maxMessage)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, fmt.Errorf("%w: %v", errFraming, err)
	}
	return body, nil
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
