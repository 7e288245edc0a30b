package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// FuzzReadEdges: an edge file never panics; an error names the file and
// a line; the edges read name variables that exist, never a self-loop.
func FuzzReadEdges(f *testing.F) {
	for _, s := range []string{
		"a -> b\n", "# c\n\n\"a\" -> \"c\"\n", "a -> a\n", "a b\n", "x -> b\n", "->\n", "a -> b -> c\n", "\xff -> a",
	} {
		f.Add(s)
	}
	names := []string{"a", "b", "c"}
	dir := f.TempDir()
	pos := regexp.MustCompile(`^.*edges\.txt:[0-9]+: `)
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(dir, "edges.txt")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		edges, err := readEdges(path, names)
		if err != nil {
			var list ir.ErrorList
			if !errors.As(err, &list) {
				return // a read error (a line too long)
			}
			for _, e := range list {
				if !pos.MatchString(e.Error()) {
					t.Errorf("error %q: not positioned", e.Error())
				}
			}
			return
		}
		for _, e := range edges {
			if e[0] < 0 || e[0] >= len(names) || e[1] < 0 || e[1] >= len(names) || e[0] == e[1] {
				t.Errorf("edge %v read from %q", e, src)
			}
		}
	})
}
