package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

const campfire = "../examples/campfire.pbl"

// session runs lines through a new session on model (none if "") and
// returns what it wrote to stdout and stderr, the prompts shown before
// each line, and the exit status.
func session(t *testing.T, model string, interactive bool, lines ...string) (out, errOut string, prompts []string, status int) {
	t.Helper()
	var o, e bytes.Buffer
	s := New(Config{Out: &o, Err: &e, Interactive: interactive})
	if model != "" {
		if err := s.Load(model); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	status = s.Run(func() (string, error) {
		prompts = append(prompts, s.Prompt())
		if i == len(lines) {
			return "", io.EOF
		}
		i++
		return lines[i-1], nil
	})
	return o.String(), e.String(), prompts, status
}

func TestPipedQuery(t *testing.T) {
	out, errOut, _, status := session(t, campfire, false, "P(Campfire | Storm=true, BusTourGroup=true)")
	want := "P(Campfire | Storm=true, BusTourGroup=true)\n  Campfire  p\n  true      0.4\n  false     0.6\n"
	if out != want || errOut != "" || status != 0 {
		t.Errorf("got %q, %q, status %d; want %q", out, errOut, status, want)
	}
}

func TestSeparatorsAndQueryKeyword(t *testing.T) {
	out, _, _, _ := session(t, campfire, false, "P(Storm=true)", "query P(BusTourGroup=true)", "", "// a comment")
	want := "P(Storm=true) = 0.3\n\nP(BusTourGroup=true) = 0.5\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestErrorThenRecovery(t *testing.T) {
	out, errOut, _, status := session(t, campfire, false, "P(Campfir | Storm)", "P(Storm=true)", "P(Storm=maybe)", "var = 3", "P(Storm=true)")
	if out != "P(Storm=true) = 0.3\n\nP(Storm=true) = 0.3\n" {
		t.Errorf("out = %q", out)
	}
	for _, want := range []string{`<stdin>:1:3: undefined variable "Campfire"`, "<stdin>:3:", "<stdin>:4:"} {
		if !strings.Contains(errOut, strings.Replace(want, `"Campfire"`, `"Campfir" (did you mean "Campfire"?)`, 1)) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if status != 1 {
		t.Errorf("status %d, want 1 after errors in a piped session", status)
	}
}

func TestInteractiveErrorCaret(t *testing.T) {
	_, errOut, _, status := session(t, campfire, true, "P(Campfir | Storm)")
	want := "  P(Campfir | Storm)\n    ^\n<stdin>:1:3: undefined variable"
	if !strings.Contains(errOut, want) || status != 0 {
		t.Errorf("got %q (status %d), want it to contain %q", errOut, status, want)
	}
}

func TestMultiLineDeclarations(t *testing.T) {
	out, errOut, prompts, _ := session(t, campfire, false,
		"var Smoke: bool",
		"Campfire -> Smoke",
		"P(Smoke | Campfire) = {",
		"  true:  0.9",
		"  false: 0.1",
		"}",
		"P(Smoke=true | Campfire=true)",
		"P(Smoke | Campfire) = { true: 0.5 false: 0.5 }", // a second distribution: rejected
		"P(Smoke=true | Campfire=false)")
	if errOut == "" || !strings.Contains(errOut, "<stdin>:8:1: second distribution") {
		t.Errorf("stderr = %q", errOut)
	}
	if want := "P(Smoke=true | Campfire=true) = 0.9\n\nP(Smoke=true | Campfire=false) = 0.1\n"; out != want {
		t.Errorf("out = %q, want %q", out, want)
	}
	if prompts[3] != "...> " || prompts[6] != "pbl> " {
		t.Errorf("prompts = %q", prompts)
	}
}

func TestIncompleteAtEnd(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"P(Campfire | Storm"}, "<stdin>:1:19: the input ended inside a statement: expected \")\" to close the query"},
		{[]string{"var Z: bool", "P(Z) = {"}, "<stdin>:2:9: the input ended inside a statement: expected \"}\" to close the table"},
		{[]string{"P(Storm)", "/* not closed", "P(Thunder)"}, "<stdin>:2:1: the input ended inside a statement: comment not terminated"},
	} {
		out, errOut, _, status := session(t, campfire, false, tc.lines...)
		if !strings.Contains(errOut, tc.want) || status != 1 || strings.Contains(out, "Thunder") {
			t.Errorf("%q: out %q, stderr %q, status %d; want %q and status 1", tc.lines, out, errOut, status, tc.want)
		}
	}
}

