package uai_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// pair is a MARKOV file with an asymmetric pairwise factor, so that a
// reader that took the first variable as fastest would give other answers.
const pair = `MARKOV
2
2 3
2
1 0
2 0 1
2 1 3
6
1 2 3
4 5 6
`

func mustRead(t *testing.T, src string) *ir.Model {
	t.Helper()
	m, err := uai.Read("test.uai", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReadLayout checks the table layout: row-major over the scope as
// listed, the last variable fastest. By hand: the joint is
// φ0(a)·φ1(a, b) = (1·1, 1·2, 1·3, 3·4, 3·5, 3·6), Z = 51, and
// P(X1=2) = (3+18)/51.
func TestReadLayout(t *testing.T) {
	m := mustRead(t, pair)
	if len(m.Vars) != 2 || m.Vars[0].Name != "X0" || strings.Join(m.Vars[1].States, ",") != "0,1,2" {
		t.Fatalf("variables %v, %v", m.Vars[0], m.Vars[1])
	}
	if m.IsBayesNet() || len(m.Potentials) != 2 {
		t.Fatalf("want a Markov network with 2 potentials, got %d", len(m.Potentials))
	}
	for _, eng := range []string{infer.Enum, infer.VE} {
		res, err := infer.Answer(m, &ir.ProbQuery{}, infer.Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		if got := math.Exp(res.(*infer.Evidence).LogZ); !(math.Abs(got-51) <= 1e-12) {
			t.Errorf("%v: Z = %g, want 51", eng, got)
		}
		res, err = infer.Answer(m, &ir.ProbQuery{Star: true}, infer.Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.(*infer.Marginals).Marginals[1].P[2]; !(math.Abs(got-21.0/51) <= 1e-12) {
			t.Errorf("%v: P(X1=2) = %g, want 21/51", eng, got)
		}
	}
}

// TestReadBayes reads a BAYES file: the last variable of each scope is the
// child, and the CPTs are as written. Factors need not come in variable
// order.
func TestReadBayes(t *testing.T) {
	m := mustRead(t, `BAYES
3
2 2 3
3
2 0 1
1 0
3 0 1 2
4 0.9 0.1 0.2 0.8
2 0.3 0.7
12
 0.1 0.2 0.7  0.2 0.2 0.6
 0.3 0.3 0.4  0.5 0.25 0.25
`)
	if !m.IsBayesNet() {
		t.Fatal("a BAYES file read as a Markov network")
	}
	want := [][]ir.VarID{nil, {0}, {0, 1}}
	for v, ps := range want {
		got := m.Table(ir.VarID(v)).Parents
		if !slices.Equal(got, ps) {
			t.Errorf("X%d's parents are %v, want %v", v, got, ps)
		}
	}
	if got := m.Table(ir.VarID(2)).Factor.Vals[10]; got != 0.25 {
		t.Errorf("P(X2=1 | X0=1, X1=1) = %g, want 0.25", got)
	}
	res, err := infer.Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 2, State: 0}}}}, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// P(X2=0) = Σ P(a) P(b|a) P(X2=0|a,b)
	want0 := 0.3*(0.9*0.1+0.1*0.2) + 0.7*(0.2*0.3+0.8*0.5)
	if !(math.Abs(res.(*infer.Evidence).P-want0) <= 1e-15) {
		t.Errorf("P(X2=0) = %g, want %g", res.(*infer.Evidence).P, want0)
	}
}

// TestReadForms checks lexical freedom: line breaks and tabs anywhere,
// CRLF, exponents, a constant factor, no final newline, gzip.
func TestReadForms(t *testing.T) {
	src := "MARKOV\r\n2\t2 2 3 1 0 2 0 1 0\r\n2\n1e0 2.5E-1 4 1. .5 0 3 1 \t 7.25"
	m := mustRead(t, src)
	if len(m.Potentials) != 3 || len(m.Potentials[2].Vars) != 0 || m.Potentials[2].Vals[0] != 7.25 {
		t.Fatalf("potentials %v", m.Potentials)
	}
	if got := m.Potentials[1].Vals; got[0] != 1 || got[1] != 0.5 || got[2] != 0 || got[3] != 3 {
		t.Errorf("factor 1 = %v", got)
	}
	// A UTF-8 byte order mark at the start is skipped (the errors of a
	// file keep their columns).
	if m := mustRead(t, "\ufeff"+pair); len(m.Potentials) != 2 || m.Potentials[1].Vals[5] != 6 {
		t.Errorf("with a byte order mark: potentials %v", m.Potentials)
	}
	_, err := uai.Read("bom.uai", []byte("\ufeffBAYESIAN 1"))
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.Line != 1 || list[0].Pos.Col != 1 {
		t.Errorf("with a byte order mark: %v, want an error at 1:1", err)
	}
	var gz bytes.Buffer
	zw := newGzip(&gz)
	zw.Write([]byte(pair))
	zw.Close()
	if m, err := uai.Read("pair.uai.gz", gz.Bytes()); err != nil || len(m.Potentials) != 2 {
		t.Errorf("gzip: %v", err)
	}
}

