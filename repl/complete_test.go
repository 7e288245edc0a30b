package repl

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComplete(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.pbl", "b.txt", "sub/c.bif"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	s := New(Config{Out: io.Discard})
	if err := s.Load(campfire); err != nil {
		t.Fatal(err)
	}
	s.Feed(":observe Storm=true")
	for _, c := range []struct {
		line       string
		pos        int // -1: end of line
		head, tail string
		want       []string
	}{
		{"P(Camp", -1, "P(", "", []string{"Campfire"}},
		{"P(Campfire | St", -1, "P(Campfire | ", "", []string{"Storm"}},
		{"P(Campfire | Storm=", -1, "P(Campfire | Storm=", "", []string{"false", "true"}},
		{"P(Campfire | Storm = t", -1, "P(Campfire | Storm = ", "", []string{"true"}},
		{"P(Camp | Storm)", 6, "P(", " | Storm)", []string{"Campfire"}},
		{"M", -1, "", "", []string{"MAP", "MPE"}},
		{"qu", -1, "", "", []string{"query"}},
		{"P(B", -1, "P(", "", []string{"BusTourGroup"}},
		{"P(Nope=", -1, "P(Nope=", "", []string{"BusTourGroup", "Campfire", "ForestFire", "Lightning", "MAP", "MPE", "P", "Storm", "Thunder", "bool", "expect", "import", "indep", "normalize", "query", "real", "var", "within"}},
		{":", -1, "", "", prefixed(commandNames(), "")},
		{":ob", -1, "", "", []string{":observe"}},
		{"  :re", -1, "  ", "", []string{":reload"}},
		{":cpt Th", -1, ":cpt ", "", []string{"Thunder"}},
		{":observe Thu", -1, ":observe ", "", []string{"Thunder="}},
		{":observe Thunder=f", -1, ":observe Thunder=", "", []string{"false"}},
		{":unobserve ", -1, ":unobserve ", "", []string{"Storm"}},
		{":engine ", -1, ":engine ", "", []string{"auto", "enum", "jt", "ve"}},
		{":json o", -1, ":json ", "", []string{"off", "on"}},
		{":help ob", -1, ":help ", "", []string{"observe"}},
		{":load " + dir + "/", -1, ":load ", "", []string{dir + "/a.pbl", dir + "/sub/"}},
		{":load " + dir + "/sub/", -1, ":load ", "", []string{dir + "/sub/c.bif"}},
		{":graph " + dir + "/b", -1, ":graph ", "", []string{dir + "/b.txt"}},
	} {
		pos := c.pos
		if pos < 0 {
			pos = len([]rune(c.line))
		}
		head, got, tail := s.Complete(c.line, pos)
		if head != c.head || tail != c.tail || !cmp.Equal(got, c.want) {
			t.Errorf("Complete(%q, %d) = %q, %q, %q; want %q, %q, %q", c.line, pos, head, got, tail, c.head, c.want, c.tail)
		}
	}
}

func TestCompleteQuoted(t *testing.T) {
	s := New(Config{Out: io.Discard})
	s.Feed(`var "0-3_days": {"a b", c}`)
	s.Feed(`P("0-3_days") = [0.5, 0.5]`)
	_, got, _ := s.Complete(`P(`, 2)
	if !strings.Contains(strings.Join(got, " "), `"0-3_days"`) {
		t.Errorf("got %q", got)
	}
	_, got, _ = s.Complete(`P("0-3_days"=`, 13)
	if !cmp.Equal(got, []string{`"a b"`, "c"}) {
		t.Errorf("states: got %q", got)
	}
}
