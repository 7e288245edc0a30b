package report

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0.4, "0.4"},
		{0.6000000000000001, "0.6"},
		{0.7999999999999999, "0.8"},
		{0.20851063829787236, "0.2085106383"},
		{1, "1"},
		{0, "0"},
		{1.5e-12, "1.5e-12"},
	} {
		if got := Num(tc.x); got != tc.want {
			t.Errorf("Num(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// TestFloatJSON: full precision, and never NaN or Inf in JSON.
func TestFloatJSON(t *testing.T) {
	b, err := json.Marshal(Float(0.029759999999999998))
	if err != nil || string(b) != "0.029759999999999998" {
		t.Errorf("Float(0.02976) = %s, %v", b, err)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if b, err := json.Marshal(Float(x)); err == nil {
			t.Errorf("Float(%v) marshals as %s, want an error", x, b)
		}
	}
}

// TestObjectOrder: keys keep the order they were set in.
func TestObjectOrder(t *testing.T) {
	o := &Object{}
	o.Set("query", "P(X)")
	o.Set("vars", []string{"X"})
	o.Set("a", 1)
	o.Set("query", "P(Y)")
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"query":"P(Y)","vars":["X"],"a":1}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// markovModel is a Markov network of one binary variable X with a factor
// (1, 3), and bayesModel a Bayesian network of one such variable.
func markovModel(t *testing.T) *ir.Model {
	b := ir.NewBuilder("m.uai")
	b.AddVar(ir.Pos{File: "m.uai"}, "X", ir.Enum, []string{"0", "1"}, 0)
	b.AddFactor(ir.Pos{File: "m.uai"}, []ir.VarID{0}, []float64{1, 3})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func bayesModel(t *testing.T) *ir.Model {
	b := ir.NewBuilder("b.pbl")
	b.AddVar(ir.Pos{File: "b.pbl"}, "X", ir.Enum, []string{"0", "1"}, 0)
	b.SetCPT(ir.Pos{File: "b.pbl"}, 0, nil, []float64{0.25, 0.75}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLogPartition: P(e) on a Markov network reports the partition
// function with the evidence as log_partition (natural log; null when it
// is 0); on a Bayesian network there is none.
func TestLogPartition(t *testing.T) {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 1}}}}
	for _, tc := range []struct {
		m    *ir.Model
		want string
	}{
		{markovModel(t), `{"query":"P(X=1)","evidence":{"X":"1"},"p":0.75,"log_partition":` + strconv.FormatFloat(math.Log(3), 'g', -1, 64) + `}`},
		{bayesModel(t), `{"query":"P(X=1)","evidence":{"X":"1"},"p":0.75}`},
	} {
		r, err := infer.Answer(tc.m, q, infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := JSON(&b, tc.m, r); err != nil || b.String() != tc.want+"\n" {
			t.Errorf("got %s, %v; want %s", b.String(), err, tc.want)
		}
	}
	r := &infer.Evidence{Header: infer.Header{Query: q}, P: 0, LogP: math.Inf(-1), LogZ: math.Inf(-1)}
	var b strings.Builder
	if err := JSON(&b, markovModel(t), r); err != nil || !strings.Contains(b.String(), `"p":0,"log_partition":null`) {
		t.Errorf("Z(e) = 0: got %s, %v", b.String(), err)
	}
}

// TestCheck: a number that is not a probability (NaN, infinite, above 1)
// never reaches the output: JSON returns an error and writes nothing,
// Text panics (the engines never return one: it would be a bug).
func TestCheck(t *testing.T) {
	m := bayesModel(t)
	num := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=1 | X=0)"}, Targets: []ir.VarID{0}, TargetStates: []int{1}}
	table := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X)"}, Targets: []ir.VarID{0}, TargetStates: []int{-1}}
	star := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(*)"}, Star: true}
	pe := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 1}}}}
	mpe := &ir.MPEQuery{QueryHeader: ir.QueryHeader{Text: "MPE()"}}
	for _, r := range []infer.Result{
		&infer.Number{Header: infer.Header{Query: num}, P: math.NaN()},
		&infer.Number{Header: infer.Header{Query: num}, P: math.Inf(1)},
		&infer.Number{Header: infer.Header{Query: num}, P: math.Nextafter(1, 2)},
		&infer.Table{Header: infer.Header{Query: table}, Rows: []infer.Row{{Values: []int{0}, P: math.NaN()}}},
		&infer.Marginals{Header: infer.Header{Query: star}, Marginals: []infer.Marginal{{Var: 0, P: []float64{0.5, math.Inf(1)}}}},
		&infer.Evidence{Header: infer.Header{Query: pe}, P: -1},
		&infer.Evidence{Header: infer.Header{Query: pe}, P: 0.5, LogZ: math.NaN()},
		&infer.Assignment{Header: infer.Header{Query: mpe}, P: math.NaN(), Assignment: []ir.Obs{{Var: 0, State: 0}}},
	} {
		if Check(r) == nil {
			t.Errorf("%s: Check accepts %+v", r.Head().Query.Head().Text, r)
		}
		var b strings.Builder
		if err := JSON(&b, m, r); err == nil || b.Len() != 0 {
			t.Errorf("%s: JSON wrote %q, %v", r.Head().Query.Head().Text, b.String(), err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Text did not panic", r.Head().Query.Head().Text)
				}
			}()
			Text(&b, m, r)
		}()
	}
}

