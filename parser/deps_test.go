package parser_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/pbl-lang/pbl"

// moduleDeps returns the packages of this module that the package in
// directory dir (relative to the module's root, root) imports, directly or
// not, leaving out test files, each with the chain of imports that reaches
// it. It reads the import clauses with go/build, so it needs no go command.
func moduleDeps(t *testing.T, root, dir string) map[string]string {
	t.Helper()
	chain := map[string]string{}
	var walk func(dir, via string)
	walk = func(dir, via string) {
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), 0)
		if err != nil {
			t.Fatalf("reading %s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			rest, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if _, seen := chain[rest]; seen {
				continue
			}
			chain[rest] = via + " -> " + rest
			walk(rest, chain[rest])
		}
	}
	walk(dir, dir)
	return chain
}

// TestSyntaxBelowIR: the syntax layers (positions, the grammar, the
// parser) sit below the semantic layer, as go/token and go/parser sit
// below go/types: none of them imports ir or a package after it, directly
// or through another. (go list -deps ./parser lists no ir.)
func TestSyntaxBelowIR(t *testing.T) {
	allowed := map[string]bool{"loc": true, "grammar": true, "parser": true}
	for _, dir := range []string{"loc", "grammar", "parser"} {
		for dep, via := range moduleDeps(t, "..", dir) {
			if !allowed[dep] {
				t.Errorf("%s imports %s/%s (%s); the syntax layers import only %s/loc and %s/grammar",
					dir, module, dep, via, module, module)
			}
		}
	}
	if deps := moduleDeps(t, "..", "loc"); len(deps) != 0 {
		t.Errorf("loc imports packages of pbl (%v); it must be the bottom of the pipeline", deps)
	}
}
