package formattest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// CorpusPath returns the path of elem in the corpus, whether or not it
// exists.
func CorpusPath(elem ...string) string {
	return filepath.Join(append([]string{corpusRoot()}, elem...)...)
}

// corpusRoot returns $PBL_CORPUS, or else ../shared/corpus from the
// directory of go.mod, the nearest at or above the working directory.
func corpusRoot() string {
	if d := os.Getenv("PBL_CORPUS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "corpus")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Corpus returns the directory sub of the corpus, skipping the test if it
// does not exist.
func Corpus(tb testing.TB, sub string) string {
	tb.Helper()
	dir := CorpusPath(sub)
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("corpus directory not found (%v); set PBL_CORPUS to the corpus directory", err)
	}
	return dir
}

// Files returns the contents of the files that match the glob patterns, in
// order. A pattern that matches nothing, and a file that cannot be read,
// add nothing.
func Files(patterns ...string) [][]byte {
	var srcs [][]byte
	for _, pattern := range patterns {
		paths, _ := filepath.Glob(pattern)
		for _, path := range paths {
			if src, err := os.ReadFile(path); err == nil {
				srcs = append(srcs, src)
			}
		}
	}
	return srcs
}

// Seed adds the files that match the glob patterns to f's seed corpus.
func Seed(f *testing.F, patterns ...string) {
	for _, src := range Files(patterns...) {
		f.Add(src)
	}
}

// Twins calls check, in a subtest named NAME, for each file NAME+ext in
// the corpus directory sub, read by read, and its BIF twin bif/NAME.bif,
// read by readBIF: the same network in two formats. It skips if there is
// no such file.
func Twins(t *testing.T, sub, ext string, read, readBIF func(path string) (*ir.Model, error), check func(t *testing.T, name string, got, want *ir.Model)) {
	dir, bifDir := Corpus(t, sub), Corpus(t, "bif")
	files, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil || len(files) == 0 {
		t.Skipf("no %s files in %s", ext, dir)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ext)
		t.Run(name, func(t *testing.T) {
			got, err := read(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := readBIF(filepath.Join(bifDir, name+".bif"))
			if err != nil {
				t.Fatalf("BIF twin: %v", err)
			}
			check(t, name, got, want)
		})
	}
}