// TestNumLog: a possible probability below the normal float64 range is
// written from its logarithm, never as 0; others as Num writes them.
func TestNumLog(t *testing.T) {
	for _, tc := range []struct {
		p, logp float64
		want    string
	}{
		{0.25, math.Log(0.25), "0.25"},
		{0, math.Inf(-1), "0"},
		{1e-300, math.Log(1e-300), "1e-300"},
		{0, -1100 * math.Ln2, "7.362151829e-332"},
		{0, math.Log(2) - 400*math.Ln10, "2e-400"},
		{5e-324, math.Log(3.5) - 330*math.Ln10, "3.5e-330"}, // subnormal: digits lost
		{0, -400*math.Ln10 - 1e-14, "1e-400"},               // mantissa rounds up to 10
		{0, -400*math.Ln10 + 1e-14, "1e-400"},
		// Far below: the mantissa keeps only the digits ln P carries
		// (|ln P| ≈ 2.9e11: four), and beyond 10^±1e15 not even the
		// exponent's last digits are known.
		{0, (-127733671457.04385) * math.Ln10, "9.04e-127733671458"},
		{0, -2.94e291, "10^-1.277e+291"},
	} {
		if got := NumLog(tc.p, tc.logp); got != tc.want {
			t.Errorf("NumLog(%v, %v) = %q, want %q", tc.p, tc.logp, got, tc.want)
		}
	}
}

