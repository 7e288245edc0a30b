package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteErrors: a command whose output cannot be written (stdout on
// /dev/full) exits 1 and says so; none exits 0 with its output lost.
func TestWriteErrors(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	os.WriteFile(csv, []byte("Storm,Lightning\ntrue,true\nfalse,false\n"), 0o644)
	structure := filepath.Join(dir, "s.pbl")
	os.WriteFile(structure, []byte("var Storm, Lightning: bool\nStorm -> Lightning\n"), 0o644)
	campfire := "../../examples/campfire.pbl"
	// pbl test on every example takes a minute under the race detector,
	// where one example reaches the same writes (TestExamples runs them
	// all in every run).
	examples := "../../examples"
	if !heavy() {
		examples = campfire
	}
	for _, args := range [][]string{
		{"help"},
		{"help", "query"},
		{"run", campfire},
		{"query", campfire, "P(Storm)"},
		{"query", "--json", campfire, "P(Storm)"},
		{"check", campfire},
		{"test", examples},
		{"learn", structure, "--data", csv},
		{"classify", campfire, "--target", "Storm", "--data", csv},
		{"sample", campfire, "-n", "10"},
		{"convert", "--json", campfire, filepath.Join(dir, "out.bif")},
		{"uai", "--task", "PR", "../../examples/asia.pbl"},
	} {
		var stderr bytes.Buffer
		code := run(args, full, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), "write error") {
			t.Errorf("pbl %s > /dev/full: exit %d, stderr %q; want exit 1 and a write error", strings.Join(args, " "), code, stderr.String())
		}
	}
}
