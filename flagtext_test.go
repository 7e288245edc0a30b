package pbl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flagInText is a command-line flag inside a string: two dashes and a
// letter.
var flagInText = regexp.MustCompile(`--[A-Za-z]`)

// flagTextAllowed lists the string literals of library packages allowed
// to name a flag, as "file: literal" (the literal as written in the
// source), each with the reason: none today.
var flagTextAllowed = map[string]string{}

// TestLibraryNamesNoFlag: no string literal of a package but cmd/pbl's
// (tests, testdata and comments aside: comments are not literals) names a
// command-line flag. A library's errors carry kinds and facts (an
// infer.TooLargeError's Instead, a structure.MaxParentsError's Limit);
// only cmd/pbl, the REPL's colon commands aside, phrases them in terms of
// its flags, so that a program calling the library reads messages that
// make sense without a command line.
func TestLibraryNamesNoFlag(t *testing.T) {
	type found struct{ pos, text string }
	got := map[string][]found{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "cmd", "testdata", "vendor", "shared":
				return filepath.SkipDir
			}
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			if flagInText.MatchString(s) {
				key := filepath.ToSlash(path)
				got[key] = append(got[key], found{fset.Position(lit.Pos()).String(), key + ": " + lit.Value})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, lits := range got {
		for _, lit := range lits {
			if _, ok := flagTextAllowed[lit.text]; !ok {
				t.Errorf("%s: %s names a command-line flag: give the error a kind and facts, and phrase the flag in cmd/pbl", lit.pos, lit.text)
			}
		}
	}
}
