package pbl

import (
	"math"
	"testing"
)

// The expected numbers here are aGrUM's (pyAgrum's engine), stated in its
// test suite of gum::ShaferShenoyLIMIDInference: repository
// agrumery/aGrUM, file src/testunits/module_ID/
// ShaferShenoyLIMIDInferenceTestSuite.h. The diagrams are written as .pbl
// text and answered through the language (Load, ParseQuery,
// AnswerQuery); aGrUM fills a table with its first variable, the child,
// fastest, and the tables below are transposed to pbl's rows.

// neapolitanPBL is the car buyer of buildNeapolitanModel_ (Neapolitan,
// Learning Bayesian Networks, 2004): Buy knows the two tests' results but
// not DoTest, so the diagram lacks perfect recall as written: a LIMID,
// which aGrUM and pbl both solve by single policy updating.
const neapolitanPBL = `
decision DoTest: {None, First, Both}
decision Buy: {No, Yes}
var Condition: {Good, Lemon}
var FirstTest: {NotDone, Positive, Negative}
var SecondTest: {NotDone, Positive, Negative}

FirstTest, SecondTest -> Buy

P(Condition) = [0.8, 0.2]
P(FirstTest | DoTest, Condition) = {
    None,  Good:  [1, 0, 0]
    None,  Lemon: [1, 0, 0]
    First, Good:  [0, 0.9, 0.1]
    First, Lemon: [0, 0.4, 0.6]
    Both,  Good:  [0, 0.9, 0.1]
    Both,  Lemon: [0, 0.4, 0.6]
}
P(SecondTest | DoTest, Condition, FirstTest) = {
    None,  Good,  NotDone:  [1, 0, 0]
    None,  Good,  Positive: [1, 0, 0]
    None,  Good,  Negative: [1, 0, 0]
    None,  Lemon, NotDone:  [1, 0, 0]
    None,  Lemon, Positive: [1, 0, 0]
    None,  Lemon, Negative: [1, 0, 0]
    First, Good,  NotDone:  [1, 0, 0]
    First, Good,  Positive: [1, 0, 0]
    First, Good,  Negative: [1, 0, 0]
    First, Lemon, NotDone:  [1, 0, 0]
    First, Lemon, Positive: [1, 0, 0]
    First, Lemon, Negative: [1, 0, 0]
    Both,  Good,  NotDone:  [1, 0, 0]
    Both,  Good,  Positive: [0, 0.8888888888888888, 0.1111111111111112]
    Both,  Good,  Negative: [0, 1, 0]
    Both,  Lemon, NotDone:  [1, 0, 0]
    Both,  Lemon, Positive: [0, 0.3333333333333333, 0.6666666666666667]
    Both,  Lemon, Negative: [0, 0.4444444444444444, 0.5555555555555556]
}

utility U(DoTest) = {
    None:  0
    First: -9
    Both:  -13
}
utility V(Buy, Condition) = {
    No,  Good:  0
    No,  Lemon: 0
    Yes, Good:  60
    Yes, Lemon: -100
}
`

// bugPBL is testBugWithEvidence's diagram c1 <- c -> u <- d: c uniform,
// c1 = c, u(c, d) = 10, 21 (c0) and 100, 200 (c1).
const bugPBL = `
var c: {c0, c1}
var c1: {s0, s1}
decision d: {d0, d1}
P(c) = [0.5, 0.5]
P(c1 | c) = {
    c0: [1, 0]
    c1: [0, 1]
}
utility u(c, d) = {
    c0, d0: 10
    c0, d1: 21
    c1, d0: 100
    c1, d1: 200
}
`

