//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"sync"
	"syscall/js"

	"github.com/pbl-lang/pbl/serve"
)

var (
	mu      sync.Mutex
	session *serve.Session
)

func main() {
	// The module runs on the page's one thread: a collection lands on a
	// click. Collect less often (a few MB more for ALARM's junction tree).
	debug.SetGCPercent(400)
	js.Global().Set("pblOpen", js.FuncOf(open))
	js.Global().Set("pblCall", js.FuncOf(call))
	select {}
}

// open opens the model named args[0] with the source args[1].
func open(this js.Value, args []js.Value) any {
	if len(args) != 2 {
		return "pblOpen wants a name and a source"
	}
	name, src := "/examples/"+args[0].String(), args[1].String()
	mu.Lock()
	defer mu.Unlock()
	if session != nil {
		// The old session's language server stops on a goroutine: the
		// page's event loop must not wait for it.
		old := session
		go old.Close()
	}
	s, err := serve.NewSessionSource(name, src)
	if err != nil {
		return err.Error()
	}
	session = s
	return ""
}

// call answers serve.Session.Call(args[0], args[1]) as a Promise of its
// JSON, on a goroutine (a function called from JavaScript must not block).
func call(this js.Value, args []js.Value) any {
	method, body := args[0].String(), []byte(args[1].String())
	mu.Lock()
	s := session
	mu.Unlock()
	handler := js.FuncOf(func(this js.Value, p []js.Value) any {
		resolve := p[0]
		go func() {
			var out any
			var err error
			if s == nil {
				err = errNoModel
			} else {
				out, err = s.Call(context.Background(), method, body)
			}
			if err != nil {
				out = map[string]string{"error": err.Error()}
			}
			b, merr := json.Marshal(out)
			if merr != nil {
				b, _ = json.Marshal(map[string]string{"error": merr.Error()})
			}
			resolve.Invoke(string(b))
		}()
		return nil
	})
	defer handler.Release()
	return js.Global().Get("Promise").New(handler)
}

type noModelError struct{}

func (noModelError) Error() string { return "no model is open" }

var errNoModel = noModelError{}
