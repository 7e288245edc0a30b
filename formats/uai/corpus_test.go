package uai_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// instances are the UAI 2014 instances of the corpus. All run in CI: with
// the junction tree (the Auto engine for all marginals and for models of 30
// or more variables) every PR and MAR answer takes at most a few seconds
// (all 16 together about 30 s on a loaded 2-core machine). With variable
// elimination alone, MAR took up to ~19 minutes (one elimination over the
// whole Markov network per variable).
var instances = []string{
	"Promedus_24",
	"Grids_12",
	"Promedus_13",
	"CSP_12",
	"Segmentation_11",
	"Alchemy_11",
	"DBN_11",
	"ObjectDetection_34",
}

// load reads the model and evidence of an instance in dir.
func load(t *testing.T, dir, name string) (*ir.Model, []ir.Obs) {
	t.Helper()
	path := filepath.Join(dir, name+".uai")
	m, err := uai.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := uai.ReadEvidenceFile(path+".evid", m)
	if err != nil {
		t.Fatal(err)
	}
	return m, ev
}

// halfUnit returns half a unit in the last digit of the number written as
// text: the largest error of a correctly rounded printout. A number printed
// by %g with 6 significant digits loses its trailing zeros ("1" for
// 0.9999996), so the unit is also at most that of the 6th significant
// digit.
func halfUnit(text string) float64 {
	mant, exp := text, 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mant = text[:i]
		exp, _ = strconv.Atoi(text[i+1:])
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	unit := math.Pow10(exp - decimals)
	x, _ := strconv.ParseFloat(text, 64)
	if x != 0 {
		unit = min(unit, math.Pow10(int(math.Floor(math.Log10(math.Abs(x))))-5))
	}
	return unit / 2
}

// within reports whether got equals the printed want to its printed
// precision. The slack of 1e-9 relative covers a reference value that lay
// within rounding error of a rounding boundary. It fails on NaN.
func within(got float64, want string) bool {
	w, err := strconv.ParseFloat(want, 64)
	if err != nil {
		return false
	}
	return math.Abs(got-w) <= halfUnit(want)+1e-9*math.Abs(w)
}

// fields returns the tokens of a file.
func fields(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(src))
}