// deferPBL is testUtilityForDeterministicDecision's diagram: a decision D
// knowing nothing, H uniform, E given H, A given H and E, the loss L(E, A,
// D).
const deferPBL = `
decision D: {D1, D2}
var H: {H1, H2}
var E: {E1, E2, E3}
var A: {A1, A2}
P(H) = [0.5, 0.5]
P(E | H) = {
    H1: [0.9, 0.09, 0.01]
    H2: [0.2, 0.09, 0.71]
}
P(A | H, E) = {
    H1, E1: [1, 0]
    H1, E2: [0.5, 0.5]
    H1, E3: [0, 1]
    H2, E1: [0, 1]
    H2, E2: [0.5, 0.5]
    H2, E3: [1, 0]
}
utility L(E, A, D) = {
    E1, A1, D1: 0
    E1, A1, D2: -0.1
    E1, A2, D1: -1
    E1, A2, D2: 0
    E2, A1, D1: -0.01
    E2, A1, D2: 0
    E2, A2, D1: -0.01
    E2, A2, D2: 0
    E3, A1, D1: 0
    E3, A1, D2: -1
    E3, A2, D1: -0.1
    E3, A2, D2: 0
}
`

// TestAgrumThroughTheLanguage answers aGrUM's documented questions on
// its diagrams written in pbl: the Neapolitan LIMID's MEU 28
// (testBugFromNeapolitan1) and 40.6 with DoTest set to Both and both
// tests positive (testBugFromNeapolitan2); testBugWithEvidence 1 to 4
// (MEU 110.5; 200 given c = c1, d's utilities 100 and 200; 110.5 with d
// set to d1; 56.8 with likelihood [0.8, 0.2] on c1, d's utilities 28 and
// 56.8); testUtilityForDeterministicDecision with E = E1 entered but no
// arc E -> D (D's utilities -0.1818 and -0.0818, to aGrUM's 1e-4; -2/11
// and -0.9/11 exactly).
func TestAgrumThroughTheLanguage(t *testing.T) {
	for _, c := range []struct {
		name, src, query string
		want, tol        float64
		local            bool // answered by single policy updating, as a local optimum
	}{
		{"neapolitan", neapolitanPBL, "MEU()", 28, 1e-9, true},
		{"neapolitan", neapolitanPBL, "MEU(| DoTest=Both, FirstTest=Positive, SecondTest=Positive)", 40.6, 1e-9, false},
		{"neapolitan", neapolitanPBL, "EU(Buy=Yes | DoTest=Both, FirstTest=Positive, SecondTest=Positive)", 40.6, 1e-9, false},
		{"bug", bugPBL, "MEU()", 110.5, 1e-9, false},
		{"bug", bugPBL, "EU(d=d0)", 55, 1e-9, false},
		{"bug", bugPBL, "MEU(| c=c1)", 200, 1e-9, false},
		{"bug", bugPBL, "EU(d=d0 | c=c1)", 100, 1e-9, false},
		{"bug", bugPBL, "MEU(| d=d1)", 110.5, 1e-9, false},
		{"bug", bugPBL, "MEU(| c1~[0.8, 0.2])", 56.8, 1e-9, false},
		{"bug", bugPBL, "EU(d=d0 | c1~[0.8, 0.2])", 28, 1e-9, false},
		{"bug", bugPBL, "EU(d=d1 | c1~[0.8, 0.2])", 56.8, 1e-9, false},
		{"defer", deferPBL, "EU(D=D1 | E=E1)", -0.1818, 1e-4, false},
		{"defer", deferPBL, "EU(D=D2 | E=E1)", -0.0818, 1e-4, false},
		{"defer", deferPBL, "EU(D=D1 | E=E1)", -2.0 / 11, 1e-12, false},
		{"defer", deferPBL, "EU(D=D2 | E=E1)", -0.9 / 11, 1e-12, false},
	} {
		m, err := Load(c.name+".pbl", []byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a := answerText(t, m, c.query)
		if !(math.Abs(a.Value-c.want) <= c.tol) {
			t.Errorf("%s: %s = %v, aGrUM %v", c.name, c.query, a.Value, c.want)
		}
		if a.LocalOptimum != c.local {
			t.Errorf("%s: %s answered as a local optimum: %v, want %v", c.name, c.query, a.LocalOptimum, c.local)
		}
	}
}
