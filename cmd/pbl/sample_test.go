package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runPBL(args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = run(args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestSampleExitCodes(t *testing.T) {
	campfire := "../../examples/campfire.pbl"
	dir := t.TempDir()
	markov := filepath.Join(dir, "pair.uai")
	if err := os.WriteFile(markov, []byte(pairUAI), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
		err  string // a substring of stderr
	}{
		{[]string{"sample", campfire, "-n", "3"}, 0, ""},
		{[]string{"sample", "-n=3", "--seed", "9", "--missing", "0.5", campfire}, 0, ""},
		{[]string{"sample", campfire}, 2, "-n N is required"},
		{[]string{"sample", campfire, "-n", "0"}, 2, "-n N is required"},
		{[]string{"sample", campfire, "-n", "-5"}, 2, "-n -5: want at least 1 sample"},
		{[]string{"sample", campfire, "-n", "many"}, 2, "invalid value"},
		{[]string{"sample", campfire, "-n", "3", "--missing", "1"}, 2, "not a fraction in [0, 1)"},
		{[]string{"sample", campfire, "-n", "3", "--missing", "-0.1"}, 2, "not a fraction"},
		{[]string{"sample", campfire, "-n", "3", "--missing", "NaN"}, 2, "not a fraction"},
		{[]string{"sample", campfire, "-n", "3", "--seed", "-1"}, 2, "invalid value"},
		{[]string{"sample", campfire, "-n", "3", "--json"}, 2, "--json needs -o"},
		{[]string{"sample", "-n", "3"}, 2, "want one model file"},
		{[]string{"sample", campfire, campfire, "-n", "3"}, 2, "want one model file"},
		{[]string{"sample", "nosuch.pbl", "-n", "3"}, 1, "nosuch.pbl"},
		{[]string{"sample", markov, "-n", "3"}, 1, "cannot sample a Markov network"},
		{[]string{"sample", campfire, "-n", "3", "-o", filepath.Join(dir, "no", "such", "dir.csv")}, 1, "dir.csv: no such file or directory"},
		{[]string{"sample", campfire, "-n", "3", "-o", dir}, 1, dir},
	} {
		code, stdout, stderr := runPBL(tc.args...)
		if code != tc.want || !strings.Contains(stderr, tc.err) {
			t.Errorf("pbl %s: exit %d, stderr %q; want exit %d, stderr containing %q", strings.Join(tc.args, " "), code, stderr, tc.want, tc.err)
		}
		if code != 0 && stdout != "" {
			t.Errorf("pbl %s failed but printed %q", strings.Join(tc.args, " "), stdout)
		}
	}
	// The failed writes left nothing behind.
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("files left in %s: %q", dir, names)
	}
	// -o DIR wrote its temporary file beside DIR, and removed it.
	if names, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*.tmp*")); len(names) != 0 {
		t.Errorf("temporary files left: %q", names)
	}
}

// TestSampleOutput checks that -o writes what stdout would show, that the
// flags are reset between invocations, and the --json summary.
func TestSampleOutput(t *testing.T) {
	asia := "../../examples/asia.pbl"
	code, want, stderr := runPBL("sample", asia, "-n", "10000", "--seed", "3", "--missing", "0.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := strings.Count(want, "\n"); lines != 10001 {
		t.Errorf("%d lines, want 10001", lines)
	}
	out := filepath.Join(t.TempDir(), "asia.csv")
	code, stdout, stderr := runPBL("sample", "--json", asia, "-n", "10000", "-o", out, "--missing=0.1", "--seed=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != want {
		t.Errorf("-o wrote a different file (%v)", err)
	}
	var res struct {
		Rows, Columns int
		Output        string
		Seconds       *float64
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Rows != 10000 || res.Columns != 8 || res.Output != out || res.Seconds == nil || *res.Seconds < 0 {
		t.Errorf("--json printed %q (%v)", stdout, err)
	}
	// Defaults again: seed 1, nothing missing.
	_, a, _ := runPBL("sample", asia, "-n", "50")
	_, b, _ := runPBL("sample", asia, "-n", "50", "--seed", "1")
	if a != b || strings.Contains(a, ",,") {
		t.Errorf("the flags' defaults did not come back")
	}
}

func TestStreamAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := streamAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "out.csv") {
		t.Errorf("got %v, want boom naming out.csv", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("a failed write changed the file to %q", got)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("files left in %s: %q", dir, names)
	}
}

func TestStreamAtomicWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := streamAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "a,b\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "a,b\n" {
		t.Errorf("wrote %q", got)
	}
}
