package serve

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
)

// TestHighlightKeywords checks that the page's highlighting
// (web/src/pbl-lang.js) lists every word of grammar.Keywords.
func TestHighlightKeywords(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "web", "src", "pbl-lang.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range grammar.Keywords {
		if !regexp.MustCompile(`"` + regexp.QuoteMeta(k) + `"`).Match(src) {
			t.Errorf("web/src/pbl-lang.js does not list the keyword %q", k)
		}
	}
}

// TestStmts checks the statements' answers of asia.pbl: its expectations
// hold, and each query's answer is pbl run's text for it.
func TestStmts(t *testing.T) {
	path := filepath.Join(repoRoot(t), "examples", "asia.pbl")
	s := openSession(t, path)
	g, err := s.Open(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := s.current()
	var queries, expects int
	for _, st := range g.Stmts {
		switch st.Kind {
		case "expect":
			expects++
			if st.Pass == nil || !*st.Pass {
				t.Errorf("line %d: %s fails: %s", st.Line, st.Text, st.Error)
			}
		case "query":
			queries++
			a, err := pbl.Ask(m, st.Text)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			a.Text(&b, m)
			if strings.TrimRight(b.String(), "\n") != st.Answer {
				t.Errorf("line %d: %s answers\n%s\nwant\n%s", st.Line, st.Text, st.Answer, b.String())
			}
		}
	}
	if queries == 0 || expects == 0 {
		t.Fatalf("%d queries and %d expectations listed", queries, expects)
	}
	// A failing expectation is marked so.
	src := s.Source() + "\nexpect P(asia=yes) == 0.5\n"
	g, err = s.Open(context.Background(), &src, nil)
	if err != nil || !g.Loaded {
		t.Fatal(err, g.Diagnostics)
	}
	last := g.Stmts[len(g.Stmts)-1]
	if last.Pass == nil || *last.Pass || last.Error == "" {
		t.Errorf("the expectation P(asia=yes) == 0.5 is listed as %+v", last)
	}
}

// TestFormatAndMPE: format gives pbl fmt's layout or the syntax error;
// MPE gives the assignment of pbl's MPE query.
func TestFormatAndMPE(t *testing.T) {
	path := filepath.Join(repoRoot(t), "examples", "asia.pbl")
	s := openSession(t, path)
	messy := strings.ReplaceAll(s.Source(), "P(asia) = [0.01, 0.99]", "P( asia )=[0.01,0.99]")
	f, err := s.Format(messy)
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Source(path, []byte(messy))
	if err != nil {
		t.Fatal(err)
	}
	if f.Source != string(want) || len(f.Diagnostics) != 0 {
		t.Errorf("format differs from pbl fmt's layout")
	}
	f, err = s.Format("var a: {x, y\n")
	if err != nil || len(f.Diagnostics) != 1 || f.Diagnostics[0].Line != 2 {
		t.Errorf("a syntax error formats to %+v, %v", f, err)
	}
	m, _, _ := s.current()
	mp, err := s.MPE(context.Background(), []Finding{{Var: "xray", State: "yes"}, {Var: "dysp", State: "yes"}})
	if err != nil || mp.Error != "" {
		t.Fatal(err, mp.Error)
	}
	a, err := pbl.AnswerQuery(m, mustQuery(t, m, mp.Query), pbl.AnswerOptions{Infer: infer.Options{Engine: "enum"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range mp.Assignment {
		got[f.Var] = f.State
	}
	for _, st := range a.Assignment() {
		if got[st.Var] != st.Value {
			t.Errorf("%s: MPE has %s=%s, enumeration %s", mp.Query, st.Var, got[st.Var], st.Value)
		}
	}
	if len(a.Assignment()) != len(mp.Assignment) || !(abs(a.Infer.(*infer.Assignment).P-mp.P) <= 1e-12) {
		t.Errorf("%s: %v p=%v, enumeration %v p=%v", mp.Query, mp.Assignment, mp.P, a.Assignment(), a.Infer.(*infer.Assignment).P)
	}
}
