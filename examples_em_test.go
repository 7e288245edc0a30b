package pbl_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// The examples of learning with missing data and hidden variables say how
// EM compares with counting from the available cases; these tests measure
// it. (Their printed answers are checked by their golden files.)

// structure returns the model of the example at path without running its
// learn statements, and its learn statement's CSV file.
func structure(t *testing.T, path string) (*ir.Model, string) {
	t.Helper()
	files, err := pbl.Parse(path, mustRead(t, path))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Lower(files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Stmts {
		if l, ok := s.(*ir.LearnStmt); ok {
			return m, l.File
		}
	}
	t.Fatalf("%s has no learn statement", path)
	return nil, ""
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	src, err := input.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// jointKL returns KL(p || q) of two models over the same discrete
// variables, by enumerating their joint distributions.
func jointKL(t *testing.T, p, q *ir.Model) float64 {
	t.Helper()
	n := len(p.Vars)
	x := make([]int, n)
	prob := func(m *ir.Model) float64 {
		pr := 1.0
		for v := range n {
			f := m.Factor(ir.VarID(v))
			off := 0
			for k, u := range f.Vars {
				off += x[u] * f.Stride[k]
			}
			pr *= f.Vals[off]
		}
		return pr
	}
	kl := 0.0
	for {
		if a := prob(p); a > 0 {
			kl += a * math.Log(a/prob(q))
		}
		v := n - 1
		for ; v >= 0; v-- {
			x[v]++
			if x[v] < len(p.Vars[v].States) {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			return kl
		}
	}
}

// TestMissingDataExample: on examples/missing_data.pbl's data (30% of
// cells missing), EM's model is nearer the truth than available-case
// counting with the same prior, by the figures the example quotes.
func TestMissingDataExample(t *testing.T) {
	const path = "examples/missing_data.pbl"
	truth, err := pbl.LoadFile("examples/asia.pbl")
	if err != nil {
		t.Fatal(err)
	}
	em, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, csv := structure(t, path)
	counted, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(csv, m, data.Options{}) }, learn.Options{Method: learn.Bayes, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	klEM, klCount := jointKL(t, truth, em), jointKL(t, truth, counted)
	t.Logf("KL(truth || learned): EM %.4f nats, available-case counting %.4f", klEM, klCount)
	if !(math.Abs(klEM-0.0101) < 0.00005) || !(math.Abs(klCount-0.0141) < 0.00005) {
		t.Errorf("KL: EM %.4f, counting %.4f; the example says 0.0101 and 0.0141", klEM, klCount)
	}
	if !(klEM < klCount) {
		t.Errorf("EM's KL %.4f is not below counting's %.4f", klEM, klCount)
	}
}

// TestSemiSupervisedExample: EM's naive Bayes, which learns from the
// unlabelled rows too, classifies held-out articles better than the one
// learned from the labelled rows alone, by the figures the example
// quotes.
func TestSemiSupervisedExample(t *testing.T) {
	const path = "examples/semi_supervised.pbl"
	em, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, csv := structure(t, path)
	labelled, rep, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(csv, m, data.Options{}) }, learn.Options{Method: learn.Bayes, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 4000 || rep.PartialRows != 4000-129 {
		t.Errorf("%d rows, %d without a label; the example says 4,000 and 3,871", rep.Rows, rep.PartialRows)
	}
	score := func(m *ir.Model) *learn.Metrics {
		test, err := data.ReadAll("examples/data/topics_test.csv", bytes.NewReader(mustRead(t, "examples/data/topics_test.csv")), m, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		topic, _ := m.Lookup("Topic")
		met, _, err := learn.Evaluate(m, topic.ID, test)
		if err != nil {
			t.Fatal(err)
		}
		return met
	}
	a, b := score(em), score(labelled)
	t.Logf("EM: accuracy %.4f, log loss %.4f; labelled rows only: %.4f, %.4f", a.Accuracy, a.LogLoss, b.Accuracy, b.LogLoss)
	if !(math.Abs(a.Accuracy-0.639) < 0.0005) || !(math.Abs(b.Accuracy-0.5845) < 0.0005) {
		t.Errorf("accuracy: EM %.4f, labelled only %.4f; the example says 0.639 and 0.585", a.Accuracy, b.Accuracy)
	}
	if !(a.Accuracy > b.Accuracy) || !(a.LogLoss < b.LogLoss) {
		t.Errorf("EM does not do better than the labelled rows alone")
	}
}

// TestTwoMeansExample: Mitchell's two means, learned with the known
// variance, are the ones examples/two_means.pbl quotes.
func TestTwoMeansExample(t *testing.T) {
	m, err := pbl.LoadFile("examples/two_means.pbl")
	if err != nil {
		t.Fatal(err)
	}
	x, _ := m.Lookup("x")
	g := m.Gaussian(x.ID)
	// Which component gets which mean is an accident of the winning start.
	lo, hi := min(g.Mean[0], g.Mean[1]), max(g.Mean[0], g.Mean[1])
	if !(math.Abs(lo-2.914) < 0.0005) || !(math.Abs(hi-8.045) < 0.0005) || g.SD[0] != 1 || g.SD[1] != 1 {
		t.Errorf("means %v, sd %v; the example says 2.914 and 8.045, sd 1", g.Mean, g.SD)
	}
}

// TestAnomalyExample: on the validation file, the threshold the example
// quotes (ε = 7.200450045e-07, which pbl cluster --anomaly chooses) flags
// 13 rows, every one an anomaly, of the 15: F1 0.929; and the density of
// every row flagged is below ε, of every other row above.
func TestAnomalyExample(t *testing.T) {
	m, err := pbl.LoadFile("examples/anomaly.pbl")
	if err != nil {
		t.Fatal(err)
	}
	src := mustRead(t, "examples/data/servers_validation.csv")
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")[1:]
	const eps = 7.200450045e-07
	flagged, caught, anomalies := 0, 0, 0
	for _, l := range lines {
		f := strings.Split(l, ",")
		q, err := pbl.ParseQuery(m, "density(latency="+f[0]+", throughput="+f[1]+")")
		if err != nil {
			t.Fatal(err)
		}
		r, err := infer.Answer(m, q, infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		anom := f[2] == "yes"
		if anom {
			anomalies++
		}
		if r.(*infer.Density).Density <= eps*(1+1e-9) {
			flagged++
			if anom {
				caught++
			}
		}
	}
	p, rc := float64(caught)/float64(flagged), float64(caught)/float64(anomalies)
	f1 := 2 * p * rc / (p + rc)
	if len(lines) != 315 || anomalies != 15 || flagged != 13 || caught != 13 || !(math.Abs(f1-0.9285714286) < 1e-9) {
		t.Errorf("%d rows, %d anomalies, %d flagged, %d of them anomalies, F1 %v; the example says 315, 15, 13, 13, 0.929", len(lines), anomalies, flagged, caught, f1)
	}
}
