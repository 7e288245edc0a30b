package learn_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// tanTree is the tree of tanTruth: tanTree[i] is feature i's parent.
var tanTree = []int{-1, 0, 1, 0, 3, 3}

// tanTruth builds a TAN network: class C: {c0, c1}; features F0..F5 with
// three states, each given C and its tree parent (tanTree), strongly
// dependent on the parent: P(F_i = (f_parent + c) mod 3 | c, f_parent) =
// 0.8.
func tanTruth(t testing.TB) *ir.Model {
	t.Helper()
	b := ir.NewBuilder("tan")
	pos := ir.Pos{File: "tan", Line: 1, Col: 1}
	c, _ := b.AddVar(pos, "C", ir.Enum, []string{"c0", "c1"}, 0)
	b.SetCPT(pos, c, nil, []float64{0.4, 0.6}, nil)
	var fs []ir.VarID
	for i := range tanTree {
		f, _ := b.AddVar(pos, fmt.Sprintf("F%d", i), ir.Enum, []string{"s0", "s1", "s2"}, 0)
		fs = append(fs, f)
	}
	for i, p := range tanTree {
		if p < 0 {
			b.SetCPT(pos, fs[i], []ir.VarID{c}, []float64{0.6, 0.3, 0.1, 0.2, 0.2, 0.6}, nil)
			continue
		}
		var vals []float64
		for cc := range 2 {
			for xp := range 3 {
				for x := range 3 {
					p := 0.1
					if x == (xp+cc)%3 {
						p = 0.8
					}
					vals = append(vals, p)
				}
			}
		}
		b.SetCPT(pos, fs[i], []ir.VarID{c, fs[p]}, vals, nil)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const tanSource = "tan C given F0, F1, F2, F3, F4, F5\nlearn from \"d.csv\"\n"

// TestTANRecoversTree: from 20,000 rows sampled from a TAN network (5%
// of cells missing), the learned tree is the true one, and the CPTs are
// those of counting with the learned parents.
func TestTANRecoversTree(t *testing.T) {
	truth := tanTruth(t)
	src := sampleCSV(t, truth, 20_000, 3, 0.05)
	m := loadModel(t, tanSource)
	if _, err := learnInto(&m, opener(t, "d.csv", src, m), learn.Options{Method: learn.Bayes, Alpha: 1}); err != nil {
		t.Fatal(err)
	}
	c, _ := m.Lookup("C")
	for i, p := range tanTree {
		f, _ := m.Lookup(fmt.Sprintf("F%d", i))
		want := []ir.VarID{c.ID}
		if p >= 0 {
			g, _ := m.Lookup(fmt.Sprintf("F%d", p))
			want = append(want, g.ID)
		}
		if got := m.Parents[f.ID]; fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(m.Table(ir.VarID(f.ID)).Parents) != fmt.Sprint(want) {
			t.Errorf("F%d's parents %v, want %v", i, got, want)
		}
	}
	all, _ := data.ReadAll("d.csv", bytes.NewReader(src), m, data.Options{})
	for v := range m.Vars {
		want := reference(m, all, ir.VarID(v), m.Table(ir.VarID(v)).Parents, learn.Options{Method: learn.Bayes, Alpha: 1})
		if d := maxDiff(m.Table(ir.VarID(v)).Factor.Vals, want); !(d <= 1e-12) {
			t.Errorf("%s: differs from counting by %g", m.Vars[v].Name, d)
		}
	}
}

// TestLogPosterior: on learned naive Bayes and TAN models (open
// variables, so states come from the data), LogPosterior equals the
// posterior infer.Answer computes, to 1e-12, on rows with missing
// features (in TAN, missing parents and missing inner nodes of the tree).
func TestLogPosterior(t *testing.T) {
	truth := tanTruth(t)
	train := sampleCSV(t, truth, 5000, 4, 0.1)
	test := sampleCSV(t, truth, 300, 5, 0.3)
	for _, kind := range []string{"naive_bayes", "tan"} {
		for _, opt := range []learn.Options{{Method: learn.Bayes, ESS: 5}, {Method: learn.MEstimate, M: 2}} {
			m := loadModel(t, strings.Replace(tanSource, "tan", kind, 1))
			if _, err := learnInto(&m, opener(t, "train.csv", train, m), opt); err != nil {
				t.Fatal(err)
			}
			b, err := data.ReadAll("test.csv", bytes.NewReader(test), m, data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := m.Lookup("C")
			dst := make([]float64, len(c.States))
			for i := range b.N {
				learn.LogPosterior(m, b, i, dst)
				var ev []string
				for j, v := range b.Vars {
					if v != c.ID && b.Cols[j][i] >= 0 {
						ev = append(ev, m.Vars[v].Name+"="+m.Vars[v].States[b.Cols[j][i]])
					}
				}
				text := "P(C)"
				if ev != nil {
					text = "P(C | " + strings.Join(ev, ", ") + ")"
				}
				q, err := pbl.ParseQuery(m, text)
				if err != nil {
					t.Fatal(err)
				}
				res, err := infer.Answer(m, q, infer.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for s, row := range res.(*infer.Table).Rows {
					if d := math.Abs(math.Exp(dst[s]) - row.P); !(d <= 1e-12) {
						t.Fatalf("%s %v row %d, %s: LogPosterior gives %v, infer %v", kind, opt, i, text, math.Exp(dst[s]), row.P)
					}
				}
			}
		}
	}
}

// TestChowLiuTies: with features independent of everything the weights
// are all 0 and the tree is the star rooted at the first
// feature (ties go to the lower index).
func TestChowLiuTies(t *testing.T) {
	m := loadModel(t, "var C, A, B, D: bool\ntan C given A, B, D\nlearn from \"d.csv\"\n")
	src := []byte("C,A,B,D\ntrue,true,true,true\n")
	if _, err := learnInto(&m, opener(t, "d.csv", src, m), learn.Options{Method: learn.Bayes, Alpha: 1}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"B", "D"} {
		v, _ := m.Lookup(name)
		if got := m.Parents[v.ID]; len(got) != 2 || m.Vars[got[1]].Name != "A" {
			t.Errorf("%s's parents %v, want C, A", name, got)
		}
	}
}

// TestLearnTable learns from an inline table as from the same CSV.
func TestLearnTable(t *testing.T) {
	src := "naive_bayes Play given Outlook, Wind\ndata d = {\n Outlook, Wind, Play\n sunny, weak, no\n rain, ?, yes\n overcast, strong, yes\n sunny, strong, no\n}\nlearn from d\n"
	m := loadModel(t, src)
	if _, err := learnTableInto(&m, m.Tables[0], learn.Options{Method: learn.MEstimate, M: 3}); err != nil {
		t.Fatal(err)
	}
	w := loadModel(t, src)
	csv := []byte("Outlook,Wind,Play\nsunny,weak,no\nrain,,yes\novercast,strong,yes\nsunny,strong,no\n")
	if _, err := learnInto(&w, opener(t, "d.csv", csv, w), learn.Options{Method: learn.MEstimate, M: 3}); err != nil {
		t.Fatal(err)
	}
	for v := range m.Vars {
		if d := maxDiff(m.Table(ir.VarID(v)).Factor.Vals, w.Table(ir.VarID(v)).Factor.Vals); !(d <= 0) {
			t.Errorf("%s: table %v, CSV %v", m.Vars[v].Name, m.Table(ir.VarID(v)).Factor.Vals, w.Table(ir.VarID(v)).Factor.Vals)
		}
	}
	// P(Outlook=overcast | Play=no) = (0 + 3/3) / (2 + 3).
	o, _ := m.Lookup("Outlook")
	if got := m.Table(ir.VarID(o.ID)).Factor.Vals[0*3+2]; !(math.Abs(got-0.2) <= 1e-15) {
		t.Errorf("P(overcast | no) = %v, want 0.2", got)
	}
}
