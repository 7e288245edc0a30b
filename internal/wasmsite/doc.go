// Package wasmsite writes the static site of pbl serve's page for the
// browser alone (docs/serve.md): it builds cmd/pbl-wasm for GOOS=js
// GOARCH=wasm with the go command, and writes the module, Go's
// wasm_exec.js, the page and the examples (serve.WriteStatic). It needs
// the Go toolchain and pbl's source (the module github.com/pbl-lang/pbl
// found by go list from the working directory). `go run ./cmd/pbl-wasm
// DIR` and `pbl serve --export DIR` run it.
package wasmsite
