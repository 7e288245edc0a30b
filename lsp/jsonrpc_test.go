package lsp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestMalformedMessages: what JSON-RPC 2.0 says of messages that are JSON
// but not requests. A batch (LSP sends none) and a request with an id
// that is neither a number nor a string are invalid requests, answered
// with code -32600 and a null id; a response from the client (the server
// asks nothing of it) is not answered; a message with an id and no method
// is an invalid request.
func TestMalformedMessages(t *testing.T) {
	init := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	end := frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)
	tests := []struct {
		name, msg string
		want      string // the reply, "" for none
	}{
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"shutdown"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`},
		{"empty batch", ` []`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the id must be a number or a string, not {\"a\":1}"}}`},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"shutdown"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the id must be a number or a string, not true"}}`},
		{"a response", `{"jsonrpc":"2.0","id":7,"result":null}`, ``},
		{"an error response", `{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"no"}}`, ``},
		{"id without method", `{"jsonrpc":"2.0","id":8}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"a request needs a method"}}`},
		{"JSON that is not an object", `17`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message is a JSON object"}}`},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := Serve(strings.NewReader(init+frame(tt.msg)+end), &out, nil); err != nil {
			t.Errorf("%s: Serve = %v", tt.name, err)
			continue
		}
		c := newConn(&out, nil)
		var replies []string
		for {
			body, err := c.read()
			if err != nil {
				break
			}
			replies = append(replies, string(body))
		}
		// initialize's reply, then the message's (if any), then shutdown's
		if len(replies) < 2 || !strings.Contains(replies[len(replies)-1], `"id":2,"result":null`) {
			t.Errorf("%s: shutdown was not answered after it: %q", tt.name, replies)
			continue
		}
		got := ""
		if len(replies) == 3 {
			got = replies[1]
		} else if len(replies) != 2 {
			t.Errorf("%s: %d replies: %q", tt.name, len(replies), replies)
			continue
		}
		if !jsonEqual(got, tt.want) {
			t.Errorf("%s: reply\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

func jsonEqual(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
