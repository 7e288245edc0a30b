package chunkedfile_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/ir"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msgs = append(r.msgs, "FATAL "+fmt.Sprintf(format, args...))
}

func TestChunks(t *testing.T) {
	r := &recorder{TB: t}
	chunks := chunkedfile.Read("testdata/sample.txt", r)
	if len(chunks) != 3 {
		t.Fatalf("got %d chunks, want 3", len(chunks))
	}
	for i, want := range []int{1, 5, 8} {
		if chunks[i].Line != want {
			t.Errorf("chunk %d starts at line %d, want %d", i, chunks[i].Line, want)
		}
		// Source lines line up with the file.
		if got := strings.Count(chunks[i].Source[:strings.IndexFunc(chunks[i].Source, func(r rune) bool { return r != '\n' })], "\n"); got != want-1 {
			t.Errorf("chunk %d: %d padding lines, want %d", i, got, want-1)
		}
	}
	if strings.Contains(chunks[0].Source, "---") {
		t.Errorf("chunk 0 contains the separator: %q", chunks[0].Source)
	}

	c := &chunks[0]
	c.GotError(2, "a bad thing happened")
	c.GotError(3, "two")
	c.GotError(3, "one")
	c.Done()
	if len(r.msgs) != 0 {
		t.Errorf("chunk 0: got failures %q, want none", r.msgs)
	}

	c = &chunks[1]
	c.GotError(5, "xxx")
	c.GotError(5, "x")          // the expectation was already met
	c.GotError(6, "surprise")   // no expectation on this line
	c.GotError(4, "wrong line") // separator line
	c.Done()
	if len(r.msgs) != 3 {
		t.Errorf("chunk 1: got failures %q, want 3", r.msgs)
	}

	r.msgs = nil
	c = &chunks[2]
	c.GotError(7, "never reported") // right message, wrong line
	c.Done()
	if len(r.msgs) != 2 || !strings.Contains(r.msgs[1], `expected error matching "never reported"`) {
		t.Errorf("chunk 2: got failures %q, want an unexpected error and an unmet expectation", r.msgs)
	}
}

func TestBadAnnotation(t *testing.T) {
	for _, src := range []string{"x ### nope\n", "x ### \"(\"\n", "x ### \"unterminated\n"} {
		dir := t.TempDir()
		name := dir + "/bad.txt"
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		r := &recorder{TB: t}
		chunkedfile.Read(name, r)
		if len(r.msgs) != 1 || !strings.HasPrefix(r.msgs[0], "FATAL") {
			t.Errorf("Read(%q): got failures %q, want one fatal", src, r.msgs)
		}
	}
}

func TestCheck(t *testing.T) {
	const name = "testdata/sample.txt"
	at := func(line, col int) ir.Pos { return ir.Pos{File: name, Line: line, Col: col} }
	r := &recorder{TB: t}
	var starts []int
	chunkedfile.Check(r, name, func(c *chunkedfile.Chunk) error {
		starts = append(starts, c.Line)
		switch c.Line {
		case 1: // every expectation met
			return ir.ErrorList{ir.Errorf(at(2, 1), "a bad thing"), ir.Errorf(at(3, 1), "one"), ir.Errorf(at(3, 5), "two")}
		case 5:
			return fmt.Errorf("wrapped: %w", ir.ErrorList{
				ir.Errorf(at(6, 1), "surprise"),
				ir.Errorf(at(5, 1), "xx"), // out of order, but expected
				ir.Errorf(at(6, 0), "no column"),
			})
		}
		return errors.New("not a list")
	})
	if fmt.Sprint(starts) != "[1 5 8]" {
		t.Errorf("run called for the chunks at lines %v, want [1 5 8]", starts)
	}
	want := []string{
		"unexpected error: surprise",
		"errors not sorted",
		"bad position",
		"unexpected error: no column",
		"not an ir.ErrorList",
		`expected error matching "never reported"`,
	}
	if len(r.msgs) != len(want) {
		t.Fatalf("got failures %q, want %d", r.msgs, len(want))
	}
	for i, w := range want {
		if !strings.Contains(r.msgs[i], w) {
			t.Errorf("failure %d is %q, want one containing %q", i, r.msgs[i], w)
		}
	}
}
