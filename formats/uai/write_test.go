package uai_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/ir"
)

// bayesPair is the network P(a) P(c | a), c of three states, its CPTs set
// child first.
func bayesPair(t *testing.T) *ir.Model {
	b := ir.NewBuilder("m.pbl")
	a, _ := b.AddVar(ir.Pos{}, "a", ir.Bool, nil, 0)
	c, _ := b.AddVar(ir.Pos{}, "c", ir.Enum, []string{"x", "y", "z"}, 0)
	b.SetCPT(ir.Pos{}, c, []ir.VarID{a}, []float64{0.1, 0.2, 0.7, 1.0 / 3, 1.0 / 3, 1.0 / 3}, nil)
	b.SetCPT(ir.Pos{}, a, nil, []float64{0.3, 0.7}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWrite checks the text written for a Markov network read from UAI
// and for a Bayesian network built in the IR (numbers at full precision).
func TestWrite(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *ir.Model
		want string
	}{
		{"markov", mustRead(t, pair), `MARKOV
2
2 3
2
1 0
2 0 1

2
1 3

6
1 2 3
4 5 6
`},
		{"bayes", bayesPair(t), `BAYES
2
2 3
2
1 0
2 0 1

2
0.3 0.7

6
0.1 0.2 0.7
0.3333333333333333 0.3333333333333333 0.3333333333333333
`},
	} {
		var buf bytes.Buffer
		if err := uai.Write(&buf, c.m); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := buf.String(); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	b := ir.NewBuilder("m.pbl")
	b.AddVar(ir.Pos{File: "m.pbl", Line: 3, Col: 5}, "height", ir.Real, nil, 0)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = uai.Write(&buf, m)
	var list ir.ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), `m.pbl:3:5: height is real-valued`) {
		t.Errorf("got %v, want a positioned error about the real variable", err)
	}
	if buf.Len() > 0 {
		t.Errorf("wrote %q despite the error", buf.String())
	}
}

func TestAnswerFormats(t *testing.T) {
	var buf bytes.Buffer
	uai.WritePR(&buf, -4.507028264)
	uai.WriteMAR(&buf, [][]float64{{0.25, 0.75}, {0, 1, 0}})
	uai.WriteMPE(&buf, []int{1, 0, 2})
	uai.WritePR(&buf, math.Inf(-1))
	want := "PR\n-4.507028264\nMAR\n2 2 0.25 0.75 3 0 1 0\nMPE\n3 1 0 2\nPR\n-inf\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := uai.WritePR(&buf, math.NaN()); err == nil {
		t.Error("WritePR wrote NaN")
	}
	if err := uai.WriteMAR(&buf, [][]float64{{math.NaN()}}); err == nil {
		t.Error("WriteMAR wrote NaN")
	}

	x, err := uai.ReadPR("a.PR", []byte("PR\n-4.507028264\n"))
	if err != nil || x != -4.507028264 {
		t.Errorf("ReadPR = %v, %v", x, err)
	}
	if x, err := uai.ReadPR("a.PR", []byte("PR\n-inf\n")); err != nil || !math.IsInf(x, -1) {
		t.Errorf("ReadPR(-inf) = %v, %v", x, err)
	}
	mar, err := uai.ReadMAR("a.MAR", []byte("MAR\n2 2 0.25 0.75 3 0 1 0\n"))
	if err != nil || len(mar) != 2 || mar[0][1] != 0.75 || mar[1][1] != 1 {
		t.Errorf("ReadMAR = %v, %v", mar, err)
	}
	for _, tc := range []struct {
		src, want string
		pr        bool
	}{
		{"MPE\n1", `a:1:1: want PR, found "MPE"`, true},
		{"PR\n", `a:2:1: want a number, found end of file`, true},
		{"PR 1 2", `a:1:6: unexpected "2" after the PR value`, true},
		{"MAR\n2 2 0.5 0.5 2 0.5", `a:2:18: unexpected end of file: want P\(X1=1\)`, false},
		{"MAR\n1 2 0.5 1.5", `a:2:9: P\(X0=1\) = 1.5 is not a probability`, false},
		{"MAR\n1 x", `a:2:3: want the cardinality of X0 \(a non-negative integer\), found "x"`, false},
		{"MAR\n1 99 0.5", `a:2:3: the cardinality of X0 is 99, more than the file can hold`, false},
		{"MAR\n1 1 1 1", `a:2:7: unexpected "1" after the last marginal`, false},
	} {
		var err error
		if tc.pr {
			_, err = uai.ReadPR("a", []byte(tc.src))
		} else {
			_, err = uai.ReadMAR("a", []byte(tc.src))
		}
		if err == nil || !matches(tc.want, err.Error()) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}
