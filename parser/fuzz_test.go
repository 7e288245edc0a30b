package parser_test

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/grammar/pgrammar"
	"github.com/pbl-lang/pbl/loc"
	"github.com/pbl-lang/pbl/parser"
)

// checkErr fails unless a parser returned either a result (got, which is
// nil if there is none) or an error, err, that is a loc.ErrorList of
// errors positioned in filename.
func checkErr[T any](t *testing.T, filename, src string, got *T, err error) {
	t.Helper()
	if (got == nil) == (err == nil) {
		t.Fatalf("%q: the parser returned %v and error %v", src, got, err)
	}
	if err == nil {
		return
	}
	var list loc.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("%q: error %v is a %T, want a non-empty loc.ErrorList", src, err, err)
	}
	for _, e := range list {
		if e == nil {
			t.Fatalf("%q: nil *loc.Error in %v", src, list)
		}
		if e.Pos.File != filename || e.Pos.Line < 1 || e.Pos.Col < 1 {
			t.Fatalf("%q: error %v has position %#v, want %s:line:col", src, e, e.Pos, filename)
		}
	}
}

// participleParse runs participle, which may panic on some inputs; a panic
// counts as a failure to parse.
func participleParse(filename, src string) (f *grammar.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("participle panicked")
		}
	}()
	return pgrammar.Parser().ParseString(filename, src)
}

// seed adds the inputs of tests, and the inputs the differential test
// alone checks, to f's seed corpus.
func seed(f *testing.F, tests []struct{ input, want string }) {
	for _, test := range tests {
		f.Add(test.input)
	}
	for _, src := range differentialOnly {
		f.Add(src)
	}
}

func FuzzParse(f *testing.F) {
	for _, src := range examples(f) {
		f.Add(src)
	}
	seed(f, fileTests)
	f.Fuzz(func(t *testing.T, src string) {
		const filename = "fuzz.pbl"
		file, err := parser.Parse(filename, []byte(src))
		checkErr(t, filename, src, file, err)
		// The hand-written parser must agree with participle.
		_, perr := participleParse(filename, src)
		if (err == nil) != (perr == nil) {
			checkSame(t, filename, src) // reports the difference
			t.Fatalf("%q: hand-written error %v, participle error %v", src, err, perr)
		}
		if err == nil {
			checkSame(t, filename, src)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	seed(f, queryTests)
	f.Fuzz(func(t *testing.T, src string) {
		const filename = "query"
		q, err := parser.ParseQuery(filename, src)
		checkErr(t, filename, src, q, err)
		checkSameQuery(t, src)
	})
}
