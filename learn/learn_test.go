package learn_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/sample"
)

// randomNet builds a random Bayesian network of n variables with 2–4
// states and up to 3 parents among the earlier variables; its CPT rows are
// random with every entry at least about 0.05/k.
func randomNet(t testing.TB, r *rand.Rand, n int) *ir.Model {
	t.Helper()
	b := ir.NewBuilder("random")
	pos := ir.Pos{File: "random", Line: 1, Col: 1}
	card := make([]int, n)
	for i := range n {
		card[i] = 2 + r.IntN(3)
		states := make([]string, card[i])
		for s := range states {
			states[s] = fmt.Sprintf("s%d", s)
		}
		b.AddVar(pos, fmt.Sprintf("v%d", i), ir.Enum, states, 0)
	}
	for i := range n {
		var parents []ir.VarID
		for _, p := range r.Perm(i) {
			if len(parents) < 3 && r.IntN(2) == 0 {
				parents = append(parents, ir.VarID(p))
			}
		}
		size := card[i]
		for _, p := range parents {
			size *= card[p]
		}
		vals := make([]float64, size)
		for row := 0; row < size; row += card[i] {
			sum := 0.0
			for j := range card[i] {
				vals[row+j] = 0.05 + r.Float64()
				sum += vals[row+j]
			}
			for j := range card[i] {
				vals[row+j] /= sum
			}
		}
		b.SetCPT(pos, ir.VarID(i), parents, vals, nil)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reference computes a CPT by brute force from the rows of a batch, with
// the estimator's formula written out: for each parent configuration
// (enumerated with an odometer), scan every row.
func reference(m *ir.Model, b *data.Batch, child ir.VarID, parents []ir.VarID, opt learn.Options) []float64 {
	col := map[ir.VarID][]int32{}
	for j, v := range b.Vars {
		col[v] = b.Cols[j]
	}
	k := len(m.Vars[child].States)
	q := 1
	for _, p := range parents {
		q *= len(m.Vars[p].States)
	}
	out := make([]float64, 0, q*k)
	cfg := make([]int32, len(parents))
	for range q {
		counts := make([]float64, k)
		n := 0.0
	rows:
		for i := range b.N {
			for a, p := range parents {
				if col[p][i] != cfg[a] {
					continue rows
				}
			}
			if s := col[child][i]; s >= 0 {
				counts[s]++
				n++
			}
		}
		for j := range k {
			var p float64
			switch {
			case opt.Method == learn.MLE && n == 0:
				p = 1 / float64(k)
			case opt.Method == learn.MLE:
				p = counts[j] / n
			case opt.Method == learn.Bayes && opt.ESS > 0:
				a := opt.ESS / float64(q*k)
				p = (counts[j] + a) / (n + a*float64(k))
			case opt.Method == learn.Bayes:
				p = (counts[j] + opt.Alpha) / (n + opt.Alpha*float64(k))
			case opt.Method == learn.MEstimate:
				p = (counts[j] + opt.M/float64(k)) / (n + opt.M)
			}
			out = append(out, p)
		}
		for a := len(cfg) - 1; a >= 0; a-- {
			cfg[a]++
			if int(cfg[a]) < len(m.Vars[parents[a]].States) {
				break
			}
			cfg[a] = 0
		}
	}
	return out
}

var methods = []learn.Options{
	{Method: learn.MLE},
	{Method: learn.Bayes, Alpha: 1},
	{Method: learn.Bayes, Alpha: 0.37},
	{Method: learn.Bayes, ESS: 10},
	{Method: learn.MEstimate, M: 3},
}

func sampleCSV(t testing.TB, m *ir.Model, n int, seed uint64, missing float64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := sample.WriteCSV(&buf, m, n, seed, missing); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func opener(t testing.TB, name string, src []byte, _ *ir.Model) func(*ir.Model) (*data.Reader, error) {
	return func(m *ir.Model) (*data.Reader, error) {
		return data.NewReader(name, bytes.NewReader(src), m, data.Options{})
	}
}

// learnInto learns with learn.Learn and, on success, replaces *m by the
// model learned.
func learnInto(m **ir.Model, open func(*ir.Model) (*data.Reader, error), opt learn.Options) (*learn.Report, error) {
	out, rep, err := learn.Learn(*m, open, opt)
	if err == nil {
		*m = out
	}
	return rep, err
}

// learnTableInto is learnInto for learn.LearnTable.
func learnTableInto(m **ir.Model, t *ir.DataTable, opt learn.Options) (*learn.Report, error) {
	out, rep, err := learn.LearnTable(*m, t, opt)
	if err == nil {
		*m = out
	}
	return rep, err
}

// estimateInto is learnInto for learn.Estimate.
func estimateInto(m **ir.Model, c *learn.Counts, opt learn.Options) error {
	out, err := learn.Estimate(*m, c, opt)
	if err == nil {
		*m = out
	}
	return err
}

// TestLearnMatchesCounting: on data sampled from random networks, with
// 10% of cells missing (and 3,000 rows, so that some parent
// configurations are never seen), Learn (streaming, on every core) gives
// every CPT the brute-force reference's numbers to 1e-12, for every
// method; so do Counts.Add on pieces merged in another order, and
// LearnTable.
func TestLearnMatchesCounting(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for net := range 6 {
		truth := randomNet(t, r, 8+net)
		src := sampleCSV(t, truth, 3000, uint64(net), 0.1)
		all, err := data.ReadAll("d.csv", bytes.NewReader(src), truth, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range methods {
			m, _ := bif.Read("r.bif", mustBIF(t, truth))
			rep, err := learnInto(&m, opener(t, "d.csv", src, m), opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != 3000 || rep.MissingCounts == 0 {
				t.Errorf("report %+v", rep)
			}
			// The same counts, from two pieces merged in reverse order.
			m2, _ := bif.Read("r.bif", mustBIF(t, truth))
			c1, c2 := learn.NewCounts(m2, opt), learn.NewCounts(m2, opt)
			half := func(lo, hi int) *data.Batch {
				b := &data.Batch{N: hi - lo, Vars: all.Vars, Cols: make([][]int32, len(all.Cols))}
				for j, c := range all.Cols {
					b.Cols[j] = c[lo:hi]
				}
				return b
			}
			c1.Add(half(0, 1234))
			c2.Add(half(1234, all.N))
			c2.Merge(c1)
			if c2.Rows() != all.N {
				t.Errorf("Rows() = %d", c2.Rows())
			}
			if err := estimateInto(&m2, c2, opt); err != nil {
				t.Fatal(err)
			}
			for v := range m.Vars {
				cpt := m.Table(ir.VarID(v))
				want := reference(m, all, ir.VarID(v), cpt.Parents, opt)
				for name, got := range map[string][]float64{"Learn": cpt.Factor.Vals, "Counts": m2.Table(ir.VarID(v)).Factor.Vals} {
					if d := maxDiff(got, want); !(d <= 1e-12) {
						t.Fatalf("net %d, %+v, %s: P(v%d | %v) differs from counting by %g", net, opt, name, v, cpt.Parents, d)
					}
				}
			}
		}
	}
}

func mustBIF(t testing.TB, m *ir.Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := bif.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func maxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		x := math.Abs(a[i] - b[i])
		if !(x <= d) {
			d = x
		}
	}
	return d
}

// TestUnseenParentsUniform: with mle, a parent configuration the data
// never shows gets a uniform row; with a prior it gets the prior's row
// (uniform too, since the prior is symmetric).
func TestUnseenParentsUniform(t *testing.T) {
	m := loadModel(t, "var A: {a1, a2, a3}\nvar B: {x, y}\nA -> B\nlearn from \"d.csv\"\n")
	src := "A,B\na1,x\na1,y\na1,y\na2,x\n"
	if _, err := learnInto(&m, opener(t, "d.csv", []byte(src), m), learn.Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := m.Lookup("B")
	a, _ := m.Lookup("A")
	want := []float64{1.0 / 3, 2.0 / 3, 1, 0, 0.5, 0.5}
	if d := maxDiff(m.Table(ir.VarID(b.ID)).Factor.Vals, want); !(d <= 1e-15) {
		t.Errorf("P(B | A) = %v, want %v", m.Table(ir.VarID(b.ID)).Factor.Vals, want)
	}
	if d := maxDiff(m.Table(ir.VarID(a.ID)).Factor.Vals, []float64{0.75, 0.25, 0}); !(d <= 1e-15) {
		t.Errorf("P(A) = %v", m.Table(ir.VarID(a.ID)).Factor.Vals)
	}
}

func loadModel(t testing.TB, src string) *ir.Model {
	t.Helper()
	// Lowered without running its learn statements: the tests learn.
	files, err := pbl.Parse("m.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Lower(files...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRoundTrip: a learned model written as .bif and as .pbl reads back
// with bit-identical numbers.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	truth := randomNet(t, r, 12)
	src := sampleCSV(t, truth, 777, 5, 0.05)
	for _, opt := range methods {
		m, _ := bif.Read("r.bif", mustBIF(t, truth))
		if _, err := learnInto(&m, opener(t, "d.csv", src, m), opt); err != nil {
			t.Fatal(err)
		}
		var bb, pb bytes.Buffer
		if err := bif.Write(&bb, m); err != nil {
			t.Fatal(err)
		}
		if err := source.Write(&pb, m, "learned"); err != nil {
			t.Fatal(err)
		}
		mb, err := bif.Read("out.bif", bb.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		mp, err := pbl.Load("out.pbl", pb.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for v := range m.Vars {
			for name, got := range map[string]*ir.Model{"bif": mb, "pbl": mp} {
				a, b := m.Table(ir.VarID(v)).Factor.Vals, got.Table(ir.VarID(v)).Factor.Vals
				if len(a) != len(b) {
					t.Fatalf("%s: table sizes differ", name)
				}
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("%+v %s: v%d entry %d: wrote %v, read %v", opt, name, v, i, a[i], b[i])
					}
				}
			}
		}
	}
}

// TestOpenClassifier: a naive Bayes classifier whose variables are open
// learns from a CSV file the same numbers as the same classifier with
// declared states (in order of first appearance), in one pass; after
// learning the variables are closed. Errors leave the model as it was.
func TestOpenClassifier(t *testing.T) {
	src := []byte("C,A,B\nc1,a1,b1\nc2,a2,\nc1,a3,b2\n,a1,b1\nc2,a1,b2\n")
	open := loadModel(t, "naive_bayes C given A, B\nlearn from \"d.csv\"\n")
	decl := loadModel(t, "var C: {c1, c2}\nvar A: {a1, a2, a3}\nvar B: {b1, b2}\nnaive_bayes C given A, B\nlearn from \"d.csv\"\n")
	bad := []byte("C,A,B\nc1,a1,b1\nc3,a9,b1,extra\n")
	if _, err := learnInto(&open, opener(t, "d.csv", bad, open), learn.Options{}); err == nil || !strings.Contains(err.Error(), "d.csv:3:") {
		t.Fatalf("bad data: got %v", err)
	}
	for _, v := range open.Vars {
		if len(v.States) != 0 || !v.Open {
			t.Fatalf("after an error %s has states %v (open %v)", v.Name, v.States, v.Open)
		}
	}
	opt := learn.Options{Method: learn.Bayes, Alpha: 1}
	for _, m := range []**ir.Model{&open, &decl} {
		if _, err := learnInto(m, opener(t, "d.csv", src, *m), opt); err != nil {
			t.Fatal(err)
		}
	}
	for v := range open.Vars {
		a, b := open.Table(ir.VarID(v)).Factor.Vals, decl.Table(ir.VarID(v)).Factor.Vals
		if d := maxDiff(a, b); !(d <= 0) || open.Vars[v].Open {
			t.Errorf("%s: open %v, declared %v (still open: %v)", open.Vars[v].Name, a, b, open.Vars[v].Open)
		}
	}
	a, _ := open.Lookup("A")
	if strings.Join(a.States, ",") != "a1,a2,a3" {
		t.Errorf("A's states %v", a.States)
	}
	// Now closed: a new state is an error.
	more := []byte("C,A,B\nc1,a4,b1\n")
	if _, err := learnInto(&open, opener(t, "e.csv", more, open), opt); err == nil || !strings.Contains(err.Error(), `unknown state "a4"`) {
		t.Errorf("a new state after learning: got %v", err)
	}
}

// TestMissingColumn: a learned family needs a column for each variable.
func TestMissingColumn(t *testing.T) {
	m := loadModel(t, "var A, B, C: bool\nA, B -> C\nlearn from \"d.csv\"\n")
	src := []byte("A,C\ntrue,false\n")
	_, err := learnInto(&m, opener(t, "d.csv", src, m), learn.Options{})
	if err == nil || !strings.Contains(err.Error(), `no column for B (needed to learn P(B))`) {
		t.Errorf("got %v", err)
	}
	a, _ := m.Lookup("A")
	c, _ := m.Lookup("C")
	// Learning only what the data covers: A, and C given A and B fails.
	if _, err := learnInto(&m, opener(t, "d.csv", src, m), learn.Options{Vars: []ir.VarID{a.ID}}); err != nil {
		t.Errorf("learning only A: %v", err)
	}
	if _, err := learnInto(&m, opener(t, "d.csv", src, m), learn.Options{Vars: []ir.VarID{c.ID}}); err == nil {
		t.Error("learning C without B's column succeeded")
	}
}

// TestParseMethod checks the names and the hint.
func TestParseMethod(t *testing.T) {
	for i, s := range []string{"mle", "bayes", "mestimate"} {
		if m, err := learn.ParseMethod(s); err != nil || m != learn.Method(i) || m.String() != s {
			t.Errorf("ParseMethod(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := learn.ParseMethod("baye"); err == nil || !strings.Contains(err.Error(), `did you mean "bayes"`) {
		t.Errorf("got %v", err)
	}
}

// corpus returns the path of a corpus network, or skips.
func corpus(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("PBL_CORPUS")
	if dir == "" {
		dir = "../../shared/corpus"
	}
	p := filepath.Join(dir, "bif", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus network %s not found (set PBL_CORPUS): %v", name, err)
	}
	return p
}

// TestAlarmRecovery: 100,000 rows sampled from ALARM recover its CPTs.
// The measure is KL(true row || learned row), averaged over the rows of
// each CPT weighted by the true probability of the parent configuration
// (estimated by the parent counts), then averaged over the 37 CPTs. With
// seed 1 and Laplace smoothing it measured 0.000062 nats (the worst CPT
// 0.000367); the bounds are 3× those figures.
func TestAlarmRecovery(t *testing.T) {
	path := corpus(t, "alarm.bif")
	truth, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := sampleCSV(t, truth, 100_000, 1, 0)
	m, _ := pbl.LoadFile(path)
	if _, err := learnInto(&m, opener(t, "alarm.csv", src, m), learn.Options{Method: learn.Bayes, Alpha: 1}); err != nil {
		t.Fatal(err)
	}
	all, _ := data.ReadAll("alarm.csv", bytes.NewReader(src), m, data.Options{})
	mean, worst := 0.0, 0.0
	for v := range m.Vars {
		kl := cptKL(m, all, truth.Table(ir.VarID(v)), m.Table(ir.VarID(v)))
		mean += kl / float64(len(m.Vars))
		worst = max(worst, kl)
	}
	t.Logf("mean KL per CPT %.6f nats, worst %.6f", mean, worst)
	if !(mean <= 0.00019) || !(worst <= 0.0011) {
		t.Errorf("mean KL %.6f (bound 0.00019), worst %.6f (bound 0.0011)", mean, worst)
	}
}

// cptKL returns Σ_u w(u) KL(P(.|u) || Q(.|u)) with w the empirical
// frequency of the parent configuration u.
func cptKL(m *ir.Model, b *data.Batch, p, q *ir.CPT) float64 {
	f := p.Factor
	k := f.Card[len(f.Card)-1]
	rows := len(f.Vals) / k
	w := make([]float64, rows)
	col := map[ir.VarID][]int32{}
	for j, v := range b.Vars {
		col[v] = b.Cols[j]
	}
	for i := range b.N {
		r := 0
		for a, v := range p.Parents {
			r = r*f.Card[a] + int(col[v][i])
		}
		w[r]++
	}
	kl := 0.0
	for r := range rows {
		for j := range k {
			x, y := f.Vals[r*k+j], q.Factor.Vals[r*k+j]
			if x > 0 {
				kl += w[r] / float64(b.N) * x * math.Log(x/y)
			}
		}
	}
	return kl
}

// TestOpenGrowsAcrossBatches: states of open variables that first appear
// late in a large file (in batches counted by different workers, whose
// tables then differ in size when merged) give the same CPTs as declared
// states.
func TestOpenGrowsAcrossBatches(t *testing.T) {
	var b strings.Builder
	b.WriteString("C,A,B\n")
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 50_000 {
		na, nb := 2, 2
		if i > 20_000 {
			na = 4
		}
		if i > 41_000 {
			nb = 3
		}
		fmt.Fprintf(&b, "c%d,a%d,b%d\n", r.IntN(2), r.IntN(na), r.IntN(nb))
	}
	src := []byte(b.String())
	open := loadModel(t, "naive_bayes C given A, B\nlearn from \"d.csv\"\n")
	if _, err := learnInto(&open, opener(t, "d.csv", src, open), learn.Options{}); err != nil {
		t.Fatal(err)
	}
	// Declared with the states in the order the data showed them.
	var decls strings.Builder
	for _, v := range open.Vars {
		fmt.Fprintf(&decls, "var %s: {%s}\n", v.Name, strings.Join(v.States, ", "))
	}
	if len(open.Vars[1].States) != 4 || len(open.Vars[2].States) != 3 {
		t.Fatalf("states %v, %v", open.Vars[1].States, open.Vars[2].States)
	}
	decl := loadModel(t, decls.String()+"naive_bayes C given A, B\nlearn from \"d.csv\"\n")
	if _, err := learnInto(&decl, opener(t, "d.csv", src, decl), learn.Options{}); err != nil {
		t.Fatal(err)
	}
	for v := range open.Vars {
		if d := maxDiff(open.Table(ir.VarID(v)).Factor.Vals, decl.Table(ir.VarID(v)).Factor.Vals); !(d <= 0) {
			t.Errorf("%s: open %v, declared %v", open.Vars[v].Name, open.Table(ir.VarID(v)).Factor.Vals, decl.Table(ir.VarID(v)).Factor.Vals)
		}
	}
}

// TestIdentifierColumns: open variables that take a new state in every row
// (identifiers, real numbers read as states) would need count tables of
// billions of entries: learning refuses them with a message, quickly and
// without running out of memory, instead of growing the tables.
func TestIdentifierColumns(t *testing.T) {
	var src strings.Builder
	src.WriteString("C,A\n")
	for i := range 6000 {
		fmt.Fprintf(&src, "c%d,a%d\n", i, i)
	}
	m := loadModel(t, "naive_bayes C given A\n")
	_, err := learnInto(&m, opener(t, "uniq.csv", []byte(src.String()), m), learn.Options{})
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 16777216") || !strings.Contains(err.Error(), "identifier") {
		t.Errorf("got %v", err)
	}
}