// TestUnderflowingAnswer: an MPE or P(x | e) too small for float64 prints
// from its logarithm in text and JSON, never as p = 0.
func TestUnderflowingAnswer(t *testing.T) {
	m := bayesModel(t)
	logp := math.Log(2) - 400*math.Ln10
	mpe := &infer.Assignment{Header: infer.Header{Query: &ir.MPEQuery{QueryHeader: ir.QueryHeader{Text: "MPE()"}}}, P: 0, LogP: logp, Assignment: []ir.Obs{{Var: 0, State: 1}}}
	num := &infer.Number{Header: infer.Header{Query: &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=1 | X=0)"}, Targets: []ir.VarID{0}, TargetStates: []int{1}}}, P: 0, LogP: logp}
	for _, tc := range []struct {
		r          infer.Result
		text, json string
	}{
		{mpe, "MPE()  p = 2e-400\n  X  1\n", `{"query":"MPE()","evidence":{},"assignment":{"X":"1"},"p":2e-400}`},
		{num, "P(X=1 | X=0) = 2e-400\n", `{"query":"P(X=1 | X=0)","p":2e-400}`},
	} {
		var b strings.Builder
		Text(&b, m, tc.r)
		if b.String() != tc.text {
			t.Errorf("Text: got %q, want %q", b.String(), tc.text)
		}
		b.Reset()
		if err := JSON(&b, m, tc.r); err != nil || b.String() != tc.json+"\n" {
			t.Errorf("JSON: got %s, %v; want %s", b.String(), err, tc.json)
		}
	}
}

// TestJSONFromLog: JSON has no 10^x: beyond it the number is 0, its log
// beside it.
func TestJSONFromLog(t *testing.T) {
	if got := string(jsonFromLog(-2.94e291)); got != "0" {
		t.Errorf("jsonFromLog(-2.94e291) = %s, want 0", got)
	}
	if got := string(jsonFromLog(math.Log(2) - 400*math.Ln10)); got != "2e-400" {
		t.Errorf("jsonFromLog(ln 2e-400) = %s", got)
	}
}

// TestHypNotFinite: an answer holding NaN or +Inf where a number must be
// finite is refused with ErrNotFinite, in JSON as in Check, instead of
// printing NaNeNaN or failing inside encoding/json (issue 27: a space
// with σ = 1e-170 gave both).
func TestHypNotFinite(t *testing.T) {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(H | D)"}}
	ok := HypRow{Values: []any{0.0, 1.0}, LogPrior: math.Log(0.5), LogLik: -0.9, LogPost: 0}
	for _, tc := range []struct {
		name string
		h    Hyp
		bad  bool
	}{
		{"finite", Hyp{Query: q, Names: []string{"w", "s"}, Hyps: []HypRow{ok}}, false},
		{"impossible hypothesis", Hyp{Query: q, Names: []string{"w", "s"}, Hyps: []HypRow{ok, {Values: []any{0.0, 2.0}, LogPrior: math.Log(0.5), LogLik: math.Inf(-1), LogPost: math.Inf(-1)}}}, false},
		{"NaN posterior", Hyp{Query: q, Names: []string{"w", "s"}, Hyps: []HypRow{{Values: []any{0.0, 1e-170}, LogPrior: math.Log(0.5), LogLik: 390, LogPost: math.NaN()}}}, true},
		{"NaN likelihood", Hyp{Query: q, Names: []string{"w", "s"}, Hyps: []HypRow{{Values: []any{0.0, 1e-170}, LogPrior: math.Log(0.5), LogLik: math.NaN(), LogPost: 0}}}, true},
		{"+Inf likelihood", Hyp{Query: q, Names: []string{"w", "s"}, Hyps: []HypRow{{Values: []any{0.0, 1e-170}, LogPrior: math.Log(0.5), LogLik: math.Inf(1), LogPost: 0}}}, true},
		{"infinite parameter", Hyp{Query: &ir.MLQuery{QueryHeader: ir.QueryHeader{Text: "ML(H | D)"}}, Names: []string{"w"}, Continuous: true, Hyps: []HypRow{{Values: []any{math.Inf(1)}, LogPrior: math.NaN(), LogLik: -1, LogPost: math.NaN()}}}, true},
		{"fit", Hyp{Query: &ir.MLQuery{QueryHeader: ir.QueryHeader{Text: "ML(H | D)"}}, Names: []string{"w"}, Continuous: true, Hyps: []HypRow{{Values: []any{2.0}, LogPrior: math.NaN(), LogLik: -1, LogPost: math.NaN()}}}, false},
		{"NaN class probability", Hyp{Query: q, Target: "d", Classes: []string{"1", "0"}, P: []float64{math.NaN(), 0.5}}, true},
		{"NaN cross-entropy", Hyp{Query: &ir.MLQuery{QueryHeader: ir.QueryHeader{Text: "ML(H | D)"}}, Names: []string{"w"}, Continuous: true, Trace: []float64{1, math.NaN()}, Hyps: []HypRow{{Values: []any{2.0}, LogPrior: math.NaN(), LogLik: -1, LogPost: math.NaN()}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			err := HypJSON(&b, &tc.h)
			if tc.bad != errors.Is(err, ErrNotFinite) || tc.bad != errors.Is(tc.h.Check(), ErrNotFinite) {
				t.Errorf("HypJSON: %v (%q), Check: %v; want ErrNotFinite: %v", err, b.String(), tc.h.Check(), tc.bad)
			}
			if !tc.bad && (err != nil || strings.Contains(b.String(), "NaN")) {
				t.Errorf("HypJSON: %q, %v", b.String(), err)
			}
			if tc.bad && b.Len() > 0 {
				t.Errorf("HypJSON wrote %q before failing", b.String())
			}
		})
	}
}

// TestHypNotConverged: a fit stopped by its iteration limit says so, in
// text and in JSON ("converged": false), and counts its iterations (the
// trace holds one cross-entropy more: issue 27 printed 100,001).
func TestHypNotConverged(t *testing.T) {
	q := &ir.MLQuery{QueryHeader: ir.QueryHeader{Text: "ML(S | D)"}}
	for _, notConv := range []bool{false, true} {
		h := &Hyp{Query: q, Names: []string{"w0", "w1"}, Continuous: true, Trace: []float64{2, 1.5, 1.25, 1.2}, NotConverged: notConv,
			Hyps: []HypRow{{Values: []any{1.0, 2.0}, LogPrior: math.NaN(), LogLik: -1.2, LogPost: math.NaN()}}}
		var b strings.Builder
		HypText(&b, h)
		text := b.String()
		if !strings.Contains(text, "3 iterations of gradient ascent") || strings.Contains(text, "not converged") != notConv {
			t.Errorf("not converged %v: text %q", notConv, text)
		}
		b.Reset()
		if err := HypJSON(&b, h); err != nil {
			t.Fatal(err)
		}
		var got struct{ Converged *bool }
		if err := json.Unmarshal([]byte(b.String()), &got); err != nil || got.Converged == nil || *got.Converged == notConv {
			t.Errorf("not converged %v: JSON %s", notConv, b.String())
		}
	}
}

// TestApproxZeroEvidence: an approximate P(e) that the engine proves 0
// (weighted mini-buckets on a deterministic network: ln P(e) and both
// bounds −Inf) is written in JSON with nulls, not refused as a number that
// is not a probability, and in text with "-inf" throughout.
func TestApproxZeroEvidence(t *testing.T) {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(X=1)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: 0, State: 1}}}}
	inf := math.Inf(-1)
	r := &infer.Evidence{Header: infer.Header{Query: q, Engine: "wmb"}, P: 0, LogP: inf, LogZ: inf, LogPLo: inf, LogPHi: inf, LogZLo: inf, LogZHi: inf}
	var b strings.Builder
	if err := JSON(&b, bayesModel(t), r); err != nil || !strings.Contains(b.String(), `"log_p":null,"log_p_error":0,"log_p_bounds":[null,null]`) {
		t.Errorf("JSON: got %s, %v", b.String(), err)
	}
	b.Reset()
	Text(&b, bayesModel(t), r)
	if got := b.String(); !strings.Contains(got, "ln P = -inf ± 0, bounds [-inf, -inf]") {
		t.Errorf("text: got %q", got)
	}
}
