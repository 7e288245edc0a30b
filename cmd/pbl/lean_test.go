package main

import (
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestNoBeam fails if the pbl command links the Apache Beam SDK, or the
// main module requires it: Beam belongs to cmd/pbl-beam, a module of its
// own, to which pbl hands over (runner.go).
func TestNoBeam(t *testing.T) { notLinked(t, "github.com/apache/beam") }

// notLinked fails t if the pbl command links a package of module (by the
// test binary's build information and by go list -deps), or the main
// module's go.mod requires it.
func notLinked(t *testing.T, module string) {
	t.Helper()
	in := func(p string) bool { return p == module || strings.HasPrefix(p, module+"/") }
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	for _, d := range info.Deps {
		if in(d.Path) {
			t.Errorf("pbl links %s %s", d.Path, d.Version)
		}
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mod), module) {
		t.Errorf("the main module's go.mod requires %s", module)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if !strings.Contains(string(out), "github.com/pbl-lang/pbl/ir\n") {
		t.Fatalf("go list -deps . does not list pbl's own packages:\n%s", out)
	}
	for _, p := range strings.Fields(string(out)) {
		if in(p) {
			t.Errorf("pbl depends on %s", p)
		}
	}
}

// startupForbidden are the packages the pbl command must not depend on,
// each with the reason: issue 16 asks that pbl help start within 0.5 ms of
// an empty Go program, and these cost every run at start-up. A pattern
// ending in "/..." forbids a package and everything under it.
var startupForbidden = []struct{ pattern, why string }{
	{"net", "package net makes pbl a cgo, dynamically linked binary (ld.so and x_cgo_init on every start); lsp reads its headers by hand for this"},
	{"runtime/cgo", "cgo start-up (the dynamic loader, a thread set up by C) costs about 1 ms a run"},
	{"encoding/gob", "gob's package init takes about 0.1 ms and 420 allocations a run; learn.Counts encode by hand"},
	{"runtime/metrics", "its package init takes about 0.09 ms and 95 allocations a run; the load's memory budget reads runtime.MemStats"},
	{"github.com/alecthomas/participle/v2/...", "its lexer compiles a regexp at init (0.05 ms and a stack growth a run) and the library adds code to page in; pbl parses by hand, and only tests build participle parsers (grammar/pgrammar)"},
	{"regexp", "its presence keeps unicode's category and script tables, built at init (about 0.05 ms a run); pbl test --run takes a glob (cmd/pbl/pattern.go)"},
	{"encoding/xml", "its init builds a 250-entry entity map every run; formats/xmlbif has its own tokenizer and internal/figure escapes SVG text by hand"},
	{"golang.org/x/image/vector", "its init probes the CPU (CPUID, a trap to the hypervisor in a VM); internal/figure rasterizes outlines itself (raster.go)"},
	{"golang.org/x/image/font/opentype", "it brings x/image/vector; internal/figure fills sfnt's glyph outlines itself"},
	{"image/png", "its init registers the format, and it brings image/draw's code and the decoder's; internal/figure encodes PNG itself (pngenc.go)"},
}

// TestStartupDeps fails if the pbl command depends on a package of
// startupForbidden (go list -deps), saying why it must not.
func TestStartupDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/pbl-lang/pbl/ir") || !slices.Contains(deps, "runtime") {
		t.Fatalf("go list -deps . does not list pbl's packages and the runtime:\n%s", out)
	}
	for _, f := range startupForbidden {
		for _, p := range deps {
			root, tree := strings.CutSuffix(f.pattern, "/...")
			if p == root || tree && strings.HasPrefix(p, root+"/") {
				t.Errorf("pbl depends on %s, which it must not for its start-up time (issue 16): %s", p, f.why)
			}
		}
	}
}
