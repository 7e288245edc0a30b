package structure

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/ir"
)

func TestHillClimbNeverDecreases(t *testing.T) {
	d := randomData(21, []int{2, 3, 2, 3, 2, 2}, 800, 0.02)
	for _, kind := range []Score{BIC, AIC, BDeu, K2} {
		for _, tabu := range []int{0, 5} {
			s := NewScorer(d, kind, 1)
			start := NewDAG(d.Names)
			start.AddEdge(5, 0)
			start.AddEdge(4, 1)
			var trace []float64
			opt := Options{Tabu: tabu, Restarts: 2, Seed: 3, Progress: func(_ int, sc float64) { trace = append(trace, sc) }}
			res, err := HillClimb(s, start, opt)
			if err != nil {
				t.Fatal(err)
			}
			if s0 := s.Total(start); !(res.Score >= s0) {
				t.Errorf("%s tabu %d: score %v below the start's %v", kind, tabu, res.Score, s0)
			}
			for _, sc := range trace {
				if !(sc <= res.Score+1e-9*(1+-res.Score)) {
					t.Errorf("%s tabu %d: visited %v, better than the result %v", kind, tabu, sc, res.Score)
				}
			}
		}
	}
}

func TestSearchIndependentOfWorkers(t *testing.T) {
	d := randomData(31, []int{2, 3, 2, 3, 2, 4, 2, 3}, 1000, 0.03)
	type run func(s *Scorer, w int) (*Result, error)
	runs := map[string]run{
		"hc": func(s *Scorer, w int) (*Result, error) {
			return HillClimb(s, nil, Options{Tabu: 10, Restarts: 3, Seed: 9, Workers: w})
		},
		"k2": func(s *Scorer, w int) (*Result, error) {
			return K2Search(s, Options{Order: []int{0, 1, 2, 3, 4, 5, 6, 7}, Workers: w})
		},
		"chow-liu": func(s *Scorer, w int) (*Result, error) { return ChowLiu(s, Options{Workers: w}), nil },
	}
	for name, r := range runs {
		var ref *Result
		for _, w := range []int{1, 2, 3, 8} {
			res, err := r(NewScorer(d, BIC, 1), w)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res
				continue
			}
			if res.Score != ref.Score || !slices.Equal(res.DAG.Edges(), ref.DAG.Edges()) || res.Iterations != ref.Iterations {
				t.Errorf("%s with %d workers: %v %v, want %v %v", name, w, res.Score, res.DAG.Edges(), ref.Score, ref.DAG.Edges())
			}
		}
	}
}

