package repl

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/learn"
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
		{"M", -1, "", "", []string{"MAP", "MDL", "MEU", "MI", "ML", "MPE"}},
		{"ent", -1, "", "", []string{"entropy"}},
		{"MI(Storm, Camp", -1, "MI(Storm, ", "", []string{"Campfire"}},
		{"entropy(Th", -1, "entropy(", "", []string{"Thunder"}},
		{"qu", -1, "", "", []string{"query"}},
		{"P(Campfire | do", -1, "P(Campfire | ", "", []string{"do"}},
		{"P(Campfire | do(St", -1, "P(Campfire | do(", "", []string{"Storm"}},
		{"P(Campfire | do(Storm=f", -1, "P(Campfire | do(Storm=", "", []string{"false"}},
		{"P(Campfire | Thunder~[0.5, 0.5], Li", -1, "P(Campfire | Thunder~[0.5, 0.5], ", "", []string{"Lightning"}},
		{"P(B", -1, "P(", "", []string{"BusTourGroup"}},
		{"P(Nope=", -1, "P(Nope=", "", []string{"BusTourGroup", "CF", "Campfire", "EU", "ForestFire", "Gibbs", "Lightning", "MAP", "MDL", "MEU", "MI", "ML", "MPE", "P", "Storm", "Thunder", "adjust", "and", "bernoulli", "bool", "by", "conjunction", "cov", "data", "decision", "density", "do", "else", "entropy", "expect", "false", "from", "given", "identify", "if", "import", "in", "indep", "latent", "leak", "learn", "logistic", "lookup", "mixture", "naive_bayes", "noisy_max", "noisy_or", "normal", "normalize", "not", "observed", "of", "or", "policy", "prior", "query", "real", "sd", "softmax", "space", "tan", "true", "uniform", "utility", "var", "with", "within"}},
		{":", -1, "", "", prefixed(commandNames(), "")},
		{":ob", -1, "", "", []string{":observe "}},
		{"  :re", -1, "  ", "", []string{":reload"}},
		{":q", -1, "", "", []string{":quit"}},
		{":cpt Th", -1, ":cpt ", "", []string{"Thunder"}},
		{":observe Thu", -1, ":observe ", "", []string{"Thunder="}},
		{":observe Thunder=f", -1, ":observe Thunder=", "", []string{"false"}},
		{":unobserve ", -1, ":unobserve ", "", []string{"Storm"}},
		{":engine ", -1, ":engine ", "", []string{"auto", "bnb", "cascade", "enum", "gibbs", "ijgp", "is", "jt", "lbp", "lw", "ve", "wmb"}},
		{":engine j", -1, ":engine ", "", []string{"jt"}},
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

// TestCompleteLearn: after "with" in a learn statement, the methods of the
// registry; inside their parentheses, the options not given yet.
func TestCompleteLearn(t *testing.T) {
	s := New(Config{Out: io.Discard})
	methods := learn.MethodNames()
	for _, c := range []struct {
		pending []string // earlier lines of the statement
		line    string
		head    string
		want    []string
	}{
		{nil, "learn from t with ", "learn from t with ", methods},
		{nil, "learn from t with b", "learn from t with ", []string{"bayes"}},
		{nil, `learn A, B from "d.csv" with m`, `learn A, B from "d.csv" with `, []string{"mestimate", "mle"}},
		{nil, "learn from t with bayes(", "learn from t with bayes(", []string{"alpha", "ess"}},
		{nil, "learn from t with bayes(e", "learn from t with bayes(", []string{"ess"}},
		{nil, "learn from t with mestimate(", "learn from t with mestimate(", []string{"m"}},
		{nil, "learn from t with bayes(alpha = 2, ", "learn from t with bayes(alpha = 2, ", nil}, // alpha excludes ess
		{nil, "learn from t with mle(", "learn from t with mle(", nil},
		{nil, "learn from t with nosuch(", "learn from t with nosuch(", nil},
		{[]string{"learn from t"}, "  with ", "  with ", methods},
		{nil, "expect P(A) == 0.5 within ", "expect P(A) == 0.5 within ", grammar.Keywords},
	} {
		s.pending = c.pending
		head, got, tail := s.Complete(c.line, len([]rune(c.line)))
		want := prefixed(c.want, "")
		if head != c.head || tail != "" || !cmp.Equal(got, want) {
			t.Errorf("Complete(%q) after %q = %q, %q, %q; want %q, %q", c.line, c.pending, head, got, tail, c.head, want)
		}
	}
}
