package repl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// kindsModel has a discrete and a real variable, for a query of every kind.
const kindsModel = `var A: {yes, no}
var B: {yes, no}
var x: real
P(A) = [0.3, 0.7]
P(B | A) = {
    yes: [0.9, 0.1]
    no:  [0.2, 0.8]
}
P(x | A) = {
    yes: normal(0, 1)
    no:  normal(1, 2)
}
`

// kindQueries holds a query of every kind of result, and of every kind of
// query; TestEveryResultKind fails when a kind has none.
var kindQueries = []string{
	"P(B | A)",               // a table
	"P(B=yes | A=no)",        // a number
	"P(A=yes, B=no)",         // the probability of evidence
	"MPE(B=yes)",             // an assignment
	"MAP(A | B=yes)",         // an assignment
	"P(* | B=yes)",           // marginals
	"indep(A, B)",            // independence
	"density(x=0.5 | A=yes)", // a density
	"entropy(A)",             // bits
	"MI(A, B)",               // bits
	"P(x | B=yes)",           // normals: a mixture over A
}

// sealedTypes returns the names of the types in the package directory dir
// that have the method named method: the kinds of a sealed interface.
func sealedTypes(t *testing.T, dir, method string) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || fd.Name.Name != method {
					continue
				}
				rt := fd.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					out = append(out, id.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestEveryResultKind answers a query of every kind of result and hands
// each result to every consumer that switches on the kinds of result
// (docs/design.md): report's Check, Text and JSON, the root package's
// expectations (run.go) and answers by name (named.go), and the REPL's
// bars. Each switch panics on a kind it does not know, so a new kind of
// result (a type in package infer with a result method) fails here until
// it has a query in kindQueries and a case in every consumer.
func TestEveryResultKind(t *testing.T) {
	m, err := pbl.Load("kinds.pbl", []byte(kindsModel))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, text := range kindQueries {
		q, err := pbl.ParseQuery(m, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		r := a.Infer
		kind := strings.TrimPrefix(fmt.Sprintf("%T", r), "*infer.")
		seen[kind] = true
		if !r.Head().Exact || r.Head().ErrorEstimate != nil || r.Head().Query != q {
			t.Errorf("%s: header %+v", text, *r.Head())
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s (a %s): %v", text, kind, p)
				}
			}()
			if err := report.Check(r); err != nil {
				t.Errorf("%s: %v", text, err)
			}
			var text1, json1 bytes.Buffer
			report.Text(&text1, m, r)
			if err := report.JSON(&json1, m, r); err != nil {
				t.Errorf("%s: %v", text, err)
			}
			if !strings.HasPrefix(text1.String(), text) || !strings.HasPrefix(json1.String(), `{"query":`) {
				t.Errorf("%s: text %q, JSON %q", text, text1.String(), json1.String())
			}
			pbl.ResultNumbers(r)
			a.Prob()
			a.Rows()
			a.Assignment()
			a.Marginals()
			writeBars(io.Discard, m, r)
		}()
	}
	for _, k := range sealedTypes(t, "../infer", "result") {
		if !seen[k] {
			t.Errorf("no query in kindQueries gives a result of kind infer.%s: add one, and a case for it in every consumer", k)
		}
	}
}

// hypModel adds to kindsModel a variable whose states are hypotheses and
// data about them (Mitchell's cancer test), for the queries about
// hypotheses given data.
const hypModel = kindsModel + `var H: {cancer, no_cancer}
var Test: {pos, neg}
P(H) = [0.008, 0.992]
P(Test | H) = {
    cancer:    [0.98, 0.02]
    no_cancer: [0.03, 0.97]
}
data D = {
    Test
    pos
}
`

// decisionModel is a test-and-treat influence diagram, for the queries
// about decisions.
const decisionModel = `var Disease: {present, absent}
var Test: {positive, negative}
decision Treat: {yes, no}
Test -> Treat
P(Disease) = [0.1, 0.9]
P(Test | Disease) = {
    present: [0.9, 0.1]
    absent:  [0.2, 0.8]
}
utility Cost(Treat, Disease) = {
    yes, present: 80
    yes, absent:  -20
    no,  present: -100
    no,  absent:  0
}
`

// decisionQueries holds a query of every form about decisions.
var decisionQueries = []string{"MEU()", "policy(Treat)", "EU(Treat=yes | Test=positive)"}

// causalModel is the front-door graph with an unobserved confounder
// whose table is given, and a deterministic mediator, for the causal
// questions: P(Y | do(X=x)) on it is surgery, identify and adjust are
// about its graph, and CF treats it as a structural model.
const causalModel = `latent U: bool
var X, M, Y: bool
U -> X
U -> Y
X -> M -> Y
P(U) = 0.3
P(X | U) = lookup { true: true  false: false }
P(M | X) = lookup { true: true  false: false }
P(Y | M, U) = M and U
`

// causalQueries holds a query of every form of causal question.
var causalQueries = []string{"identify(Y | do(X))", "adjust(X, Y)", "CF(Y=true | do(X=true), X=false)",
	"P(Y | do(X=true))"}

