package pbl_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// corpusDir returns ../shared/corpus (or $PBL_CORPUS), skipping the test
// when it is absent.
func corpusDir(t testing.TB) string {
	d := os.Getenv("PBL_CORPUS")
	if d == "" {
		d = "../shared/corpus"
	}
	if _, err := os.Stat(d); err != nil {
		t.Skipf("corpus not found at %s (set PBL_CORPUS): %v", d, err)
	}
	return d
}

// close reports whether a and b agree within tol, absolutely or relatively.
// It is false if either is NaN.
func close(a, b, tol float64) bool {
	d := math.Abs(a - b)
	return d <= tol || d <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// randomQueries returns n random query texts over m: tables, numbers,
// evidence, all marginals, MPE and MAP, with random evidence, real-valued
// evidence on m's real variables that have densities, and densities.
func randomQueries(m *ir.Model, r *rand.Rand, n int) []string {
	var out []string
	var vars, reals []*ir.Variable
	for _, v := range m.Vars {
		switch {
		case v.Discrete():
			vars = append(vars, v)
		case m.Dist(v.ID) != nil:
			reals = append(reals, v)
		}
	}
	if len(vars) == 0 {
		return nil // a model of hypothesis spaces only: nothing for the engines
	}
	// realObs observes each real variable with probability 1/2, at a
	// value within a few units of 0 or far out.
	realObs := func() []string {
		var terms []string
		for _, v := range reals {
			if r.IntN(2) == 0 {
				x := r.NormFloat64() * 10
				if r.IntN(20) == 0 {
					x *= 1e100
				}
				terms = append(terms, ir.Quote(v.Name)+"="+strconv.FormatFloat(x, 'g', 6, 64))
			}
		}
		return terms
	}
	obs := func(k int, skip map[int]bool) []string {
		var terms []string
		for _, i := range r.Perm(len(vars)) {
			if len(terms) == k {
				break
			}
			if skip[i] {
				continue
			}
			skip[i] = true
			v := vars[i]
			terms = append(terms, ir.Quote(v.Name)+"="+ir.Quote(v.States[r.IntN(len(v.States))]))
		}
		return terms
	}
	for len(out) < n {
		skip := map[int]bool{}
		var targets []string
		nt := 1 + r.IntN(2)
		fixed := r.IntN(3) == 0
		for _, i := range r.Perm(len(vars))[:min(nt, len(vars))] {
			skip[i] = true
			name := ir.Quote(vars[i].Name)
			if fixed {
				name += "=" + ir.Quote(vars[i].States[r.IntN(len(vars[i].States))])
			}
			targets = append(targets, name)
		}
		dev, rev := obs(r.IntN(4), skip), realObs()
		ev := append(append([]string(nil), dev...), rev...)
		if len(vars) == 0 || len(reals) > 0 && r.IntN(6) == 0 {
			if ds := realObs(); len(ds) > 0 {
				out = append(out, "density("+strings.Join(ds, ", ")+")")
			}
			continue
		}
		given := ""
		if len(ev) > 0 {
			given = " | " + strings.Join(ev, ", ")
		}
		switch r.IntN(6) {
		case 0, 1:
			out = append(out, "P("+strings.Join(targets, ", ")+given+")")
		case 2:
			out = append(out, "P(*"+given+")")
		case 3:
			out = append(out, "MPE("+strings.Join(ev, ", ")+")")
		case 4:
			mapVars := strings.Split(strings.Join(targets, ","), ",")
			for i := range mapVars {
				mapVars[i], _, _ = strings.Cut(mapVars[i], "=")
			}
			out = append(out, "MAP("+strings.Join(mapVars, ", ")+given+")")
		case 5:
			if len(dev) > 0 && len(rev) == 0 {
				out = append(out, "P("+strings.Join(dev, ", ")+")")
			}
		}
	}
	return out
}

// numbers flattens a result into the numbers two engines must agree on:
// those it prints, and its probability. MPE and MAP contribute their
// probability only: exact ties may be broken differently.
func numbers(res infer.Result) []float64 {
	xs := pbl.ResultNumbers(res)
	switch r := res.(type) {
	case *infer.Number:
		xs = append(xs, r.P)
	case *infer.Evidence:
		xs = append(xs, r.P)
	case *infer.Assignment:
		xs = append(xs, r.P)
	case *infer.Density:
		xs = append(xs, r.Density, r.LogDensity)
	}
	return xs
}

// agree answers every query with each engine and checks the answers agree
// within tol (and that they fail together, e.g. on impossible evidence).
func agree(t *testing.T, m *ir.Model, queries []string, tol float64, engines ...infer.Options) {
	t.Helper()
	for _, text := range queries {
		q, err := pbl.ParseQuery(m, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		ref, refErr := infer.Answer(m, q, engines[0])
		for _, opt := range engines[1:] {
			got, err := infer.Answer(m, q, opt)
			if (err != nil) != (refErr != nil) {
				t.Errorf("%s: %v gives error %v, %v gives %v", text, engines[0].Engine, refErr, opt.Engine, err)
				continue
			}
			if err != nil {
				continue
			}
			a, b := numbers(ref), numbers(got)
			if len(a) != len(b) {
				t.Errorf("%s: %d numbers vs %d", text, len(a), len(b))
				continue
			}
			for i := range a {
				if !close(a[i], b[i], tol) {
					t.Errorf("%s: %v gives %v, %v/%v gives %v (entry %d)", text, engines[0].Engine, a[i], opt.Engine, opt.Order, b[i], i)
					break
				}
			}
		}
	}
}

var allEngines = []infer.Options{
	{Engine: infer.Enum},
	{Engine: infer.VE, Order: infer.MinFill},
	{Engine: infer.VE, Order: infer.MinWeight},
}

// TestExamplesEnginesAgree: enumeration and VE (both orders) agree to 1e-12
// on every example's own queries and on random ones.
func TestExamplesEnginesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, path := range examples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if heavyExample(path) {
				t.Skip("a heavy case (see heavy)")
			}
			m, err := pbl.LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if m.NeedsIdentification() {
				t.Skip("a causal graph whose observed distribution is elsewhere: no engine answers it (cause_test.go checks it)")
			}
			var queries []string
			for _, s := range m.Stmts {
				// Queries about hypotheses given data are not the engines'
				// (examples_hyp_test.go checks them).
				if qs, ok := s.(*ir.QueryStmt); ok {
					_, indep := qs.Query.(*ir.IndepQuery)
					_, cause := qs.Query.(*ir.CausalQuery) // the causal tests' (cause_test.go)
					if !indep && !cause && ir.HypOf(qs.Query) == nil {
						queries = append(queries, qs.Query.Head().Text)
					}
				}
			}
			queries = append(queries, randomQueries(m, r, 200)...)
			agree(t, m, queries, 1e-12, allEngines...)
		})
	}
}

