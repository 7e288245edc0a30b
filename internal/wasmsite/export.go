package wasmsite

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pbl-lang/pbl/serve"
)

// Export writes the static site to dir; the go command's messages go to
// log.
func Export(dir string, log io.Writer) error {
	root, err := goOutput(log, nil, "list", "-f", "{{.Dir}}", "github.com/pbl-lang/pbl")
	if err != nil {
		return err
	}
	goroot, err := goOutput(log, nil, "env", "GOROOT")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	wasm := filepath.Join(dir, "pbl.wasm")
	if _, err := goOutput(log, []string{"GOOS=js", "GOARCH=wasm"}, "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "github.com/pbl-lang/pbl/cmd/pbl-wasm"); err != nil {
		return err
	}
	w, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	var wasmExec []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if wasmExec, err = os.ReadFile(filepath.Join(goroot, p)); err == nil {
			break
		}
	}
	if err != nil {
		return err
	}
	return serve.WriteStatic(dir, serve.Static{Wasm: w, WasmExec: wasmExec, Examples: os.DirFS(filepath.Join(root, "examples"))})
}

// goOutput runs the go command with env added to the environment and
// returns its standard output, trimmed.
func goOutput(log io.Writer, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = log
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
