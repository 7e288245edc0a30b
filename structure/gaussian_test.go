package structure_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/sample"
	"github.com/pbl-lang/pbl/structure"
)

// readReal reads a CSV file of real-valued (and discrete) columns.
func readReal(t *testing.T, path string) *structure.Data {
	t.Helper()
	d, err := structure.ReadCSVNumeric(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func index(t *testing.T, d *structure.Data, name string) int {
	t.Helper()
	i := slices.Index(d.Names, name)
	if i < 0 {
		t.Fatalf("no variable %q", name)
	}
	return i
}

// TestGaussianScoresReference checks the Gaussian, CLG and BGe family
// scores and Fisher's z test against numbers computed independently by
// numpy and scipy from the formulas (testdata/gaussref.py, whose output
// is testdata/gaussref.txt), to 1e-9 relative.
func TestGaussianScoresReference(t *testing.T) {
	f, err := os.Open("testdata/gaussref.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	datas := map[string]*structure.Data{}
	sc := bufio.NewScanner(f)
	checked := 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			t.Fatalf("bad line %q", sc.Text())
		}
		file, kind, child, list := fs[0], fs[1], fs[2], fs[3]
		want, err := strconv.ParseFloat(fs[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		d := datas[file]
		if d == nil {
			d = readReal(t, filepath.Join("testdata", file))
			datas[file] = d
		}
		var ps []int
		if list != "-" {
			for _, p := range strings.Split(list, ",") {
				ps = append(ps, index(t, d, p))
			}
		}
		var got float64
		switch kind {
		case "zf-stat", "zf-p":
			corr, err := structure.Correlation(d)
			if err != nil {
				t.Fatal(err)
			}
			tst := structure.NewTester(nil, nil, structure.FisherZ)
			tst.Corr, tst.Rows = corr, d.N
			r, err := tst.Test(index(t, d, child), ps[0], ps[1:])
			if err != nil {
				t.Fatal(err)
			}
			got = r.Stat
			if kind == "zf-p" {
				got = r.P
			}
		default:
			k, err := structure.ParseScore(kind)
			if err != nil {
				t.Fatal(err)
			}
			got = structure.NewScorer(d, k, 1).Family(index(t, d, child), ps)
		}
		if !(math.Abs(got-want) <= 1e-9*math.Abs(want)) {
			t.Errorf("%s %s %s | %s: got %.17g, want %.17g", file, kind, child, list, got, want)
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("checked %d numbers", checked)
	}
}

// TestGaussianColumns: a column of fractions becomes real-valued, one of
// whole numbers or words stays discrete.
func TestGaussianColumns(t *testing.T) {
	d := readReal(t, "testdata/clg500.csv")
	for _, tc := range []struct {
		name string
		real bool
	}{{"Age", true}, {"Pressure", true}, {"Dose", true}, {"Smoker", false}} {
		if got := d.IsReal(index(t, d, tc.name)); got != tc.real {
			t.Errorf("%s: real %v, want %v", tc.name, got, tc.real)
		}
	}
	// A discrete child of a real parent scores −Inf; bdeu and bge refuse
	// mixed data.
	s := structure.NewScorer(d, structure.BIC, 1)
	if v := s.Family(index(t, d, "Smoker"), []int{index(t, d, "Age")}); !math.IsInf(v, -1) {
		t.Errorf("Smoker | Age: %v, want -Inf", v)
	}
	for _, k := range []structure.Score{structure.BDeu, structure.K2, structure.BGe} {
		if err := structure.CheckScore(d, k); err == nil {
			t.Errorf("%s on mixed data: no error", k)
		}
	}
}

// sampleData draws n rows of an example network.
func sampleData(t *testing.T, model string, n int, seed uint64) string {
	t.Helper()
	m, err := pbl.LoadFile(filepath.Join("..", "examples", model))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sample.WriteCSV(&b, m, n, seed, 0); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGaussianRecovery: from 20,000 rows of examples/gaussian.pbl, hill
// climbing by BIC and by BGe, and PC with Fisher's z, find the true
// graph's CPDAG (Temp → Growth ← Rain, Growth — Yield — Price directed
// by Meek's rule 1: every edge directed).
func TestGaussianRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 rows")
	}
	d := readReal(t, sampleData(t, "gaussian.pbl", 20000, 3))
	m, err := pbl.LoadFile("../examples/gaussian.pbl")
	if err != nil {
		t.Fatal(err)
	}
	truth, err := structure.Reindex(structure.FromModel(m), d.Names)
	if err != nil {
		t.Fatal(err)
	}
	want := structure.CPDAGOf(truth)
	for _, k := range []structure.Score{structure.BIC, structure.BGe} {
		res, err := structure.HillClimb(structure.NewScorer(d, k, 1), nil, structure.Options{Tabu: 10})
		if err != nil {
			t.Fatal(err)
		}
		if diff := structure.Compare(structure.CPDAGOf(res.DAG), want); diff.SHD != 0 {
			t.Errorf("hc %s: SHD %d: %v", k, diff.SHD, res.DAG.Edges())
		}
		if tot := structure.NewScorer(d, k, 1).Total(truth); res.Score < tot-1e-6*math.Abs(tot) {
			t.Errorf("hc %s: score %v below the true graph's %v", k, res.Score, tot)
		}
	}
	corr, err := structure.Correlation(d)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := structure.PC(t.Context(), nil, nil, d.Names, structure.PCOptions{Test: structure.FisherZ, Corr: corr, Rows: d.N, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if diff := structure.Compare(cp, want); diff.SHD != 0 {
		t.Errorf("pc zf: SHD %d: %s", diff.SHD, cp)
	}
}

// TestCLGRecovery: from mixed data (examples/clg.pbl), hill climbing by
// the CLG BIC finds Pressure's three parents, and no edge leaves a real
// variable for a discrete one.
func TestCLGRecovery(t *testing.T) {
	d := readReal(t, sampleData(t, "clg.pbl", 5000, 5))
	res, err := structure.HillClimb(structure.NewScorer(d, structure.BIC, 1), nil, structure.Options{Tabu: 10})
	if err != nil {
		t.Fatal(err)
	}
	p := index(t, d, "Pressure")
	var got []string
	for _, q := range res.DAG.Parents[p] {
		got = append(got, d.Names[q])
	}
	slices.Sort(got)
	if want := []string{"Age", "Dose", "Smoker"}; !slices.Equal(got, want) {
		t.Errorf("Pressure's parents %v, want %v (graph %v)", got, want, res.DAG.Edges())
	}
	if res.DAG.NumEdges() != 3 {
		t.Errorf("%d edges, want 3: %v", res.DAG.NumEdges(), res.DAG.Edges())
	}
}

// TestNumericErrors: a real-valued column with a missing cell is an
// error of kind ErrBadData naming the row; a column of whole numbers or
// with a word stays discrete.
func TestNumericErrors(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		wantErr   bool
		real      []bool
	}{
		{"fractions", "a,b\n1.5,1\n2,2\n3.25,1\n", false, []bool{true, false}},
		{"missing", "a,b\n1.5,1\n,2\n3.25,1\n", true, nil},
		{"word", "a,b\n1.5,x\n2.5,2\n3.25,1\n", false, []bool{true, false}},
		{"integers", "a,b\n1,1\n2,2\n3,1\n", false, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.csv")
			if err := os.WriteFile(path, []byte(tc.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := structure.ReadCSV(path)
			if err != nil {
				t.Fatal(err)
			}
			err = d.Numeric()
			if tc.wantErr {
				if !errors.Is(err, structure.ErrBadData) || !strings.Contains(err.Error(), "row 2") {
					t.Fatalf("error %v, want ErrBadData at row 2", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for v, want := range tc.real {
				if d.IsReal(v) != want {
					t.Errorf("column %d real %v, want %v", v, d.IsReal(v), want)
				}
			}
		})
	}
}

// TestFisherZFewRows: with n − |Z| − 3 ≤ 0 rows the test cannot reject.
func TestFisherZFewRows(t *testing.T) {
	d := readReal(t, "testdata/gauss500.csv")
	corr, err := structure.Correlation(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rows int
		z    []int
		p1   bool
	}{{3, nil, true}, {5, []int{2, 3}, true}, {6, []int{2, 3}, false}} {
		tst := structure.NewTester(nil, nil, structure.FisherZ)
		tst.Corr, tst.Rows = corr, tc.rows
		r, err := tst.Test(0, 1, tc.z)
		if err != nil {
			t.Fatal(err)
		}
		if (r.P == 1) != tc.p1 || r.DF != tc.rows-len(tc.z)-3 {
			t.Errorf("rows %d, z %v: P %v DF %d", tc.rows, tc.z, r.P, r.DF)
		}
	}
}

// randomGaussian returns a random linear Gaussian network of n variables
// in the language: each variable has up to 3 parents among the 8 before
// it, coefficients of size 0.4 to 1.2 either sign.
func randomGaussian(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("X%d", i)
	}
	fmt.Fprintf(&b, "var %s: real\n", strings.Join(names, ", "))
	for i := range n {
		lo := max(0, i-8)
		cand := rng.Perm(i - lo)
		k := min(len(cand), []int{0, 1, 1, 2, 2, 3}[rng.IntN(6)])
		ps := cand[:k]
		slices.Sort(ps)
		if k == 0 {
			fmt.Fprintf(&b, "P(%s) = normal(%.3f, %.3f)\n", names[i], rng.Float64()*10-5, 0.5+1.5*rng.Float64())
			continue
		}
		var pn, terms []string
		for _, p := range ps {
			c := 0.4 + 0.8*rng.Float64()
			if rng.IntN(2) == 0 {
				c = -c
			}
			pn = append(pn, names[lo+p])
			terms = append(terms, fmt.Sprintf("%+.3f * %s", c, names[lo+p]))
		}
		fmt.Fprintf(&b, "P(%s | %s) = normal(%.3f %s, %.3f)\n", names[i], strings.Join(pn, ", "), rng.Float64()*6-3, strings.Join(terms, " "), 0.5+1.5*rng.Float64())
	}
	return b.String()
}

// TestGaussian40: on 10,000 rows of random 40-variable Gaussian networks
// (the acceptance of issue 31), hill climbing by BIC finds a skeleton of
// F1 ≥ 0.9 and a BIC at least the true graph's − 0.1 %.
func TestGaussian40(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 rows of 40 variables")
	}
	for _, seed := range []uint64{1, 2} {
		src := randomGaussian(40, seed)
		m, err := pbl.Load("random.pbl", []byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		var buf bytes.Buffer
		if err := sample.WriteCSV(&buf, m, 10000, seed, 0); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "d.csv")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		d := readReal(t, path)
		truth, err := structure.Reindex(structure.FromModel(m), d.Names)
		if err != nil {
			t.Fatal(err)
		}
		s := structure.NewScorer(d, structure.BIC, 1)
		res, err := structure.HillClimb(s, nil, structure.Options{Tabu: 10})
		if err != nil {
			t.Fatal(err)
		}
		diff := structure.Compare(structure.CPDAGOf(truth), structure.CPDAGOf(res.DAG))
		_, _, f1 := diff.Skeleton()
		tot := s.Total(truth)
		t.Logf("seed %d: %d true edges, SHD %d, F1 %.3f, BIC %.1f vs the truth's %.1f", seed, truth.NumEdges(), diff.SHD, f1, res.Score, tot)
		if !(f1 >= 0.9) {
			t.Errorf("seed %d: skeleton F1 %.3f < 0.9", seed, f1)
		}
		if !(res.Score >= tot-0.001*math.Abs(tot)) {
			t.Errorf("seed %d: BIC %v below the truth's %v − 0.1%%", seed, res.Score, tot)
		}
	}
}

// TestReadCSVNumericLate: a column found real-valued in the first rows
// whose later cell is not a number, or is missing, is an error.
func TestReadCSVNumericLate(t *testing.T) {
	for _, tc := range []struct {
		name, cell string
		kind       error
		want       string
	}{
		{"word", "x", nil, `"x" is not a number`},
		{"missing", "", structure.ErrBadData, "missing cell in data row 1003"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("a,b\n")
			for i := range 1002 {
				fmt.Fprintf(&b, "%d.5,1\n", i)
			}
			fmt.Fprintf(&b, "%s,2\n1.5,1\n", tc.cell)
			path := filepath.Join(t.TempDir(), "d.csv")
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := structure.ReadCSVNumeric(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("error %v is not %v", err, tc.kind)
			}
		})
	}
}
