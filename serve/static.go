package serve

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Static is the page in the browser alone: what WriteStatic writes.
type Static struct {
	Wasm     []byte // cmd/pbl-wasm built with GOOS=js GOARCH=wasm
	WasmExec []byte // Go's lib/wasm/wasm_exec.js, of the toolchain that built Wasm
	Examples fs.FS  // the models to offer (*.pbl at its root) and the files they read
}

// staticMarker makes the page start the WebAssembly module rather than
// call a server (web/src/api.js).
const staticMarker = `<script>window.PBL_STATIC = true</script>`

// WriteStatic writes the static site to dir: index.html, app.js and
// app.css (the page), pbl.wasm and wasm_exec.js, and examples/ with
// site.json listing its models and files (the files are read by Go's os
// package through web/src/memfs.js). The site needs no server of its own:
// any static file server serves it.
func WriteStatic(dir string, st Static) error {
	index, err := fs.ReadFile(Assets(), "index.html")
	if err != nil {
		return err
	}
	index = bytes.Replace(index, []byte(`<script src="app.js" defer></script>`), []byte(staticMarker+"\n"+`<script src="app.js" defer></script>`), 1)
	out := map[string][]byte{"index.html": index, "pbl.wasm": st.Wasm, "wasm_exec.js": st.WasmExec}
	for _, name := range []string{"app.js", "app.css"} {
		b, err := fs.ReadFile(Assets(), name)
		if err != nil {
			return err
		}
		out[name] = b
	}
	var site struct {
		Models []string `json:"models"`
		Files  []string `json:"files"`
	}
	err = fs.WalkDir(st.Examples, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch path.Ext(p) {
		case ".pbl", ".csv", ".bif", ".xmlbif", ".net", ".uai":
		default:
			return nil
		}
		b, err := fs.ReadFile(st.Examples, p)
		if err != nil {
			return err
		}
		out["examples/"+p] = b
		site.Files = append(site.Files, p)
		if path.Ext(p) != ".csv" && !strings.Contains(p, "/") {
			site.Models = append(site.Models, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(site.Models)
	slices.Sort(site.Files)
	b, err := json.Marshal(site)
	if err != nil {
		return err
	}
	out["examples/site.json"] = b
	for name, b := range out {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
