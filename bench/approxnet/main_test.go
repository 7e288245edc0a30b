package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/uai"
)

// TestGenerate: every kind writes files that pbl's readers accept, with
// evidence on the fraction asked for, and the same seed writes the same
// bytes (another seed, other bytes).
func TestGenerate(t *testing.T) {
	tests := []struct {
		args  []string
		nvars int
		bn    bool
	}{
		{[]string{"-kind", "grid", "-n", "6", "-observe", "0.25"}, 36, false},
		{[]string{"-kind", "bn", "-n", "40", "-k", "3", "-window", "10", "-observe", "0.25"}, 40, true},
		{[]string{"-kind", "diag", "-n", "10", "-m", "30", "-k", "4", "-observe", "0.25"}, 40, true},
		{[]string{"-kind", "diag", "-n", "10", "-m", "30", "-k", "4", "-observe", "0.25", "-positive", "0.5"}, 40, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			read := func(seed string) map[string][]byte {
				dir := t.TempDir()
				args := append(append([]string(nil), tt.args...), "-seed", seed, "-out", dir, "-name", "net")
				if code := run(args); code != 0 {
					t.Fatalf("run %v: exit %d", args, code)
				}
				files := map[string][]byte{}
				for _, ext := range []string{".uai", ".uai.evid", ".bif"} {
					b, err := os.ReadFile(filepath.Join(dir, "net"+ext))
					if err == nil {
						files[ext] = b
					}
				}
				m, err := uai.Read("net.uai", files[".uai"])
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Vars) != tt.nvars || m.IsBayesNet() != tt.bn {
					t.Fatalf("%d variables (Bayesian network %v), want %d (%v)", len(m.Vars), m.IsBayesNet(), tt.nvars, tt.bn)
				}
				ev, err := uai.ReadEvidence("net.uai.evid", files[".uai.evid"], m)
				if err != nil {
					t.Fatal(err)
				}
				if want := tt.nvars / 4; len(ev) != want {
					t.Errorf("%d observations, want %d", len(ev), want)
				}
				if _, ok := files[".bif"]; ok != tt.bn {
					t.Fatalf("bif written: %v, want %v", ok, tt.bn)
				}
				if tt.bn {
					if _, err := bif.Read("net.bif", files[".bif"]); err != nil {
						t.Fatal(err)
					}
				}
				return files
			}
			a, b, c := read("7"), read("7"), read("8")
			for ext := range a {
				if !bytes.Equal(a[ext], b[ext]) {
					t.Errorf("%s differs between two runs with the same seed", ext)
				}
			}
			if bytes.Equal(a[".uai"], c[".uai"]) {
				t.Errorf("seeds 7 and 8 give the same network")
			}
		})
	}
}