// TestCorpusPR checks log10 P(e) (log10 Z(e) of these Markov networks),
// computed by infer.Answer with the default options from Result.LogP,
// against each instance's .PR file to the printed precision: the files
// print 6 significant digits (606.279, -4.50703), so the tolerance is half
// a unit of the last digit printed (5e-4 and 5e-6 there), the error of a
// correctly rounded printout. This is tighter than a relative 5e-5 for
// every instance.
func TestCorpusPR(t *testing.T) {
	dir := formattest.Corpus(t, "uai")
	for _, name := range answered() {
		t.Run(name, func(t *testing.T) {
			m, ev := load(t, dir, name)
			start := time.Now()
			// PR is log10 of the partition function with the evidence,
			// Z(e): Result.LogZ (P(e) is Z(e)/Z, and may underflow).
			res, err := infer.Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, infer.Options{})
			var under *infer.UnderflowError
			if errors.As(err, &under) {
				res, err = &infer.Evidence{LogZ: under.LogZ}, nil
			}
			if err != nil {
				t.Fatal(err)
			}
			got := res.(*infer.Evidence).LogZ / math.Ln10
			src, err := os.ReadFile(filepath.Join(dir, name+".uai.PR"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := uai.ReadPR(name+".uai.PR", src)
			if err != nil {
				t.Fatal(err)
			}
			text := fields(t, filepath.Join(dir, name+".uai.PR"))[1]
			if !within(got, text) {
				t.Errorf("log10 Z = %.9g, want %s (±%g)", got, text, halfUnit(text))
			}
			t.Logf("log10 Z = %.9g, want %g, in %v", got, want, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestCorpusMAR checks every variable's marginal, from infer.Answer with
// the default options (point masses for observed variables), against each
// instance's .MAR file. The files print 6 significant digits, so each
// probability must match to half a unit of its last printed digit (5e-7
// for 0.988438, 5e-14 for 1.2055e-08) and never by more than 1e-6.
func TestCorpusMAR(t *testing.T) {
	dir := formattest.Corpus(t, "uai")
	for _, name := range answered() {
		t.Run(name, func(t *testing.T) {
			m, ev := load(t, dir, name)
			start := time.Now()
			res, err := infer.Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, infer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			got := make([][]float64, len(m.Vars))
			for _, o := range ev {
				got[o.Var] = make([]float64, len(m.Vars[o.Var].States))
				got[o.Var][o.State] = 1
			}
			for _, mg := range res.(*infer.Marginals).Marginals {
				got[mg.Var] = mg.P
			}
			path := filepath.Join(dir, name+".uai.MAR")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := uai.ReadMAR(name+".uai.MAR", src)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != len(got) {
				t.Fatalf("%d marginals, want %d", len(got), len(want))
			}
			text := fields(t, path)[2:] // after MAR and n
			worst, bad := 0.0, 0
			for v := range want {
				k, _ := strconv.Atoi(text[0])
				texts := text[1 : 1+k]
				text = text[1+k:]
				if len(got[v]) != len(want[v]) {
					t.Errorf("X%d: %d states, want %d", v, len(got[v]), len(want[v]))
					continue
				}
				for s, p := range got[v] {
					d := math.Abs(p - want[v][s])
					worst = max(worst, d)
					if !within(p, texts[s]) || !(d <= 1e-6) {
						if bad++; bad <= 10 {
							t.Errorf("P(X%d=%d) = %.9g, want %s (±%g)", v, s, p, texts[s], min(halfUnit(texts[s]), 1e-6))
						}
					}
				}
			}
			if bad > 10 {
				t.Errorf("... %d wrong probabilities in all", bad)
			}
			t.Logf("%d marginals in %v; largest difference %.2g", len(got), elapsed.Round(time.Millisecond), worst)
		})
	}
}

// sameFactor reports whether f and g have the same scope and bit-identical
// values.
func sameFactor(f, g *ir.Factor) bool {
	if len(f.Vars) != len(g.Vars) || len(f.Vals) != len(g.Vals) {
		return false
	}
	for i := range f.Vars {
		if f.Vars[i] != g.Vars[i] || f.Card[i] != g.Card[i] {
			return false
		}
	}
	for i := range f.Vals {
		if math.Float64bits(f.Vals[i]) != math.Float64bits(g.Vals[i]) {
			return false
		}
	}
	return true
}

// roundTrip writes m as UAI and reads it back.
func roundTrip(t *testing.T, m *ir.Model) *ir.Model {
	t.Helper()
	var buf bytes.Buffer
	if err := uai.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	m2, err := uai.Read("roundtrip.uai", buf.Bytes())
	if err != nil {
		t.Fatalf("reading the written model: %v", err)
	}
	return m2
}

// TestCorpusRoundTrip reads every corpus instance, writes it and reads it
// back: the variables' cardinalities and every factor must be identical,
// bit for bit.
func TestCorpusRoundTrip(t *testing.T) {
	dir := formattest.Corpus(t, "uai")
	for _, name := range instances {
		t.Run(name, func(t *testing.T) {
			m, _ := load(t, dir, name)
			m2 := roundTrip(t, m)
			if len(m2.Vars) != len(m.Vars) {
				t.Fatalf("%d variables, want %d", len(m2.Vars), len(m.Vars))
			}
			for v := range m.Vars {
				if len(m2.Vars[v].States) != len(m.Vars[v].States) {
					t.Errorf("X%d has %d states, want %d", v, len(m2.Vars[v].States), len(m.Vars[v].States))
				}
			}
			if len(m2.Potentials) != len(m.Potentials) || len(m2.Dists) != len(m.Dists) {
				t.Fatalf("%d potentials, want %d", len(m2.Potentials), len(m.Potentials))
			}
			for i, f := range m.Potentials {
				if !sameFactor(f, m2.Potentials[i]) {
					t.Errorf("factor %d differs after the round trip", i)
				}
			}
		})
	}
}

// TestBIFRoundTrip writes BIF networks of the corpus as UAI BAYES and reads
// them back: the parents and CPTs must be identical, bit for bit.
func TestBIFRoundTrip(t *testing.T) {
	dir := formattest.Corpus(t, "bif")
	for _, name := range []string{"asia", "alarm", "child", "insurance", "hailfinder", "win95pts", "andes", "munin.bif.gz"} {
		t.Run(name, func(t *testing.T) {
			file := name
			if !strings.HasSuffix(file, ".gz") {
				file += ".bif"
			}
			m, err := bif.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := uai.Write(&buf, m); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(buf.Bytes(), []byte("BAYES\n")) {
				t.Fatalf("a Bayesian network written as %q", bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0])
			}
			m2, err := uai.Read(name+".uai", buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !m2.IsBayesNet() || len(m2.Vars) != len(m.Vars) {
				t.Fatalf("read back %d variables (Bayesian network: %v), want %d", len(m2.Vars), m2.IsBayesNet(), len(m.Vars))
			}
			for v := range m.Vars {
				c := m.Table(ir.VarID(v))
				if c == nil {
					continue
				}
				c2 := m2.Table(ir.VarID(v))
				if len(c2.Parents) != len(c.Parents) {
					t.Fatalf("%s: %d parents, want %d", m.Vars[v].Name, len(c2.Parents), len(c.Parents))
				}
				for i := range c.Parents {
					if c2.Parents[i] != c.Parents[i] {
						t.Errorf("%s: parent %d is X%d, want X%d", m.Vars[v].Name, i, c2.Parents[i], c.Parents[i])
					}
				}
				if !sameFactor(c.Factor, c2.Factor) {
					t.Errorf("the CPT of %s differs after the round trip", m.Vars[v].Name)
				}
			}
		})
	}
}