// TestBlockComments: a block comment may span lines; what it encloses is
// not run.
func TestBlockComments(t *testing.T) {
	out, errOut, prompts, status := session(t, campfire, true, "/* a comment", "P(Storm)", "*/ P(Thunder=true)", "/* one line */ P(Storm=true)")
	if status != 0 || errOut != "" || strings.Contains(out, "P(Storm)\n") || !strings.Contains(out, "P(Thunder=true) = 0.2403") || !strings.Contains(out, "P(Storm=true) = 0.3") {
		t.Errorf("out %q, stderr %q, status %d", out, errOut, status)
	}
	if prompts[1] != "...> " || prompts[2] != "...> " {
		t.Errorf("prompts %q: lines inside a comment are continuation lines", prompts)
	}
}

func TestEvidence(t *testing.T) {
	out, errOut, prompts, _ := session(t, campfire, true,
		":observe Storm=true, BusTourGroup=true",
		"P(Campfire)",
		":evidence",
		"P(Campfire | Storm=false)",
		"P(Storm)",
		"P(Campfire | Storm=true)",
		":unobserve BusTourGroup",
		":observe Storm=maybe",
		":observe Strom=true",
		":unobserve",
		":evidence")
	for _, want := range []string{
		"P(Campfire | Storm=true, BusTourGroup=true)\n",
		"  true      0.4  ████████\n",
		"evidence: Storm=true, BusTourGroup=true\n",
		"evidence: none\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{
		`<stdin>:4:14: Storm is given Storm=false here but observed as Storm=true in this session (:unobserve Storm first)`,
		`<stdin>:5:3: Storm is observed as Storm=true in this session`,
		`<stdin>:8:16: unknown state "maybe" of "Storm"`,
		`<stdin>:9:10: undefined variable "Strom" (did you mean "Storm"?)`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Count(out, "P(Campfire | Storm=true, BusTourGroup=true)") != 2 {
		t.Errorf("repeating evidence in the query should be harmless:\n%s", out)
	}
	wantPrompts := []string{"pbl> ", "pbl[Storm=true, BusTourGroup=true]> "}
	if prompts[0] != wantPrompts[0] || prompts[1] != wantPrompts[1] || prompts[7] != "pbl[Storm=true]> " || prompts[10] != "pbl> " {
		t.Errorf("prompts = %q", prompts)
	}
}

func TestEvidenceInOtherQueries(t *testing.T) {
	out, errOut, _, _ := session(t, campfire, false,
		":observe Thunder=true",
		"P(*)",
		"MPE(ForestFire=true)",
		"MAP(Storm | ForestFire=true)",
		"indep(Campfire, Lightning)",
		"expect P(Storm=true) == 0.8339575530586767 within 1e-9",
		"expect P(Storm=true) == 0.3")
	for _, want := range []string{"P(* | Thunder=true)\n", "MPE(ForestFire=true, Thunder=true)", "MAP(Storm | ForestFire=true, Thunder=true)", "indep(Campfire, Lightning | Thunder) = false"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "<stdin>:7:1: expect P(Storm=true | Thunder=true) == 0.3: got") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr = %q", errOut)
	}
}

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	dotFile := filepath.Join(dir, "g.dot")
	out, errOut, _, status := session(t, campfire, false,
		":vars", ":cpt Campfire", ":cpt Nope", ":graph", ":graph "+dotFile,
		":engine", ":engine ve", ":engine", ":engine fast",
		":explain", "P(Storm=true)", ":explain",
		":json on", "P(Storm=true)", ":json off", ":json maybe",
		":help", ":help observe", ":frobnicate", ":evidenc", ":quit", "P(Storm=true)")
	for _, want := range []string{
		"Campfire      bool  | Storm, BusTourGroup\n",
		"P(Campfire | Storm, BusTourGroup)\n  Storm  BusTourGroup  |  true  false\n  true   true          |  0.4   0.6\n",
		"Storm         ->  Lightning, Campfire, ForestFire\n",
		"engine: auto (order best)\n", "engine: ve (order best)\n",
		"junction tree\n", "last query: P(Storm=true) (engine ve)\n",
		`{"query":"P(Storm=true)","evidence":{"Storm":"true"},"p":0.3}` + "\n",
		"learn Smoke from t with bayes(alpha = 1)", ":observe X=x ...",
		":observe X=x ...\n  add session evidence",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{`undefined variable "Nope"`, `unknown engine "fast"`, ":json takes on or off", "unknown command :frobnicate", "unknown command :evidenc (did you mean :evidence?)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Count(out, "P(Storm=true) = 0.3") != 1 {
		t.Errorf("want one text answer (one JSON, none after :quit):\n%s", out)
	}
	dot, err := os.ReadFile(dotFile)
	if err != nil || !strings.Contains(string(dot), "digraph") {
		t.Errorf(":graph FILE wrote %q, %v", dot, err)
	}
	if status != 1 {
		t.Errorf("status %d", status)
	}
}

func TestLoadReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.pbl")
	write := func(p string) {
		if err := os.WriteFile(path, []byte("var A: bool\nP(A) = "+p+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0.25")
	s := New(Config{Out: io.Discard})
	var out, errOut bytes.Buffer
	s = New(Config{Out: &out, Err: &errOut})
	step := func(lines ...string) {
		for _, l := range lines {
			s.Feed(l)
		}
	}
	step(":load "+path, "var B: bool", "A -> B", "P(B | A) = { true: 1 false: 0 }", ":observe A=true", "P(B=true)")
	write("0.75")
	step(":reload", "P(A=true)", ":unobserve", "P(B=true)")
	write("oops")
	step(":reload", "P(B=true)", ":load "+filepath.Join(dir, "missing.pbl"), "P(A=true)")
	want := "P(B=true | A=true) = 1\n\nP(B=true) = 0.75\n\nP(B=true) = 0.75\n\nP(A=true) = 0.75\n"
	if out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "<stdin>:8:3: A is observed as A=true in this session (:unobserve A first)") {
		t.Errorf("stderr = %q", errOut.String())
	}
	if !strings.Contains(errOut.String(), "m.pbl:2:") || !strings.Contains(errOut.String(), "missing.pbl") {
		t.Errorf("stderr = %q", errOut.String())
	}
}

// TestIncrementalDeclarations: a variable declared without a distribution
// is a variable still to learn. A query that needs it fails with an error
// of the kind ir.ErrNoDistribution, one that does not is answered, and
// once the variable has a distribution every query is.
func TestIncrementalDeclarations(t *testing.T) {
	var out, errOut bytes.Buffer
	s := New(Config{Out: &out, Err: &errOut})
	var errs []error
	s.answerFn = func(m *ir.Model, q ir.Query, opt infer.Options) (infer.Result, error) {
		res, err := infer.Answer(m, q, opt)
		errs = append(errs, err)
		return res, err
	}
	for _, l := range []string{"P(X)", "var Rain: bool", "P(Rain)", "P(Rain) = 0.2", "P(Rain=true)", ":reload", "P(Rain=true)"} {
		s.Feed(l)
	}
	if want := "P(Rain=true) = 0.2\n\nP(Rain=true) = 0.2\n"; out.String() != want {
		t.Errorf("out = %q, want %q (:reload replays the declarations)", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "<stdin>:1:3: undefined variable \"X\"") || !strings.Contains(errOut.String(), "<stdin>:3:1: the model has no numbers yet for Rain") {
		t.Errorf("stderr = %q", errOut.String())
	}
	if len(errs) != 3 || !errors.Is(errs[0], ir.ErrNoDistribution) || errs[1] != nil || errs[2] != nil {
		t.Errorf("errors of the answers = %v, want ir.ErrNoDistribution, nil, nil", errs)
	}
}

// TestStructureFirst: declarations typed one at a time on a loaded model;
// queries that do not need the new variable are answered meanwhile, and
// the model is extended (not rebuilt) at each step.
func TestStructureFirst(t *testing.T) {
	var out, errOut bytes.Buffer
	s := New(Config{Out: &out, Err: &errOut, Interactive: true})
	if err := s.Load(campfire); err != nil {
		t.Fatal(err)
	}
	base := s.Model()
	step := func(line string) *ir.Model {
		t.Helper()
		out.Reset()
		errOut.Reset()
		s.Feed(line)
		return s.Model()
	}
	m1 := step("var Smoke: bool")
	if !strings.Contains(out.String(), "Smoke has no distribution yet") || m1 == base || len(base.Vars) != 6 {
		t.Errorf("var Smoke: out %q; the loaded model has %d variables", out.String(), len(base.Vars))
	}
	if step("P(Campfire=true | Storm=true, BusTourGroup=true)"); !strings.Contains(out.String(), "0.4") || s.Model() != m1 {
		t.Errorf("a query that needs no Smoke: %q %q", out.String(), errOut.String())
	}
	if step("P(Smoke)"); !strings.Contains(errOut.String(), "no numbers yet for Smoke") {
		t.Errorf("P(Smoke): stderr %q", errOut.String())
	}
	step("Campfire -> Smoke")
	if step(":cpt Smoke"); !strings.Contains(errOut.String(), "Smoke has no distribution yet") {
		t.Errorf(":cpt Smoke: stderr %q", errOut.String())
	}
	step("P(Smoke | Campfire) = { true: 0.9 false: 0.05 }")
	if errOut.Len() != 0 || out.Len() != 0 {
		t.Errorf("the distribution: %q %q", out.String(), errOut.String())
	}
	if step("P(Smoke=true | Campfire=false)"); !strings.Contains(out.String(), "0.05") {
		t.Errorf("P(Smoke=true | Campfire=false): %q %q", out.String(), errOut.String())
	}
	if v, ok := s.Model().Lookup("Smoke"); !ok || s.Model().Table(v.ID) == nil {
		t.Errorf("Smoke has no table")
	}
	if _, ok := base.Lookup("Smoke"); ok {
		t.Errorf("the loaded model was changed")
	}
}

// emptyTempDir points os.TempDir at a new empty directory for the test
// and returns a function that reports the files created there.
func emptyTempDir(t *testing.T) func() []string {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
}

const smallBIF = `network small {}
variable A { type discrete [ 2 ] { %s, %s }; }
variable B { type discrete [ 2 ] { yes, no }; }
probability ( A ) { table %s; }
probability ( B | A ) { (%[1]s) 0.9, 0.1; (%[2]s) 0.3, 0.7; }
`

// TestBIFDeclarations: declarations typed in a session extend a BIF model
// in memory (no temporary .pbl file), and :reload reads the changed file
// and replays them; evidence the new file no longer has is dropped.
func TestBIFDeclarations(t *testing.T) {
	created := emptyTempDir(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "small.bif")
	write := func(yes, no, table string) {
		if err := os.WriteFile(path, fmt.Appendf(nil, smallBIF, yes, no, table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("yes", "no", "0.2, 0.8")
	var out, errOut bytes.Buffer
	s := New(Config{Out: &out, Err: &errOut})
	for _, l := range []string{":load " + path, "var C: bool", "B -> C", "P(C | B) = { yes: 0.5 no: 0.1 }", "P(C=true)", ":observe A=yes", "P(C=true)"} {
		s.Feed(l)
	}
	write("yes", "no", "0.5, 0.5")
	for _, l := range []string{":reload", "P(C=true)", ":unobserve", "P(C=true)", ":observe A=yes"} {
		s.Feed(l)
	}
	write("y", "n", "0.5, 0.5")
	for _, l := range []string{":reload", ":evidence", "P(C=true | A=n)"} {
		s.Feed(l)
	}
	want := "P(C=true) = 0.268\n\nP(C=true | A=yes) = 0.46\n\nP(C=true | A=yes) = 0.46\n\nP(C=true) = 0.34\n" +
		"evidence: none\n\nP(C=true | A=n) = 0.22\n"
	if out.String() != want {
		t.Errorf("out = %q, want %q", out.String(), want)
	}
	if want := "note: dropped the evidence A=yes, which the model no longer has\n"; errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
	if files := created(); len(files) != 0 {
		t.Errorf("the session created temporary files %q", files)
	}
}

// TestCorpusDeclarations extends a network of the corpus, when there is one.
func TestCorpusDeclarations(t *testing.T) {
	corpus := "../../shared/corpus/bif/asia.bif"
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no corpus")
	}
	created := emptyTempDir(t)
	out, errOut, _, _ := session(t, corpus, false, "var Extra: bool", "P(Extra) = 0.5", "P(Extra=true)", "P(asia=yes)")
	if out != "P(Extra=true) = 0.5\n\nP(asia=yes) = 0.01\n" || errOut != "" {
		t.Errorf("got %q, %q", out, errOut)
	}
	if files := created(); len(files) != 0 {
		t.Errorf("the session created temporary files %q", files)
	}
}

// TestInterrupt: an interrupt cancels the query, and the session returns
// to the prompt once it has stopped: nothing goes on in the background.
func TestInterrupt(t *testing.T) {
	var out, errOut bytes.Buffer
	intr := make(chan struct{})
	s := New(Config{Out: &out, Err: &errOut, Interrupt: func() (<-chan struct{}, func()) { return intr, func() {} }})
	if err := s.Load(campfire); err != nil {
		t.Fatal(err)
	}
	var running atomic.Int32
	s.answerFn = func(m *ir.Model, q ir.Query, opt infer.Options) (infer.Result, error) {
		running.Add(1)
		defer running.Add(-1)
		<-opt.Cancel // an engine that honours the cancel channel
		return nil, infer.ErrCanceled
	}
	go func() {
		time.Sleep(10 * time.Millisecond)
		close(intr)
	}()
	s.Feed("P(Storm=true)")
	if !strings.Contains(errOut.String(), "interrupted") || out.Len() != 0 {
		t.Fatalf("got %q, %q", out.String(), errOut.String())
	}
	if n := running.Load(); n != 0 {
		t.Fatalf("%d interrupted queries still running", n)
	}
	s.answerFn = infer.Answer
	s.cfg.Interrupt = nil
	s.Feed("P(Storm=true)")
	if out.String() != "P(Storm=true) = 0.3\n" {
		t.Errorf("after an interrupt: %q", out.String())
	}
}

func TestCtrlCAtPrompt(t *testing.T) {
	var out bytes.Buffer
	s := New(Config{Out: &out})
	s.Load(campfire)
	lines := []any{"P(Campfire", ErrInterrupt, "P(Storm=true)"}
	i := 0
	s.Run(func() (string, error) {
		if i == len(lines) {
			return "", io.EOF
		}
		i++
		if err, ok := lines[i-1].(error); ok {
			return "", err
		}
		return lines[i-1].(string), nil
	})
	if out.String() != "P(Storm=true) = 0.3\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestBar(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{{0, ""}, {1, strings.Repeat("█", 20)}, {0.4, "████████"}, {0.5, "██████████"}, {0.01, "▎"}, {0.001, "▏"}, {0.03, "▋"}} {
		if got := bar(c.p); got != c.want {
			t.Errorf("bar(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestLearnStatements: a structure without numbers loads; queries say the
// numbers are missing until a learn statement runs; learned numbers
// survive a later declaration (the session re-runs its learn statements);
// a bad learn statement is an error and the session goes on.
func TestLearnStatements(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "wet.pbl")
	csv := filepath.Join(dir, "wet.csv")
	if err := os.WriteFile(model, []byte("var Rain, Wet: bool\nRain -> Wet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, []byte("Rain,Wet\ntrue,true\ntrue,true\nfalse,false\nfalse,true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _, status := session(t, model, false,
		"P(Wet)",
		`learn from "`+filepath.ToSlash(csv)+`" with mle`,
		"P(Wet=true | Rain=false)",
		"var Sun: bool",
		"P(Sun) = 0.5",
		"P(Wet=true | Rain=true)",
		`learn from "nosuch.csv"`,
		"P(Rain=true)",
	)
	want := "P(Wet=true | Rain=false) = 0.5\n\nP(Wet=true | Rain=true) = 1\n\nP(Rain=true) = 0.5\n"
	if out != want {
		t.Errorf("out = %q, want %q", out, want)
	}
	for _, w := range []string{"no numbers yet for Rain, Wet", "nosuch.csv"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q lacks %q", errOut, w)
		}
	}
	if status != 1 {
		t.Errorf("status %d, want 1 (two lines failed)", status)
	}
}

// TestLearnGaussian: a naive Bayes with a real feature learned in the
// session keeps its densities (the session learns on a shallow copy).
func TestLearnGaussian(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "nb.pbl")
	csv := filepath.Join(dir, "nb.csv")
	src := "var C: {a, b}\nvar X: real\nnaive_bayes C given X\nlearn from \"nb.csv\"\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, []byte("C,X\na,1\na,3\nb,10\nb,14\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _, status := session(t, model, false, ":cpt X", "P(C=a)")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	for _, want := range []string{"P(X | C) = normal(mean, sd)", "a  |  2     1", "b  |  12    2", "P(C=a) = 0.5"} {
		if !strings.Contains(out, want) {
			t.Errorf("out lacks %q:\n%s", want, out)
		}
	}
}

// TestEvidenceRules: the session evidence is added to queries and to the
// queries of expect lines typed in the session, and refused where it
// conflicts, at the variable in the query.
func TestEvidenceRules(t *testing.T) {
	for _, c := range []struct {
		line, out, err string
	}{
		{"P(Campfire=true | BusTourGroup=true)", "P(Campfire=true | BusTourGroup=true, Storm=true) = 0.4\n", ""},
		{"P(Campfire=true, BusTourGroup=true)", "P(Campfire=true, BusTourGroup=true | Storm=true) = 0.2\n", ""},
		{"P(Campfire=true | Storm=true, BusTourGroup=true)", "P(Campfire=true | Storm=true, BusTourGroup=true) = 0.4\n", ""},
		{"indep(Thunder, Campfire)", "indep(Thunder, Campfire | Storm) = true\n", ""},
		{"expect P(Campfire=true | BusTourGroup=true) == 0.4", "", ""},
		{"expect P(Campfire=true | BusTourGroup=true) == 0.3", "", "<stdin>:1:1: expect P(Campfire=true | BusTourGroup=true, Storm=true) == 0.3: got 0.4"},
		{"expect indep(Thunder, Campfire) == true", "", ""},
		{"var Smoke: bool P(Smoke) = 0.5 expect P(Smoke=true) == 0.5", "", ""},
		{"P(Storm)", "", "<stdin>:1:3: Storm is observed as Storm=true in this session (:unobserve Storm first)"},
		{"P(Campfire | Storm=false)", "", "<stdin>:1:14: Storm is given Storm=false here but observed as Storm=true in this session (:unobserve Storm first)"},
		{"P(Campfire | Storm)", "", "<stdin>:1:14: Storm is observed as Storm=true"},
		{"MAP(Storm | Thunder=true)", "", "<stdin>:1:5: Storm is observed"},
		{"indep(Storm, Thunder)", "", "<stdin>:1:7: Storm is observed"},
		{"expect P(Storm=true) == 1", "", "<stdin>:1:10: Storm is observed as Storm=true"},
		{"expect P(Campfire | Storm=false) == [0.1, 0.9]", "", "<stdin>:1:21: Storm is given Storm=false here"},
		{":observe Thunder=true Thunder=false", "", "<stdin>:1:23: Thunder is given two states, Thunder=true and Thunder=false"},
		{":observe Thunder=true, Thunder=true", "", ""},
		{":observe Thundr=true", "", `<stdin>:1:10: undefined variable "Thundr" (did you mean "Thunder"?)`},
		{":observe Thunder=yes", "", `<stdin>:1:18: unknown state "yes" of "Thunder"`},
		{`:observe "Thunder" = "true", Thundr=true`, "", `<stdin>:1:30: undefined variable "Thundr"`},
		{":observe Thunder", "", `<stdin>:1:10: want X=x, not "Thunder"`},
		{":observe Thunder=", "", `<stdin>:1:17: want X=x, but Thunder= has no state after it`},
		{":observe =true", "", `<stdin>:1:10: want X=x, but "=" has no variable before it`},
		{"  :observe   Thunder =  yes", "", `<stdin>:1:25: unknown state "yes"`},
		{":unobserve Storm, Thunder", "", `<stdin>:1:19: Thunder is not observed`},
	} {
		var out, errOut bytes.Buffer
		s := New(Config{Out: &out, Err: &errOut})
		if err := s.Load(campfire); err != nil {
			t.Fatal(err)
		}
		s.Feed(":observe Storm=true")
		s.line = 0 // the line typed is <stdin>:1
		s.Feed(c.line)
		if out.String() != c.out || c.err == "" && errOut.Len() > 0 || !strings.HasPrefix(errOut.String(), c.err) {
			t.Errorf("%s: got %q, %q; want %q, %q", c.line, out.String(), errOut.String(), c.out, c.err)
		}
	}
}

// TestImport: an import typed in the session extends the model with the
// file, relative to the current directory; importing it again changes
// nothing, and :reload keeps it.
func TestImport(t *testing.T) {
	abs, err := filepath.Abs(campfire)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("extra.pbl", []byte("var Extra: bool\nStorm -> Extra\nP(Extra | Storm) = { true: 0.5 false: 0.1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _, status := session(t, abs, false,
		`import "extra.pbl"`, "P(Extra=true)", `import "extra.pbl"`, `import "nosuch.pbl"`, ":reload", "P(Extra=true | Storm=true)")
	if want := "P(Extra=true) = 0.22\n\nP(Extra=true | Storm=true) = 0.5\n"; out != want {
		t.Errorf("out = %q, want %q", out, want)
	}
	if !strings.HasPrefix(errOut, `<stdin>:4:1: cannot import "nosuch.pbl"`) || strings.Count(errOut, "\n") != 1 || status != 1 {
		t.Errorf("stderr = %q, status %d", errOut, status)
	}
}

// TestInlineDataLearn: a data table and a learn statement typed in the
// session learn the numbers of variables declared without them; queries
// use them, and :reload learns them again.
func TestInlineDataLearn(t *testing.T) {
	out, errOut, _, status := session(t, "", false,
		"var Rain, Wet: bool",
		"Rain -> Wet",
		"data t = {",
		"  Rain, Wet",
		"  true, true",
		"  true, true",
		"  false, false",
		"  false, true",
		"}",
		"P(Wet)",
		"learn from t with mle",
		"P(Wet=true | Rain=false)",
		"learn Wet from t with bayes(alpha = 1) expect P(Wet=true | Rain=true) == 0.75",
		":reload",
		"P(Wet=true | Rain=true)",
		"learn from t with bayes(alpha = 1, ess = 2)",
		"P(Rain=true)")
	want := "P(Wet=true | Rain=false) = 0.5\n\nP(Wet=true | Rain=true) = 0.75\n\nP(Rain=true) = 0.5\n"
	if out != want {
		t.Errorf("out = %q, want %q", out, want)
	}
	errs := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(errs) != 2 || !strings.HasPrefix(errs[0], "<stdin>:10:1: the model has no numbers yet for Rain, Wet") ||
		!strings.HasPrefix(errs[1], "<stdin>:16:") || status != 1 {
		t.Errorf("stderr = %q, status %d", errOut, status)
	}
}

// TestDocSample replays the sample session of docs/repl.md on an
// interactive session and compares the transcripts, so that the
// documentation cannot go stale.
func TestDocSample(t *testing.T) {
	doc, err := os.ReadFile("../docs/repl.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sample, ok := strings.Cut(string(doc), "## A sample session\n\n```\n")
	sample, _, ok2 := strings.Cut(sample, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/repl.md has no sample session")
	}
	cmdLine, want, _ := strings.Cut(sample, "\n")
	model, ok := strings.CutPrefix(cmdLine, "$ pbl repl ")
	if !ok {
		t.Fatalf("the sample starts with %q, want $ pbl repl MODEL", cmdLine)
	}
	prompt := regexp.MustCompile(`^(pbl(\[[^\]]*\])?> |\.\.\.> )(.*)$`)
	var lines []string
	for _, l := range strings.Split(want, "\n") {
		if m := prompt.FindStringSubmatch(l); m != nil && m[3] != "^D" {
			lines = append(lines, m[3])
		}
	}
	t.Chdir("..")
	var out bytes.Buffer
	s := New(Config{Out: &out, Interactive: true})
	if err := s.Load(model); err != nil {
		t.Fatal(err)
	}
	i := 0
	s.Run(func() (string, error) {
		out.WriteString(s.Prompt())
		if i == len(lines) {
			out.WriteString("^D")
			return "", io.EOF
		}
		i++
		out.WriteString(lines[i-1] + "\n")
		return lines[i-1], nil
	})
	if out.String() != want {
		t.Errorf("docs/repl.md: the sample session differs:\n%s", cmp.Diff(want, out.String()))
	}
}

// TestGraphFileErrors: :graph FILE names the user's path in its errors,
// never the temporary file, leaves none behind, and writes through
// Config.WriteFile when there is one.
func TestGraphFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nodir", "g.dot")
	_, errOut, _, status := session(t, campfire, false, ":graph "+missing, ":graph "+dir)
	want := missing + ": no such file or directory\n" + dir + ": "
	if !strings.HasPrefix(errOut, want) || strings.Contains(errOut, ".tmp") || status != 1 {
		t.Errorf("stderr %q, status %d; want it to start %q and name no temporary file", errOut, status, want)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}

	var o, e bytes.Buffer
	var wrote string
	s := New(Config{Out: &o, Err: &e, WriteFile: func(path string, data []byte) error {
		wrote = path
		if !bytes.Contains(data, []byte("digraph")) {
			t.Errorf("WriteFile got %q", data)
		}
		return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}})
	if err := s.Load(campfire); err != nil {
		t.Fatal(err)
	}
	s.Feed(":graph out.dot")
	if wrote != "out.dot" || e.String() != "out.dot: no space left on device\n" || !s.Failed() {
		t.Errorf("WriteFile wrote %q; stderr %q", wrote, e.String())
	}
}

// TestGraphRefusesModelFiles: :graph FILE never writes over a model file
// of the session — the loaded file, through a link, or a file it imports —
// and writes a new file beside them.
func TestGraphRefusesModelFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.pbl")
	main := filepath.Join(dir, "main.pbl")
	link := filepath.Join(dir, "link.pbl")
	files := map[string]string{
		base: "var Storm: bool\nP(Storm) = 0.3\n",
		main: "import \"base.pbl\"\nvar Rain: bool\nStorm -> Rain\nP(Rain | Storm) = { true: 0.9  false: 0.1 }\n",
	}
	for path, src := range files {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(main, link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "g.dot")
	_, errOut, _, status := session(t, main, false, ":graph "+main, ":graph "+link, ":graph "+base, ":graph "+out)
	if status != 1 || strings.Count(errOut, "does not overwrite it") != 3 {
		t.Errorf("status %d, stderr:\n%s\nwant three refusals", status, errOut)
	}
	for path, src := range files {
		if b, err := os.ReadFile(path); err != nil || string(b) != src {
			t.Errorf("%s is now %q, %v", path, b, err)
		}
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "digraph") {
		t.Errorf(":graph %s wrote %q, %v", out, b, err)
	}
}

// TestTooLargeNamesEngineCommand: a junction tree over the memory limit
// is refused with the advice to use variable elimination, which the
// session phrases with its :engine command (the library's message names
// no command and no flag).
func TestTooLargeNamesEngineCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	s := New(Config{Out: &out, Err: &errOut, Options: infer.Options{Engine: infer.JT, MaxMemory: 10}})
	if err := s.Load(campfire); err != nil {
		t.Fatal(err)
	}
	lines := []string{"P(Storm)"}
	s.Run(func() (string, error) {
		if len(lines) == 0 {
			return "", io.EOF
		}
		l := lines[0]
		lines = lines[1:]
		return l, nil
	})
	if got := errOut.String(); !strings.Contains(got, "use variable elimination (:engine ve)") || strings.Contains(got, "--") {
		t.Errorf("got %q, want the advice to use variable elimination with :engine ve", got)
	}
}

// TestDecisionQueries: MEU(), policy(D) and EU(D=d | e) in a session on
// the oil wildcatter (by hand, examples/oil.pbl: 22.5; drill unless the
// result is diffuse; 20 without the test), and the session evidence added
// to them as after their bar: given Oil=wet drilling is worth 50 and
// testing 50 - 10 = 40 (aGrUM's numbers); evidence a free decision
// influences is refused at its line.
func TestDecisionQueries(t *testing.T) {
	out, errOut, prompts, _ := session(t, "../examples/oil.pbl", false,
		"MEU()",
		"policy(Drill)",
		"EU(Test=no)",
		":observe Oil=wet",
		"MEU()",
		"EU(Test=yes)",
		"expect MEU() == 50",
		"expect MEU() == 22.5",
		":unobserve",
		":observe Result=closed",
		"MEU()")
	for _, want := range []string{
		"MEU() = 22.5\n",
		"policy(Drill)\n    Test=yes, Result=closed: yes\n    Test=yes, Result=open: yes\n    Test=yes, Result=diffuse: no\n    Test=yes, Result=none: (impossible)\n",
		"EU(Test=no) = 20\n",
		"MEU(| Oil=wet) = 50\n",
		"EU(Test=yes | Oil=wet) = 40\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "<stdin>:8:1: expect MEU(| Oil=wet) == 22.5: got [50]") ||
		!strings.Contains(errOut, "<stdin>:11:1: MEU(| Result=closed): Result depends on decision Test") ||
		strings.Count(errOut, "\n") != 2 {
		t.Errorf("stderr = %q", errOut)
	}
	if prompts[5] != "pbl[Oil=wet]> " {
		t.Errorf("prompt %q", prompts[5])
	}
}

// TestSliceQueries: a query naming a slice beyond the most a model is
// unrolled to, a negative slice or one that is not a whole number is an
// error at the slice's name that says which, and the session goes on.
func TestSliceQueries(t *testing.T) {
	out, errOut, _, _ := session(t, "../examples/umbrella.pbl", false,
		"P(Rain[100001])", "P(Rain[-1])", "P(Rain[1e5])", "P(Rain[5] | Umbrella[100001]=true)", "P(Rain[t])", "P(Rain[100000]=true)")
	for _, want := range []string{
		"<stdin>:1:3: Rain[100001] is beyond slice 100000, the last a model is unrolled to",
		"<stdin>:2:3: Rain[-1]: a slice is a whole number",
		"<stdin>:3:3: Rain[1e5]: a slice is a whole number",
		"<stdin>:4:13: Umbrella[100001] is beyond slice 100000",
		"<stdin>:5:7: Rain[t] names the template",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if out != "P(Rain[100000]=true) = 0.5\n" {
		t.Errorf("out = %q", out)
	}
}

// TestUnrolledVars: the slices a query unrolls are listed with their own
// parents and tables (each once showed those of the last slice the file
// had: Rain[10] | Rain[7]).
func TestUnrolledVars(t *testing.T) {
	out, errOut, _, _ := session(t, "../examples/umbrella.pbl", false, "P(Rain[11])", ":vars", ":cpt Umbrella[10]")
	for _, want := range []string{"Rain[10]      bool  | Rain[9]\n", "Umbrella[10]  bool  | Rain[10]\n", "P(Umbrella[10] | Rain[10])\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s%s", want, out, errOut)
		}
	}
}

// TestObserveSlice: :observe of a slice beyond those unrolled unrolls to
// it, as a query naming it would (it was an undefined variable); one
// beyond the most a model is unrolled to says so. By hand (Russell and
// Norvig's umbrella world, two days of umbrellas): 0.8834.
func TestObserveSlice(t *testing.T) {
	out, errOut, _, _ := session(t, "../examples/umbrella.pbl", false,
		":observe Umbrella[50]=true, Umbrella[49]=true", "P(Rain[50]=true)", ":observe Umbrella[100001]=true", ":cpt Rain[70]")
	if !strings.HasPrefix(out, "P(Rain[50]=true | Umbrella[50]=true, Umbrella[49]=true) = 0.8833570413") {
		t.Errorf("out = %q, stderr %q", out, errOut)
	}
	if want := "<stdin>:3:10: Umbrella[100001]: a slice is a whole number from 0 to 100000"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	if want := "P(Rain[70] | Rain[69])\n"; !strings.Contains(out, want) {
		t.Errorf(":cpt Rain[70]: out %q lacks %q", out, want)
	}
}
