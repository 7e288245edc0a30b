package formattest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// recorder is a testing.TB that records failures instead of failing;
// Fatal ends the goroutine, as it does in a test.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.msgs = append(r.msgs, fmt.Sprint(args...))
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }
func (r *recorder) Skipf(format string, args ...any)  { r.Fatal("SKIP " + fmt.Sprintf(format, args...)) }

// failure runs check with a recorder and returns its failure, or "".
func failure(t *testing.T, check func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan bool)
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return strings.Join(r.msgs, "; ")
}

func TestCheckErrors(t *testing.T) {
	pos := func(line, col int) ir.Pos { return ir.Pos{File: "f", Line: line, Col: col} }
	for _, test := range []struct {
		err           error
		want, wantCol string // the failures of CheckErrorLines and CheckErrors
	}{
		{nil, "", ""},
		{ir.ErrorList{ir.Errorf(pos(1, 1), "x")}, "", ""},
		{fmt.Errorf("w: %w", ir.ErrorList{ir.Errorf(pos(2, 3), "x")}), "", ""},
		{ir.ErrorList{ir.Errorf(pos(1, 0), "x")}, "", "bad position"},
		{ir.ErrorList{ir.Errorf(pos(0, 1), "x")}, "bad position", "bad position"},
		{ir.ErrorList{ir.Errorf(ir.Pos{File: "g", Line: 1, Col: 1}, "x")}, "bad position", "bad position"},
		{ir.ErrorList{}, "empty error list", "empty error list"},
		{ir.ErrorList{nil}, "nil *ir.Error", "nil *ir.Error"},
		{errors.New("x"), "not an ir.ErrorList", "not an ir.ErrorList"},
	} {
		got := failure(t, func(tb testing.TB) { CheckErrorLines(tb, "f", test.err) })
		if !(got == test.want || test.want != "" && strings.Contains(got, test.want)) {
			t.Errorf("CheckErrorLines(%v): failure %q, want %q", test.err, got, test.want)
		}
		got = failure(t, func(tb testing.TB) { CheckErrors(tb, "f", test.err) })
		if !(got == test.wantCol || test.wantCol != "" && strings.Contains(got, test.wantCol)) {
			t.Errorf("CheckErrors(%v): failure %q, want %q", test.err, got, test.wantCol)
		}
	}
}

func TestCorpus(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.x", "b.x", "c.y"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PBL_CORPUS", dir)
	if got, want := CorpusPath("sub", "n"), filepath.Join(dir, "sub", "n"); got != want {
		t.Errorf("CorpusPath = %s, want %s", got, want)
	}
	got := Files(CorpusPath("*.x"), CorpusPath("none"), CorpusPath("c.y"))
	if fmt.Sprintf("%s", got) != "[a.x b.x c.y]" {
		t.Errorf("Files read %s, want [a.x b.x c.y]", got)
	}
	if got := failure(t, func(tb testing.TB) { Corpus(tb, ".") }); got != "" {
		t.Errorf("Corpus of an existing directory failed: %s", got)
	}
	if got := failure(t, func(tb testing.TB) { Corpus(tb, "missing") }); !strings.HasPrefix(got, "SKIP corpus directory not found") {
		t.Errorf("Corpus of a missing directory: %q, want a skip", got)
	}
	t.Setenv("PBL_CORPUS", "")
	root, err := filepath.Abs(filepath.Join("..", "..", "..")) // the directory of go.mod
	if err != nil {
		t.Fatal(err)
	}
	if got, want := CorpusPath(), filepath.Join(root, "..", "shared", "corpus"); got != want {
		t.Errorf("CorpusPath without PBL_CORPUS = %s, want %s", got, want)
	}
}
