package bif

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// chunk is one "---"-separated part of an annotated test file.
type chunk struct {
	start  int // line of the file on which the chunk starts
	source string
	want   []expectation
}

// expectation is an error the chunk must produce.
type expectation struct {
	line int // in the chunk, 1-based
	rx   *regexp.Regexp
	met  bool
}

// wantRx matches an annotation: three hashes and a Go string, "..." or `...`.
var wantRx = regexp.MustCompile("###\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")

// readChunks splits an annotated file in the style of starlark-go's
// internal/chunkedfile: chunks are separated by lines "---", and each
// annotation marks a line on which an error matching its regexp is
// expected.
func readChunks(t *testing.T, filename string) []*chunk {
	t.Helper()
	data, err := os.ReadFile(filename)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*chunk
	cur := &chunk{start: 1}
	var lines []string
	flush := func() {
		cur.source = strings.Join(lines, "\n")
		chunks = append(chunks, cur)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "---" {
			flush()
			cur, lines = &chunk{start: i + 2}, nil
			continue
		}
		lines = append(lines, line)
		for _, m := range wantRx.FindAllStringSubmatch(line, -1) {
			q := m[1]
			s, err := strconv.Unquote(q)
			if err != nil {
				t.Fatalf("%s:%d: bad annotation %s: %v", filename, i+1, q, err)
			}
			rx, err := regexp.Compile(s)
			if err != nil {
				t.Fatalf("%s:%d: bad regexp %s: %v", filename, i+1, q, err)
			}
			cur.want = append(cur.want, expectation{line: len(lines), rx: rx})
		}
	}
	flush()
	return chunks
}

// TestErrors checks testdata/errors.bif in both directions: every error
// reported is expected on its line, and every expectation is met.
func TestErrors(t *testing.T) {
	const name = "testdata/errors.bif"
	for _, c := range readChunks(t, name) {
		_, err := Read("errors.bif", []byte(c.source))
		var list ir.ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Errorf("%s:%d: error is %T, not ir.ErrorList: %v", name, c.start, err, err)
			continue
		}
	errs:
		for _, e := range list {
			if e.Pos.File != "errors.bif" || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Errorf("%s:%d: error with a bad position: %s", name, c.start, e)
			}
			for i := range c.want {
				w := &c.want[i]
				if !w.met && w.line == e.Pos.Line && w.rx.MatchString(e.Msg) {
					w.met = true
					continue errs
				}
			}
			t.Errorf("%s:%d: unexpected error: %s", name, c.start+e.Pos.Line-1, e)
		}
		for _, w := range c.want {
			if !w.met {
				t.Errorf("%s:%d: expected an error matching %q", name, c.start+w.line-1, w.rx)
			}
		}
	}
}
