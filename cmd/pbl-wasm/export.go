//go:build !(js && wasm)

package main

// Built for the machine it runs on, pbl-wasm writes the static site: it
// builds itself for the browser (GOOS=js GOARCH=wasm) and writes the page,
// the module, Go's wasm_exec.js and the examples to a folder:
//
//	go run ./cmd/pbl-wasm DIR
//
// Any static file server then serves DIR (python3 -m http.server -d DIR).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pbl-lang/pbl/serve"
)

func main() {
	if len(os.Args) != 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: go run ./cmd/pbl-wasm DIR\n\nwrites the page of pbl serve for the browser alone (WebAssembly) to DIR")
		os.Exit(2)
	}
	if err := export(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "pbl-wasm:", err)
		os.Exit(1)
	}
}

func export(dir string) error {
	root, err := goOutput(nil, "list", "-f", "{{.Dir}}", "github.com/pbl-lang/pbl")
	if err != nil {
		return err
	}
	goroot, err := goOutput(nil, "env", "GOROOT")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	wasm := filepath.Join(dir, "pbl.wasm")
	if _, err := goOutput([]string{"GOOS=js", "GOARCH=wasm"}, "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "github.com/pbl-lang/pbl/cmd/pbl-wasm"); err != nil {
		return err
	}
	w, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	var exec []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if exec, err = os.ReadFile(filepath.Join(goroot, p)); err == nil {
			break
		}
	}
	if err != nil {
		return err
	}
	return serve.WriteStatic(dir, serve.Static{Wasm: w, WasmExec: exec, Examples: os.DirFS(filepath.Join(root, "examples"))})
}

// goOutput runs the go command with env added to the environment and
// returns its standard output, trimmed.
func goOutput(env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
