// Command pbl-wasm is pbl's loader and engines compiled to WebAssembly
// (GOOS=js GOARCH=wasm) for the page of pbl serve in the browser alone:
// the static build of docs/serve.md. It registers two JavaScript
// functions:
//
//	pblOpen(name, source)     // opens examples/NAME with source: "" or an error's text
//	pblCall(method, json)     // a Promise of the answer's JSON (serve.Session.Call)
//
// The page (web/src/wasm.js) serves the files to Go's os package through
// a file system of its own (globalThis.fs, which wasm_exec.js uses), so
// that a model's imports are read by the same loader as on a disk.
package main
