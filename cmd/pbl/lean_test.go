package main

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestNoBeam fails if the pbl command links the Apache Beam SDK, or the
// main module requires it: Beam belongs to cmd/pbl-beam, a module of its
// own, to which pbl hands over (runner.go).
func TestNoBeam(t *testing.T) {
	const beam = "github.com/apache/beam"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	for _, d := range info.Deps {
		if strings.HasPrefix(d.Path, beam) {
			t.Errorf("pbl links %s %s", d.Path, d.Version)
		}
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mod), beam) {
		t.Errorf("the main module's go.mod requires %s", beam)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if !strings.Contains(string(out), "github.com/pbl-lang/pbl/ir\n") {
		t.Fatalf("go list -deps . does not list pbl's own packages:\n%s", out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, beam) {
			t.Errorf("pbl depends on %s", p)
		}
	}
}