// TestCorpusEnginesAgree: on the corpus networks small enough for
// enumeration, enumeration and VE agree to 1e-6 (the corpus rows are
// rounded, and VE prunes barren nodes).
func TestCorpusEnginesAgree(t *testing.T) {
	dir := corpusDir(t)
	r := rand.New(rand.NewPCG(2, 2))
	for _, name := range []string{"asia", "cancer", "earthquake", "survey", "sachs"} {
		t.Run(name, func(t *testing.T) {
			m, err := bif.ReadFile(filepath.Join(dir, "bif", name+".bif"))
			if err != nil {
				t.Fatal(err)
			}
			agree(t, m, randomQueries(m, r, 60), 1e-6, allEngines...)
		})
	}
}

// oracleScript answers posterior queries with the bench's numpy VE oracle
// (../shared/bench/lib), an implementation independent of pbl. It reads
// {"bif": path, "queries": [{"vars": [...], "evidence": {...}}]} on stdin
// and prints a list of flattened posteriors (row-major, last var fastest),
// or null where the evidence is impossible.
const oracleScript = `
import json, sys
sys.path.insert(0, sys.argv[1])
import bif, oracle
req = json.load(sys.stdin)
net = bif.load(req["bif"])
out = []
for q in req["queries"]:
    try:
        out.append([float(x) for x in oracle.posterior(net, q["vars"], q["evidence"]).ravel()])
    except ValueError:
        out.append(None)
json.dump(out, sys.stdout)
`

