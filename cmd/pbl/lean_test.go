package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
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
// each with the reason. Start-up microseconds alone are no longer one
// (issue 28: pbl help may take up to 3× an empty Go program, which
// BenchmarkStartup measures); so image/png, encoding/xml, net/url and
// gonum.org/v1/plot are linked. A pattern ending in "/..." forbids a
// package and everything under it.
var startupForbidden = []struct{ pattern, why string }{
	{"net", "package net makes pbl a cgo, dynamically linked binary (ld.so and x_cgo_init on every start); lsp reads its headers by hand for this"},
	{"runtime/cgo", "cgo start-up (the dynamic loader, a thread set up by C) costs about 1 ms a run, and a static binary is what pbl ships"},
	{"encoding/gob", "gob's package init takes about 0.1 ms and 420 allocations a run; learn.Counts encode by hand"},
	{"runtime/metrics", "its package init takes about 0.09 ms and 95 allocations a run; the load's memory budget reads runtime.MemStats"},
	{"github.com/alecthomas/participle/v2/...", "pbl parses by hand (positions and error messages of its own); only tests build participle parsers (grammar/pgrammar)"},
	{"regexp", "its presence keeps unicode's category and script tables, built at init (about 0.05 ms a run); pbl test --run takes a glob (cmd/pbl/pattern.go)"},
}

// startupLimit is how many times an empty Go program's start-up pbl help
// may take (issue 28).
const startupLimit = 3

// BenchmarkStartup builds pbl and an empty Go program and runs pbl help
// and the program alternately, 60 times each per b.N, and reports the
// ratio of the fastest runs (x-empty; the budget is startupLimit):
// performance is measured, not asserted in tests.
//
//	go test -run '^$' -bench Startup -benchtime 1x ./cmd/pbl (The
//
// fastest runs, because the machine may be shared: a run slowed by
// another process says nothing of pbl.) docs/performance.md "Start-up"
// has the measurement with more runs.
func BenchmarkStartup(b *testing.B) {
	t := b
	dir := t.TempDir()
	bin := filepath.Join(dir, "pbl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(dir, "e"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "e", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", empty, "main.go")
	build.Dir = filepath.Join(dir, "e")
	build.Env = append(os.Environ(), "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of an empty program: %v\n%s", err, out)
	}
	fastest := func(args ...string) time.Duration {
		start := time.Now()
		if err := exec.Command(args[0], args[1:]...).Run(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return time.Since(start)
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	t.ResetTimer()
	for b.Loop() {
		for range 60 {
			best[0] = min(best[0], fastest(empty))
			best[1] = min(best[1], fastest(bin, "help"))
		}
	}
	b.ReportMetric(float64(best[1])/float64(best[0]), "x-empty")
	b.ReportMetric(float64(best[0].Microseconds()), "µs-empty")
	b.ReportMetric(float64(best[1].Microseconds()), "µs-help")
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
				t.Errorf("pbl depends on %s, which it must not: %s", p, f.why)
			}
		}
	}
}

// libraries are the well-kept libraries the pbl command uses rather than
// code of its own (issue 28): PNG with image/png, drawing with
// gonum.org/v1/plot's image back end, XMLBIF with encoding/xml, the
// language server's file: URIs with net/url.
var libraries = []string{"image/png", "gonum.org/v1/plot/vg/vgimg", "encoding/xml", "net/url"}

// TestLibraries fails if the pbl command does not link each of
// libraries (go list -deps).
func TestLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range libraries {
		if !slices.Contains(deps, p) {
			t.Errorf("pbl does not link %s", p)
		}
	}
}
