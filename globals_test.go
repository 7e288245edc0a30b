package pbl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
)

// processWide are the functions that change a setting of the whole
// process, by import path and name. A library must leave them to the
// program that embeds it (issue 28, item 6): the pbl command's memory
// and GC policy is in cmd/pbl (loadmem.go, gcpolicy.go).
var processWide = map[string][]string{
	"runtime/debug": {"SetMemoryLimit", "SetGCPercent", "SetMaxStack", "SetMaxThreads", "SetPanicOnFault", "SetTraceback"},
	"runtime":       {"GOMAXPROCS", "LockOSThread"},
	"os":            {"Setenv", "Unsetenv", "Clearenv", "Chdir"},
	"os/signal":     {"Notify", "Ignore", "Reset"},
}

// TestNoProcessWideSettings parses the root package's source (the files
// go build compiles, not the tests) and fails at every call of a function
// of processWide, by whatever name its package is imported.
func TestNoProcessWideSettings(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "pbl" {
			continue
		}
		checked++
		local := map[string]string{} // local name → import path
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			n := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				n = im.Name.Name
			}
			local[n] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			for _, fn := range processWide[local[id.Name]] {
				if sel.Sel.Name == fn {
					t.Errorf("%s: package pbl uses %s.%s, which changes a process-wide setting; that belongs to cmd/pbl", fset.Position(sel.Pos()), local[id.Name], fn)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("parsed %d files of package pbl, want the package's source", checked)
	}
}

// TestLoadLeavesMemoryLimit: loading a .pbl model, with or without
// LoadOptions.MemoryBudget, leaves the runtime's memory limit as the
// program set it, during the load and after; the budgets are given to
// the hook, in proportion to the source, and each is released once.
func TestLoadLeavesMemoryLimit(t *testing.T) {
	const limit = 5 << 30
	old := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(old)
	dir := t.TempDir()
	src := generatedModel(1 << 16)
	path := filepath.Join(dir, "m.pbl")
	if err := os.WriteFile(path, src, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := pbl.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("after LoadFile: memory limit %d, want %d", got, limit)
	}
	var given, released int64
	hook := func(b int64) func() {
		if got := debug.SetMemoryLimit(-1); got != limit {
			t.Errorf("during the load: memory limit %d, want %d", got, limit)
		}
		given += b
		done := false
		return func() {
			if done {
				t.Error("a budget released twice")
			}
			done = true
			released += b
		}
	}
	if _, err := pbl.LoadFileWith(path, pbl.LoadOptions{MemoryBudget: hook}); err != nil {
		t.Fatal(err)
	}
	if _, err := pbl.LoadWith("m.pbl", src, pbl.LoadOptions{MemoryBudget: hook}); err != nil {
		t.Fatal(err)
	}
	if want := 2 * 3 * int64(len(src)); given != want || released != given {
		t.Errorf("budgets given %d, released %d; want %d (3 bytes per byte of source, twice)", given, released, want)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("after the loads: memory limit %d, want %d", got, limit)
	}
}