var (
	pyOnce       sync.Once
	pyPath, pyNo string
)

// pythonWithNumpy finds a Python with numpy, preferring Debian's
// /usr/bin/python3 (where apt-get install python3-numpy puts it), or
// returns "" and why not.
func pythonWithNumpy() (string, string) {
	pyOnce.Do(func() {
		pyNo = "no python3 with numpy found (apt-get install python3-numpy): the independent oracle cannot run"
		for _, py := range []string{"/usr/bin/python3", "python3"} {
			if exec.Command(py, "-c", "import numpy").Run() == nil {
				pyPath = py
				return
			}
		}
	})
	return pyPath, pyNo
}

type oracleQuery struct {
	Vars     []string          `json:"vars"`
	Evidence map[string]string `json:"evidence"`
}

// runOracle returns the oracle's posteriors, skipping the test when Python
// or numpy is missing.
func runOracle(t *testing.T, bifPath string, qs []oracleQuery) [][]float64 {
	t.Helper()
	lib, err := filepath.Abs(filepath.Join(corpusDir(t), "..", "bench", "lib"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(lib, "oracle.py")); err != nil {
		t.Skipf("oracle not found: %v", err)
	}
	py, why := pythonWithNumpy()
	if py == "" {
		t.Skip(why)
	}
	in, _ := json.Marshal(map[string]any{"bif": bifPath, "queries": qs})
	cmd := exec.Command(py, "-c", oracleScript, lib)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var res [][]float64
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	return res
}

// checkAgainstOracle answers random posterior queries with pbl's VE and
// compares them with the numpy oracle.
func checkAgainstOracle(t *testing.T, path string, r *rand.Rand, n int, tol float64) {
	m, err := bif.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var qs []oracleQuery
	var texts []string
	for len(qs) < n {
		perm := r.Perm(len(m.Vars))
		nt, ne := 1+r.IntN(2), r.IntN(6)
		if nt+ne > len(perm) {
			continue
		}
		q := oracleQuery{Evidence: map[string]string{}}
		var ev []string
		for _, i := range perm[:nt] {
			q.Vars = append(q.Vars, m.Vars[i].Name)
		}
		for _, i := range perm[nt : nt+ne] {
			v := m.Vars[i]
			s := v.States[r.IntN(len(v.States))]
			q.Evidence[v.Name] = s
			ev = append(ev, ir.Quote(v.Name)+"="+ir.Quote(s))
		}
		quoted := make([]string, len(q.Vars))
		for i, v := range q.Vars {
			quoted[i] = ir.Quote(v)
		}
		text := "P(" + strings.Join(quoted, ", ")
		if len(ev) > 0 {
			text += " | " + strings.Join(ev, ", ")
		}
		qs = append(qs, q)
		texts = append(texts, text+")")
	}
	want := runOracle(t, path, qs)
	for i, text := range texts {
		q, err := pbl.ParseQuery(m, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		res, err := infer.Answer(m, q, infer.Options{})
		if want[i] == nil {
			if err == nil {
				t.Errorf("%s: the oracle finds the evidence impossible, pbl answers", text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if len(res.(*infer.Table).Rows) != len(want[i]) {
			t.Errorf("%s: %d rows, oracle %d", text, len(res.(*infer.Table).Rows), len(want[i]))
			continue
		}
		for j, row := range res.(*infer.Table).Rows {
			if !close(row.P, want[i][j], tol) {
				t.Errorf("%s: row %d: pbl %v, oracle %v", text, j, row.P, want[i][j])
				break
			}
		}
	}
}

// TestCorpusAgainstOracle: VE agrees with the independent numpy oracle to
// 1e-6 on the small and medium corpus networks.
func TestCorpusAgainstOracle(t *testing.T) {
	dir := corpusDir(t)
	r := rand.New(rand.NewPCG(3, 3))
	for _, name := range []string{"asia", "cancer", "child", "insurance", "alarm", "sachs", "survey", "earthquake"} {
		t.Run(name, func(t *testing.T) {
			checkAgainstOracle(t, filepath.Join(dir, "bif", name+".bif"), r, 40, 1e-6)
		})
	}
}

// TestUnseenNetworksAgainstOracle: random networks pbl has never seen,
// written as BIF with exactly normalised rows, agree with the oracle to
// 1e-9.
func TestUnseenNetworksAgainstOracle(t *testing.T) {
	corpusDir(t) // the oracle lives beside the corpus
	r := rand.New(rand.NewPCG(4, 4))
	dir := t.TempDir()
	for k := 0; k < 6; k++ {
		path := filepath.Join(dir, fmt.Sprintf("net%d.bif", k))
		if err := os.WriteFile(path, []byte(randomBIF(r, 8+4*k)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) { checkAgainstOracle(t, path, r, 30, 1e-9) })
	}
}

// randomBIF writes a random network of n variables with 2-4 states and up
// to 3 parents among the previous variables; rows are normalised so that
// they sum to 1 in float64, and printed in round-trip form.
func randomBIF(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("network random {\n}\n")
	card := make([]int, n)
	for i := range n {
		card[i] = 2 + r.IntN(3)
		states := make([]string, card[i])
		for s := range states {
			states[s] = fmt.Sprintf("s%d", s)
		}
		fmt.Fprintf(&b, "variable v%d {\n  type discrete [ %d ] { %s };\n}\n", i, card[i], strings.Join(states, ", "))
	}
	for i := range n {
		var parents []int
		for _, p := range r.Perm(i) {
			if len(parents) < 3 && r.IntN(2) == 0 {
				parents = append(parents, p)
			}
		}
		row := func() string {
			p := make([]float64, card[i])
			sum := 0.0
			for j := range p {
				p[j] = 0.05 + r.Float64()
				sum += p[j]
			}
			s := make([]string, len(p))
			rest := 1.0
			for j := range p[:len(p)-1] {
				p[j] /= sum
				rest -= p[j]
			}
			p[len(p)-1] = rest
			for j := range p {
				s[j] = ir.FormatFloat(p[j])
			}
			return strings.Join(s, ", ")
		}
		if len(parents) == 0 {
			fmt.Fprintf(&b, "probability ( v%d ) {\n  table %s;\n}\n", i, row())
			continue
		}
		names := make([]string, len(parents))
		for j, p := range parents {
			names[j] = fmt.Sprintf("v%d", p)
		}
		fmt.Fprintf(&b, "probability ( v%d | %s ) {\n", i, strings.Join(names, ", "))
		cfg := make([]int, len(parents))
		for {
			states := make([]string, len(parents))
			for j, s := range cfg {
				states[j] = fmt.Sprintf("s%d", s)
			}
			fmt.Fprintf(&b, "  (%s) %s;\n", strings.Join(states, ", "), row())
			j := len(cfg) - 1
			for ; j >= 0; j-- {
				cfg[j]++
				if cfg[j] < card[parents[j]] {
					break
				}
				cfg[j] = 0
			}
			if j < 0 {
				break
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestLargeCorpusAgainstOracle: on the larger corpus networks pbl's
// default engine (the junction tree, for models of 30 or more variables)
// agrees with the independent numpy oracle to 1e-6. The number of queries
// per network is sized to the oracle's speed (one elimination per query:
// ~14 s on munin).
func TestLargeCorpusAgainstOracle(t *testing.T) {
	dir := corpusDir(t)
	r := rand.New(rand.NewPCG(6, 6))
	for _, tc := range []struct {
		file string
		n    int
	}{
		{"hailfinder.bif", 10}, {"hepar2.bif", 10}, {"win95pts.bif", 10}, {"pathfinder.bif.gz", 5},
		{"andes.bif", 5}, {"water.bif", 5}, {"mildew.bif.gz", 5}, {"pigs.bif", 3},
		{"barley.bif.gz", 5}, {"diabetes.bif.gz", 3}, {"munin.bif.gz", 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if !heavy() && (tc.file == "barley.bif.gz" || tc.file == "diabetes.bif.gz" || tc.file == "munin.bif.gz") {
				t.Skip("a heavy case (see heavy)")
			}
			checkAgainstOracle(t, filepath.Join(dir, "bif", tc.file), r, tc.n, 1e-6)
		})
	}
}
