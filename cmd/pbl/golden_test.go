package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameLine(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		tol  float64
		want bool
	}{
		{"  true   0.4", "  true   0.4", 0, true},
		{"  true   0.2085106383", "  true   0.2085106384", 1e-9, true},
		{"  true   0.2085106383", "  true   0.2085106384", 1e-11, false},
		{"  true  0.4", "  true   0.4", 0, true}, // alignment only
		{"  true   0.4", "  false  0.4", 1, false},
		{"P(A) = 0.5", "P(A) = 0.6", 1e-9, false},
		{"P(A) = 0.5", "P(A) = 0.5 0.1", 1, false},
		{"p = NaN", "p = NaN", 1, true}, // identical text
		{"p = NaN", "p = 0.5", 1, false},
	} {
		if got := sameLine(tc.a, tc.b, tc.tol); got != tc.want {
			t.Errorf("sameLine(%q, %q, %g) = %v, want %v", tc.a, tc.b, tc.tol, got, tc.want)
		}
	}
}

func TestDiffLines(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	if d, at := diffLines(want, want, 0); d != "" || at != -1 {
		t.Errorf("identical texts differ:\n%s", d)
	}
	got := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"
	wantDiff := "  ...\n  c\n  d\n- e\n+ E\n  f\n  g\n  ...\n  i\n  j\n+ k\n"
	if d, at := diffLines(want, got, 0); d != wantDiff || at != 4 {
		t.Errorf("diff at %d:\n%s\nwant at 4:\n%s", at, d, wantDiff)
	}
	if _, at := diffLines("a\nb\n", "a\n", 0); at != 1 {
		t.Errorf("a deleted last line: at = %d, want 1", at)
	}
	if d, _ := diffLines("x 0.5\n", "x 0.5000000001\n", 1e-9); d != "" {
		t.Errorf("numbers within tolerance differ:\n%s", d)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.golden")
	for _, data := range []string{"first\n", "second\n"} {
		if err := writeAtomic(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := writeAtomic(filepath.Join(dir, "nosuchdir", "x"), nil); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}