// hypQueries holds a query of every kind about hypotheses given data.
var hypQueries = []string{"P(H | D)", "MAP(H | D)", "ML(H | D)", "MDL(H | D)", "Gibbs(H | D)"}

// TestEveryQueryKind lowers a query of every kind and hands it to every
// consumer that switches on the kinds of query (docs/design.md): ir's
// session and row evidence and expect statements, infer's answers and
// plans, the root package's answers (queries about hypotheses) and
// report's hypothesis answers. Each switch panics on a kind it does not
// know, so a new kind of query (a type in package ir with a query method)
// fails here until it has a query in kindQueries or hypQueries and a case
// in every consumer.
func TestEveryQueryKind(t *testing.T) {
	m, err := pbl.Load("kinds.pbl", []byte(hypModel))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Lookup("A")
	x, _ := m.Lookup("x")
	seen := map[string]bool{}
	for _, text := range append(append([]string(nil), kindQueries...), hypQueries...) {
		q, err := pbl.ParseQuery(m, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		kind := strings.TrimPrefix(fmt.Sprintf("%T", q), "*ir.")
		seen[kind] = true
		if q.Head().Text != text {
			t.Errorf("%s: text %q", text, q.Head().Text)
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s (a %s): %v", text, kind, p)
				}
			}()
			// Errors (A asked about and observed) are answers too: only
			// a panic fails.
			ir.WithEvidence(m, q, []ir.Obs{{Var: a.ID, State: 0}})
			ir.WithRowRealEvidence(m, q, []ir.RealObs{{Var: x.ID, Value: 1}})
			pbl.Load("expect.pbl", []byte(hypModel+"expect "+text+" == 0.5\n"))
			ans, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{})
			if err != nil {
				t.Errorf("%s: %v", text, err)
				return
			}
			var out bytes.Buffer
			ans.Text(&out, m)
			if err := ans.JSON(&out, m); err != nil {
				t.Errorf("%s: %v", text, err)
			}
			if ir.HypOf(q) == nil {
				if _, err := infer.ExplainQuery(m, q, infer.Options{}); err != nil {
					t.Errorf("%s: %v", text, err)
				}
			}
		}()
	}
	// The decision queries, asked of an influence diagram.
	dm, err := pbl.Load("decide.pbl", []byte(decisionModel))
	if err != nil {
		t.Fatal(err)
	}
	test, _ := dm.Lookup("Test")
	for _, text := range decisionQueries {
		q, err := pbl.ParseQuery(dm, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		kind := strings.TrimPrefix(fmt.Sprintf("%T", q), "*ir.")
		seen[kind] = true
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s (a %s): %v", text, kind, p)
				}
			}()
			ir.WithEvidence(dm, q, []ir.Obs{{Var: test.ID, State: 0}})
			ir.WithRowRealEvidence(dm, q, nil)
			pbl.Load("expect.pbl", []byte(decisionModel+"expect "+text+" == 0.5\n"))
			ans, err := pbl.AnswerQuery(dm, q, pbl.AnswerOptions{})
			if err != nil {
				t.Errorf("%s: %v", text, err)
				return
			}
			var out bytes.Buffer
			ans.Text(&out, dm)
			if err := ans.JSON(&out, dm); err != nil {
				t.Errorf("%s: %v", text, err)
			}
			if _, err := infer.ExplainQuery(dm, q, infer.Options{}); err != nil {
				t.Errorf("%s: %v", text, err)
			}
		}()
	}
	// The causal questions; P on a model with a confounder without a
	// table (X <-> Y) is one too.
	for i, text := range causalQueries {
		src := causalModel
		if i == len(causalQueries)-1 {
			src = "var X, M, Y: bool\nX <-> Y\nX -> M -> Y\n"
		}
		cm, err := pbl.Load("cause.pbl", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		q, err := pbl.ParseQuery(cm, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		kind := strings.TrimPrefix(fmt.Sprintf("%T", q), "*ir.")
		seen[kind] = true
		x, _ := cm.Lookup("X")
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s (a %s): %v", text, kind, p)
				}
			}()
			ir.WithEvidence(cm, q, []ir.Obs{{Var: x.ID, State: 0}})
			ir.WithRowRealEvidence(cm, q, nil)
			pbl.Load("expect.pbl", []byte(src+"expect "+text+" == 0.5\n"))
			if _, err := infer.ExplainQuery(cm, q, infer.Options{}); err != nil {
				t.Errorf("%s: %v", text, err)
			}
			if i == len(causalQueries)-1 {
				return // no observed distribution to evaluate it on
			}
			ans, err := pbl.AnswerQuery(cm, q, pbl.AnswerOptions{})
			if err != nil {
				t.Errorf("%s: %v", text, err)
				return
			}
			var out bytes.Buffer
			ans.Text(&out, cm)
			if err := ans.JSON(&out, cm); err != nil {
				t.Errorf("%s: %v", text, err)
			}
		}()
	}
	for _, k := range sealedTypes(t, "../ir", "query") {
		if !seen[k] {
			t.Errorf("no query in kindQueries or hypQueries lowers to an ir.%s: add one, and a case for it in every consumer", k)
		}
	}
}
