//go:build !(js && wasm)

package main

// Built for the machine it runs on, pbl-wasm writes the static site: it
// builds itself for the browser (GOOS=js GOARCH=wasm) and writes the page,
// the module, Go's wasm_exec.js and the examples to a folder
// (internal/wasmsite):
//
//	go run ./cmd/pbl-wasm DIR
//
// Any static file server then serves DIR (python3 -m http.server -d DIR).

import (
	"fmt"
	"os"
	"strings"

	"github.com/pbl-lang/pbl/internal/wasmsite"
)

func main() {
	if len(os.Args) != 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: go run ./cmd/pbl-wasm DIR\n\nwrites the page of pbl serve for the browser alone (WebAssembly) to DIR")
		os.Exit(2)
	}
	if err := wasmsite.Export(os.Args[1], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pbl-wasm:", err)
		os.Exit(1)
	}
}