func TestConstraintsHonoured(t *testing.T) {
	d := randomData(41, []int{2, 3, 2, 3, 2}, 1000, 0)
	free, err := HillClimb(NewScorer(d, BIC, 1), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	edges := free.DAG.Edges()
	if len(edges) == 0 {
		t.Fatal("no edges learned")
	}
	tests := []struct {
		name string
		opt  Options
	}{
		{"forbid learned", Options{Forbid: edges}},
		{"require absent", Options{Require: [][2]int{{4, 0}, {2, 0}}}},
		{"require reversed", Options{Require: [][2]int{{edges[0][1], edges[0][0]}}, Forbid: edges[1:]}},
		{"max parents", Options{MaxParents: 1, Tabu: 5}},
	}
	for _, tt := range tests {
		for _, method := range []string{"hc", "k2"} {
			s := NewScorer(d, BIC, 1)
			var res *Result
			var err error
			if method == "hc" {
				res, err = HillClimb(s, nil, tt.opt)
			} else {
				o := tt.opt
				o.Order = []int{4, 2, 3, 1, 0}
				if tt.name == "require reversed" {
					continue
				}
				res, err = K2Search(s, o)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", tt.name, method, err)
			}
			for _, e := range tt.opt.Require {
				if !res.DAG.HasEdge(e[0], e[1]) {
					t.Errorf("%s %s: required %v missing from %v", tt.name, method, e, res.DAG.Edges())
				}
			}
			for _, e := range tt.opt.Forbid {
				if res.DAG.HasEdge(e[0], e[1]) {
					t.Errorf("%s %s: forbidden %v in %v", tt.name, method, e, res.DAG.Edges())
				}
			}
			for v, ps := range res.DAG.Parents {
				if tt.opt.MaxParents > 0 && len(ps) > tt.opt.MaxParents {
					t.Errorf("%s %s: %d has parents %v", tt.name, method, v, ps)
				}
			}
		}
	}
	if _, err := HillClimb(NewScorer(d, BIC, 1), nil, Options{Require: [][2]int{{0, 1}}, Forbid: [][2]int{{0, 1}}}); err == nil {
		t.Errorf("an edge both required and forbidden: no error")
	}
}

// chainData is A -> B -> C with strong dependence, D independent.
func chainData(n int) *Data {
	d := randomData(51, []int{2, 2, 2, 2}, n, 0)
	rng := []int32{0, 1}
	for i := 0; i < n; i++ {
		a := d.Cols[0][i]
		b := a
		if i%10 == 0 {
			b = 1 - a
		}
		c := b
		if i%7 == 0 {
			c = 1 - b
		}
		d.Cols[1][i], d.Cols[2][i] = rng[b], rng[c]
		d.Cols[3][i] = int32(i*7919%13) % 2
	}
	return d
}

func TestK2KnownCase(t *testing.T) {
	d := chainData(2000)
	tests := []struct {
		order []int
		want  [][2]int
	}{
		{[]int{0, 1, 2, 3}, [][2]int{{0, 1}, {1, 2}}},
		{[]int{2, 1, 0, 3}, [][2]int{{1, 0}, {2, 1}}},
		{[]int{3, 0, 1, 2}, [][2]int{{0, 1}, {1, 2}}},
	}
	for _, tt := range tests {
		res, err := K2Search(NewScorer(d, K2, 1), Options{Order: tt.order})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.DAG.Edges(); !slices.Equal(got, tt.want) {
			t.Errorf("order %v: edges %v, want %v", tt.order, got, tt.want)
		}
	}
}

func TestChowLiuChain(t *testing.T) {
	d := chainData(2000)
	res := ChowLiu(NewScorer(d, BIC, 1), Options{})
	if res.DAG.NumEdges() != 3 {
		t.Fatalf("edges %v: want a tree of 3", res.DAG.Edges())
	}
	if !res.DAG.HasEdge(0, 1) || !res.DAG.HasEdge(1, 2) {
		t.Errorf("edges %v: want 0 -> 1 -> 2", res.DAG.Edges())
	}
	if mi := MutualInformation(d, 0, 1); !(mi > 0.3) {
		t.Errorf("I(A; B) = %v", mi)
	}
}

// skeletonF1 is the F1 score of g's skeleton against truth's: the
// harmonic mean of the share of g's adjacencies that are true and the
// share of the true adjacencies g has.
func skeletonF1(truth, g *DAG) float64 {
	tp, fp, fn := 0, 0, 0
	for a := range truth.N() {
		for b := a + 1; b < truth.N(); b++ {
			inT := truth.HasEdge(a, b) || truth.HasEdge(b, a)
			inG := g.HasEdge(a, b) || g.HasEdge(b, a)
			switch {
			case inT && inG:
				tp++
			case inG:
				fp++
			case inT:
				fn++
			}
		}
	}
	return 2 * float64(tp) / float64(2*tp+fp+fn)
}

// corpusNet reads a network of the corpus, skipping the test if absent.
func corpusNet(t testing.TB, name string) *ir.Model {
	t.Helper()
	dir := os.Getenv("PBL_CORPUS")
	if dir == "" {
		dir = "../../shared/corpus"
	}
	path := dir + "/bif/" + name + ".bif"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the corpus is absent (%v)", err)
	}
	m, err := bif.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// On data sampled from corpus networks, hill climbing with BIC finds a
// graph scoring at least the true graph's score less 0.05% whose skeleton
// has F1 ≥ 0.9 against the truth; and it finds the same graph with 1 and 2
// workers.
func TestHillClimbCorpus(t *testing.T) {
	tests := []struct {
		net  string
		rows int
	}{
		{"asia", 10000},
		{"sachs", 10000},
		{"child", 10000},
		{"insurance", 10000},
		{"alarm", 10000},
	}
	for _, tt := range tests {
		t.Run(tt.net, func(t *testing.T) {
			m := corpusNet(t, tt.net)
			d := pcSample(t, m, tt.rows, 7, 0)
			climbAndCheck(t, d, FromModel(m), fmt.Sprintf("%s, %d rows", tt.net, tt.rows))
		})
	}
}

// climbAndCheck climbs with BIC on d with 1 and 2 workers and checks that
// both find the same graph, scoring at least truth's score less 0.05%,
// whose skeleton has F1 ≥ 0.9 against truth's; what names the data in the
// log.
func climbAndCheck(t *testing.T, d *Data, truth *DAG, what string) {
	t.Helper()
	var ref *Result
	for _, w := range []int{1, 2} {
		s := NewScorer(d, BIC, 1)
		res, err := HillClimb(s, nil, Options{Tabu: 10, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if ref != nil {
			if res.Score != ref.Score || !slices.Equal(res.DAG.Edges(), ref.DAG.Edges()) {
				t.Errorf("2 workers: score %v, edges %v; 1 worker: %v, %v", res.Score, res.DAG.Edges(), ref.Score, ref.DAG.Edges())
			}
			continue
		}
		ref = res
		want := s.Total(truth)
		f1 := skeletonF1(truth, res.DAG)
		t.Logf("%s: score %.1f, truth %.1f (%+.4f%%), %d edges (truth %d), skeleton F1 %.3f, SHD %d", what, res.Score, want, 100*(res.Score-want)/-want, res.DAG.NumEdges(), truth.NumEdges(), f1, Compare(CPDAGOf(truth), CPDAGOf(res.DAG)).SHD)
		if !(res.Score >= want-0.0005*math.Abs(want)) {
			t.Errorf("score %v below the true graph's %v less 0.05%%", res.Score, want)
		}
		if !(f1 >= 0.9) {
			t.Errorf("skeleton F1 %.3f < 0.9", f1)
		}
	}
}

// K2 with the true ordering and PC find skeletons with F1 ≥ 0.85 on
// 50,000 rows of alarm.
func TestK2AndPCAlarm(t *testing.T) {
	if testing.Short() {
		t.Skip("50,000 rows of alarm")
	}
	m := corpusNet(t, "alarm")
	d := pcSample(t, m, 50000, 1, 0)
	truth := FromModel(m)
	k2, err := K2Search(NewScorer(d, K2, 1), Options{Order: truth.Order()})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := PC(context.Background(), d.Cols, d.Card, d.Names, PCOptions{Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name string
		g    *DAG
	}{{"k2", k2.DAG}, {"pc", cp.DAG()}} {
		f1 := skeletonF1(truth, r.g)
		t.Logf("%s: %d edges (truth %d), skeleton F1 %.3f, SHD %d", r.name, r.g.NumEdges(), truth.NumEdges(), f1, Compare(CPDAGOf(truth), CPDAGOf(r.g)).SHD)
		if !(f1 >= 0.85) {
			t.Errorf("%s: skeleton F1 %.3f < 0.85", r.name, f1)
		}
	}
}

// BenchmarkHillClimb learns from 50,000 rows sampled from corpus networks
// with the defaults of pbl structure (BIC, tabu 10, the three starts),
// reporting the score relative to the true graph's (in %), the skeleton's
// F1 and the SHD between the CPDAGs.
func BenchmarkHillClimb(b *testing.B) {
	for _, net := range []string{"alarm", "insurance", "hailfinder", "win95pts"} {
		b.Run(net, func(b *testing.B) {
			m := corpusNet(b, net)
			d := pcSample(b, m, 50000, 1, 0)
			truth := FromModel(m)
			want := NewScorer(d, BIC, 1).Total(truth)
			b.ResetTimer()
			for range b.N {
				res, err := HillClimb(NewScorer(d, BIC, 1), nil, Options{Tabu: 10})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(100*(res.Score-want)/math.Abs(want), "%vs-truth")
				b.ReportMetric(skeletonF1(truth, res.DAG), "F1")
				b.ReportMetric(float64(Compare(CPDAGOf(truth), CPDAGOf(res.DAG)).SHD), "shd")
			}
		})
	}
}