// TestReadNoFactors: a MARKOV file without factors is the uniform measure.
func TestReadNoFactors(t *testing.T) {
	m := mustRead(t, "MARKOV 2 2 3 0")
	res, err := infer.Answer(m, &ir.ProbQuery{}, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if z := math.Exp(res.(*infer.Evidence).LogZ); !(math.Abs(z-6) <= 1e-14) || res.(*infer.Evidence).P != 1 {
		t.Errorf("Z = %g, P() = %g; want 6 and 1", z, res.(*infer.Evidence).P)
	}
}

func TestReadEvidence(t *testing.T) {
	m := mustRead(t, pair)
	for _, tc := range []struct {
		src  string
		want []ir.Obs
	}{
		{"0", nil},
		{"0\n", nil},
		{"1 1 2", []ir.Obs{{Var: 1, State: 2}}},
		{"2 1 2 0 1\n", []ir.Obs{{Var: 1, State: 2}, {Var: 0, State: 1}}},
		{"1\n2 1 2 0 1\n", []ir.Obs{{Var: 1, State: 2}, {Var: 0, State: 1}}}, // with a sample count
		{"1\n0\n", nil},
	} {
		got, err := uai.ReadEvidence("e.evid", []byte(tc.src), m)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.src, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: got %v, want %v", tc.src, got, tc.want)
			}
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"", `e.evid:1:1: empty evidence file`},
		{"1 5 0", `e.evid:1:3: variable index 5 is out of range: the model has 2 variables`},
		{"1 1 3", `e.evid:1:5: state 3 of X1 is out of range: it has 3 states`},
		{"2 1 0 1 1", `e.evid:1:7: X1 is observed twice \(first at e.evid:1:3\)`},
		{"2 1 0", `e.evid:1:6: unexpected end of file: 2 declares 2 observations, found 1 pair`},
		{"3\n1 0\n0 1 1", `e.evid:3:6: unexpected end of file: 3 declares 3 observations, found 2 pairs and a lone index`},
		{"1 1 0 0 1", `e.evid:1:7: unexpected "0": the file declares 1 observation`},
		{"1 x 0", `e.evid:1:3: want a non-negative integer, found "x"`},
		{"1 -1 0", `e.evid:1:3: want a non-negative integer, found "-1"`},
		{"1 99999999999999999999999 0", `e.evid:1:3: number 99999999999999999999999 is too large`},
	} {
		_, err := uai.ReadEvidence("e.evid", []byte(tc.src), m)
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%q: error %v (%T), want an ir.ErrorList", tc.src, err, err)
			continue
		}
		if !matches(tc.want, err.Error()) {
			t.Errorf("%q: got %q, want %q", tc.src, err, tc.want)
		}
	}
}

// TestReadLarge checks that large and hostile inputs are read or refused
// quickly: many variables and factors, the longest scope allowed, and huge
// counts.
func TestReadLarge(t *testing.T) {
	const n = 100000
	var b strings.Builder
	b.WriteString("MARKOV\n100000\n")
	b.WriteString(strings.Repeat("1 ", n))
	fmt.Fprintf(&b, "\n%d\n1024", n+1)
	for v := 0; v < 1024; v++ {
		fmt.Fprintf(&b, " %d", v)
	}
	for v := 0; v < n; v++ {
		fmt.Fprintf(&b, "\n1 %d", v)
	}
	b.WriteString("\n1 2.5\n")
	b.WriteString(strings.Repeat("1 0.5\n", n))
	start := time.Now()
	m := mustRead(t, b.String())
	if len(m.Potentials) != n+1 || len(m.Potentials[0].Vars) != 1024 {
		t.Fatalf("%d potentials, the first of %d variables", len(m.Potentials), len(m.Potentials[0].Vars))
	}
	// A bound against a quadratic reader (which would take minutes), not a
	// measure of speed: generous, since a loaded machine took 6.4 s.
	limit := 30 * time.Second
	if raceEnabled {
		limit *= 10
	}
	if d := time.Since(start); d > limit {
		t.Errorf("reading %d factors took %v", n+1, d)
	}
	for _, tc := range []struct{ src, want string }{
		{"MARKOV 1 2 99999999999999999999999999", "the number of factors is 99999999999999999999999999, more than"},
		{"MARKOV 1 2 1 1 0 99999999999999999999999999 1 2", "the table size of factor 0 is 99999999999999999999999999, more than"},
		{"MARKOV 1 2 1 1 0 2147483647 1 2", "the table of factor 0 has 2147483647 entries, but its scope \\(X0\\) needs 2"},
		{"MARKOV 1048576 1", "end of file: want the cardinality of X1"},
		{"MARKOV 1025 " + strings.Repeat("1 ", 1025) + "1 1025", "factor 0 has a scope of 1025 variables; pbl reads at most 1024"},
	} {
		if _, err := uai.Read("big.uai", []byte(tc.src)); err == nil || !matches(tc.want, err.Error()) {
			t.Errorf("%.40q: got %v, want %q", tc.src, err, tc.want)
		}
	}
	if _, err := uai.ReadEvidence("e", []byte("9223372036854775807 0"), m); err == nil {
		t.Error("a huge evidence count: no error")
	}
}
