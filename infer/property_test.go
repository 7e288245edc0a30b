package infer

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/pbl-lang/pbl/factor"
	"github.com/pbl-lang/pbl/ir"
)

// This file checks, with rapid, properties of random models small enough
// for enumeration: every engine gives enumeration's answers to 1e-12
// relative, whatever the magnitudes (rows with entries of 1e-300, factors
// from 1e-300 to 1e300, zeros), no answer is NaN or above 1, and P(e),
// ln P(e) and ln Z(e) agree with an independent big.Float reference.
// Run with -rapid.checks=N for more cases than 1000 a property (see
// TestMain), and -rapid.seed=0 for other cases than the seeded ones.

// TestMain seeds rapid (-rapid.seed=1) unless the command line chooses a
// seed, so that every run checks the same cases (pass -rapid.seed=0 for
// fresh ones), runs 1000 checks a property unless -rapid.checks says
// otherwise, and keeps failures out of testdata (the seed reproduces
// them) unless -rapid.nofailfile is given.
func TestMain(m *testing.M) {
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["rapid.seed"] {
		flag.Set("rapid.seed", "1")
	}
	if !set["rapid.checks"] {
		flag.Set("rapid.checks", "1000") // the first hundred are mostly tiny
	}
	if !set["rapid.nofailfile"] {
		flag.Set("rapid.nofailfile", "true")
	}
	os.Exit(m.Run())
}

// propEngines are compared with enumeration.
var propEngines = []testEngine{
	{"ve-minfill", Options{Engine: VE, Order: MinFill}},
	{"ve-minweight", Options{Engine: VE, Order: MinWeight}},
	{"jt", jtOpt},
	{"auto", Options{}},
}

// rowKind is how drawRow draws a CPT row.
type rowKind int

const (
	rowPlain   rowKind = iota // entries in [0.05, 1.05), normalised
	rowZeros                  // as plain, some entries 0
	rowExtreme                // entries down to 1e-300 beside the others
)

// drawRow fills row with a distribution of the given kind, whose largest
// entry is 1 minus the others so that it sums to 1 as exactly as float64
// allows, then, with off, scales it by 1+δ, |δ| < 1e-6, as a row the
// builder accepts (ir.RowTolerance) and renormalises.
func drawRow(t *rapid.T, row []float64, kind rowKind, off bool) {
	sum := 0.0
	for i := range row {
		x := rapid.Float64Range(0.05, 1.05).Draw(t, "x")
		switch {
		case kind == rowZeros && rapid.IntRange(0, 3).Draw(t, "zero") == 0:
			x = 0
		case kind == rowExtreme && rapid.Bool().Draw(t, "tiny"):
			x = math.Pow(10, -rapid.Float64Range(1, 300).Draw(t, "exp"))
		}
		row[i] = x
		sum += x
	}
	if sum == 0 {
		row[0], sum = 1, 1
	}
	big, rest := 0, 0.0
	for i := range row {
		row[i] /= sum
		if row[i] > row[big] {
			big = i
		}
	}
	for i := range row {
		if i != big {
			rest += row[i]
		}
	}
	row[big] = max(0, 1-rest)
	if off {
		d := rapid.Float64Range(-9e-7, 9e-7).Draw(t, "delta")
		if row[big]*(1+d) > 1 {
			d = -d // an entry above 1 is refused, not renormalised
		}
		for i := range row {
			row[i] *= 1 + d
		}
	}
}

// drawBayes draws a Bayesian network of 2 to 7 variables of 2 or 3
// states, each with up to 3 parents among the earlier ones.
func drawBayes(t *rapid.T, kind rowKind, off bool) (netSpec, *ir.Model) {
	n := rapid.IntRange(2, 7).Draw(t, "vars")
	s := newSpec(n)
	for v := range n {
		s.card[v] = rapid.IntRange(2, 3).Draw(t, "card")
		if v > 0 {
			k := rapid.IntRange(0, min(v, 3)).Draw(t, "parents")
			for _, p := range rapid.Permutation(permOf(v)).Draw(t, "perm")[:k] {
				s.parents[v] = append(s.parents[v], p)
			}
		}
		size := s.card[v]
		for _, p := range s.parents[v] {
			size *= s.card[p]
		}
		s.cpt[v] = make([]float64, size)
		for r := 0; r < size; r += s.card[v] {
			drawRow(t, s.cpt[v][r:r+s.card[v]], kind, off)
		}
	}
	m, err := s.model("prop.pbl", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

func permOf(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// drawMarkov draws a Markov network of 2 to 7 variables of 2 or 3 states
// and up to 8 factors over 1 to 3 of them, whose values are drawn one of
// three ways: plain ([0, 2), some 0), one magnitude per factor (10^k for k
// in [-300, 300], times [0.1, 10), some 0), or each value its own
// magnitude (10^k, k in [-300, 300], or 0).
func drawMarkov(t *rapid.T) *ir.Model {
	b := ir.NewBuilder("prop.uai")
	n := rapid.IntRange(2, 7).Draw(t, "vars")
	card := make([]int, n)
	for v := range n {
		card[v] = rapid.IntRange(2, 3).Draw(t, "card")
		states := make([]string, card[v])
		for s := range states {
			states[s] = fmt.Sprint(s)
		}
		b.AddVar(ir.Pos{File: "prop.uai", Line: 1}, fmt.Sprintf("X%d", v), ir.Enum, states, 0)
	}
	mode := rapid.IntRange(0, 2).Draw(t, "mode")
	nf := rapid.IntRange(1, 8).Draw(t, "factors")
	for range nf {
		k := rapid.IntRange(1, min(3, n)).Draw(t, "scope")
		perm := rapid.Permutation(permOf(n)).Draw(t, "perm")[:k]
		vars := make([]ir.VarID, k)
		size := 1
		for i, v := range perm {
			vars[i] = ir.VarID(v)
			size *= card[v]
		}
		mag := math.Pow(10, rapid.Float64Range(-300, 300).Draw(t, "magnitude"))
		vals := make([]float64, size)
		for i := range vals {
			if rapid.IntRange(0, 7).Draw(t, "zero") == 0 {
				continue
			}
			switch mode {
			case 0:
				vals[i] = rapid.Float64Range(0, 2).Draw(t, "value")
			case 1:
				vals[i] = mag * rapid.Float64Range(0.1, 10).Draw(t, "value")
			default:
				vals[i] = math.Pow(10, rapid.Float64Range(-300, 300).Draw(t, "value"))
			}
		}
		b.AddFactor(ir.Pos{File: "prop.uai", Line: 2}, vars, vals)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// drawEvidence observes up to three distinct variables at drawn states.
func drawEvidence(t *rapid.T, card []int) []ir.Obs {
	k := rapid.IntRange(0, min(3, len(card)-1)).Draw(t, "evidence")
	var ev []ir.Obs
	for _, v := range rapid.Permutation(permOf(len(card))).Draw(t, "perm")[:k] {
		ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rapid.IntRange(0, card[v]-1).Draw(t, "state")})
	}
	return ev
}

// drawQuery draws a query of every kind but indep: P(* | e), P(e),
// P(x | e), a table P(X, Y | Z, e) (sometimes with target states), MPE
// and MAP.
func drawQuery(t *rapid.T, card []int) ir.Query {
	q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 1, Col: 1}}, Conditions: ir.Conditions{Evidence: drawEvidence(t, card)}}
	var rest []int
	for _, v := range rapid.Permutation(permOf(len(card))).Draw(t, "order") {
		if !observed(q.Evidence, v) {
			rest = append(rest, v)
		}
	}
	switch form := rapid.IntRange(0, 5).Draw(t, "form"); {
	case form == 0 || len(rest) == 0:
		q.Star = true
	case form == 1:
		if len(q.Evidence) == 0 {
			q.Star = true
		}
	case form == 2:
		return &ir.MPEQuery{QueryHeader: q.QueryHeader, Conditions: q.Conditions}
	case form == 3:
		mq := &ir.MAPQuery{QueryHeader: q.QueryHeader, Conditions: q.Conditions}
		k := rapid.IntRange(1, min(2, len(rest))).Draw(t, "map")
		for _, v := range rest[:k] {
			mq.Targets = append(mq.Targets, ir.VarID(v))
		}
		return mq
	default:
		k := rapid.IntRange(1, min(2, len(rest))).Draw(t, "targets")
		fixed := rapid.IntRange(0, 3).Draw(t, "fixed") == 0
		for _, v := range rest[:k] {
			q.Targets = append(q.Targets, ir.VarID(v))
			s := -1
			if fixed {
				s = rapid.IntRange(0, card[v]-1).Draw(t, "state")
			}
			q.TargetStates = append(q.TargetStates, s)
		}
		rest = rest[k:]
		nf := rapid.IntRange(0, min(2, len(rest))).Draw(t, "given")
		for _, v := range rest[:nf] {
			q.Free = append(q.Free, ir.VarID(v))
		}
	}
	return q
}

func observed(ev []ir.Obs, v int) bool {
	for _, o := range ev {
		if int(o.Var) == v {
			return true
		}
	}
	return false
}

// probClose reports whether two probabilities agree to 1e-12 relative,
// or are both below the normal range (where float64 has fewer digits); it
// is false if either is NaN.
func probClose(a, b float64) bool {
	if a == b {
		return true
	}
	m := math.Max(math.Abs(a), math.Abs(b))
	return math.Abs(a-b) <= 1e-12*m || m < 0x1p-970
}

// logClose reports whether two logarithms agree to 1e-12 relative (or
// absolute, near 0); it is false if either is NaN.
func logClose(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// insane returns what is wrong with r's numbers (NaN, a probability
// outside [0, 1], a positive LogP), or "".
func insane(r Result) string {
	bad := func(x float64) bool { return !(x >= 0 && x <= 1) }
	ps, logp, _ := resultParts(r)
	for _, p := range ps {
		if bad(p) {
			return fmt.Sprintf("a probability of %v", r)
		}
	}
	if !(logp <= 0) {
		return fmt.Sprintf("LogP = %v", logp)
	}
	if e, ok := r.(*Evidence); ok && (math.IsNaN(e.LogZ) || math.IsInf(e.LogZ, 1)) {
		return fmt.Sprintf("LogZ = %v", e.LogZ)
	}
	return ""
}

// propDiff compares an engine's answer with enumeration's: the same kind
// of error (an underflow with the same logarithms), or results that agree
// to 1e-12 relative. It returns a description of the first difference, or
// "".
func propDiff(ref Result, refErr error, r Result, err error) string {
	if refErr != nil || err != nil {
		var ua, ub *UnderflowError
		var ta, tb *TooLargeError
		switch {
		case refErr == nil || err == nil:
			return fmt.Sprintf("error %v vs %v", refErr, err)
		case errors.As(refErr, &ua) && errors.As(err, &ub):
			if !logClose(ua.LogP, ub.LogP) || !logClose(ua.LogZ, ub.LogZ) {
				return fmt.Sprintf("underflow %+v vs %+v", *ua, *ub)
			}
		case errors.Is(refErr, ErrImpossible) && errors.Is(err, ErrImpossible):
		case errors.As(refErr, &ta) && errors.As(err, &tb):
		default:
			return fmt.Sprintf("error %v vs %v", refErr, err)
		}
		return ""
	}
	if d := insane(r); d != "" {
		return d
	}
	if d := sameResult(ref, r, 0); d != "" && !strings.HasPrefix(d, "number ") {
		return d
	}
	pa, la, _ := resultParts(ref)
	pb, lb, _ := resultParts(r)
	for i := range pa {
		if !probClose(pa[i], pb[i]) {
			return fmt.Sprintf("number %d: %v vs %v", i, pa[i], pb[i])
		}
	}
	if !logClose(la, lb) {
		return fmt.Sprintf("LogP %v vs %v", la, lb)
	}
	if e, ok := ref.(*Evidence); ok && !logClose(e.LogZ, r.(*Evidence).LogZ) {
		return fmt.Sprintf("LogZ %v vs %v", e.LogZ, r.(*Evidence).LogZ)
	}
	return ""
}

// checkEngines answers q on m by enumeration and by every engine of
// propEngines (MAP by VE only) and fails unless they agree (propDiff).
func checkEngines(t *rapid.T, m *ir.Model, q ir.Query) {
	ref, refErr := Answer(m, q, Options{Engine: Enum})
	if refErr == nil {
		if d := insane(ref); d != "" {
			t.Fatalf("enum: %s", d)
		}
	}
	for _, e := range propEngines {
		if _, isMAP := q.(*ir.MAPQuery); isMAP && e.opt.Engine == JT {
			continue
		}
		r, err := Answer(m, q, e.opt)
		if d := propDiff(ref, refErr, r, err); d != "" {
			t.Fatalf("%s differs from enum on %+v: %s", e.name, q, d)
		}
	}
}

// TestPropBayesEngines: on random Bayesian networks, with rows that
// hold zeros or entries down to 1e-300, every engine agrees with
// enumeration on every kind of query.
func TestPropBayesEngines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := rowKind(rapid.IntRange(0, 2).Draw(t, "rows"))
		s, m := drawBayes(t, kind, false)
		checkEngines(t, m, drawQuery(t, s.card))
	})
}

// TestPropBayesRowsOff: the same with rows that sum to 1 only within the
// tolerance the builder accepts (1e-6), which it renormalises: pruning
// (VE) and not pruning (enumeration, the junction tree) must then agree.
func TestPropBayesRowsOff(t *testing.T) {
	needRenormalisation(t)
	rapid.Check(t, func(t *rapid.T) {
		kind := rowKind(rapid.IntRange(0, 2).Draw(t, "rows"))
		s, m := drawBayes(t, kind, true)
		checkEngines(t, m, drawQuery(t, s.card))
	})
}

// TestPropMarkovEngines: on random Markov networks whose factors range
// from 1e-300 to 1e300, with zeros, every engine agrees with enumeration.
func TestPropMarkovEngines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawMarkov(t)
		checkEngines(t, m, drawQuery(t, cards(m)))
	})
}

// TestPropEvidence: for random evidence, P(e), ln P(e) and ln Z(e) agree
// with a big.Float reference computed from the factors as written (to
// 1e-12 relative), in every engine: P(e) = Z(e)/Z for Markov networks,
// P(e) ≤ 1 always, and where P(e) underflows float64 the error carries the
// same ln P(e) and ln Z(e).
func TestPropEvidence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var m *ir.Model
		if rapid.Bool().Draw(t, "markov") {
			m = drawMarkov(t)
		} else {
			_, m = drawBayes(t, rowKind(rapid.IntRange(0, 2).Draw(t, "rows")), false)
		}
		card := cards(m)
		ev := drawEvidence(t, card)
		if len(ev) == 0 {
			ev = []ir.Obs{{Var: 0, State: rapid.IntRange(0, card[0]-1).Draw(t, "state")}}
		}
		ze, z := bigPartition(m, ev), bigPartition(m, nil)
		logZe, logZ := bigLog(ze), bigLog(z)
		q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Pos: ir.Pos{File: "q.pbl", Line: 1, Col: 1}}, Conditions: ir.Conditions{Evidence: ev}}
		for _, e := range everyEngine {
			r, err := Answer(m, q, e.opt)
			var u *UnderflowError
			switch {
			case z.Sign() == 0:
				if !errors.Is(err, ErrImpossible) {
					t.Fatalf("%s: Z = 0 gives %v, %v; want ErrImpossible", e.name, r, err)
				}
				continue
			case errors.As(err, &u):
				if !logClose(u.LogZ, logZe) || !logClose(u.LogP, logZe-logZ) || !(u.LogP < math.Log(factor.MinNormal)) {
					t.Fatalf("%s: underflow %+v, want LogZ %v, LogP %v", e.name, *u, logZe, logZe-logZ)
				}
				continue
			case err != nil:
				t.Fatalf("%s: %v", e.name, err)
			}
			if d := insane(r); d != "" {
				t.Fatalf("%s: %s", e.name, d)
			}
			if ze.Sign() == 0 {
				if r.(*Evidence).P != 0 || !math.IsInf(r.(*Evidence).LogZ, -1) {
					t.Fatalf("%s: Z(e) = 0 gives P %v, LogZ %v", e.name, r.(*Evidence).P, r.(*Evidence).LogZ)
				}
				continue
			}
			want, _ := new(big.Float).Quo(ze, z).Float64()
			// The reference multiplies the rows as written; VE prunes
			// barren variables, whose rows sum to 1 only within 1e-15.
			if !probClose(r.(*Evidence).P, min(1, want)) && !(math.Abs(r.(*Evidence).P-want) <= 1e-14) || !logClose(r.(*Evidence).LogZ, logZe) && !(math.Abs(r.(*Evidence).LogZ-logZe) <= 1e-14) {
				t.Fatalf("%s: P(e) %v, LogZ %v; want %v, %v", e.name, r.(*Evidence).P, r.(*Evidence).LogZ, want, logZe)
			}
		}
	})
}

// bigPartition returns Σ Π φ(x) over the assignments x consistent with ev,
// in 256-bit floating point: a reference independent of the package.
func bigPartition(m *ir.Model, ev []ir.Obs) *big.Float {
	card := cards(m)
	n := 1
	for _, c := range card {
		n *= c
	}
	total := new(big.Float).SetPrec(256)
	a := make([]int, len(card))
	p := new(big.Float).SetPrec(256)
	x := new(big.Float).SetPrec(256)
	for i := range n {
		decode(a, card, i)
		if !consistent(a, ev) {
			continue
		}
		p.SetFloat64(1)
		for _, f := range m.Factors() {
			p.Mul(p, x.SetFloat64(f.Vals[offset(f, a)]))
		}
		total.Add(total, p)
	}
	return total
}

// bigLog returns ln x (-Inf for 0).
func bigLog(x *big.Float) float64 {
	if x.Sign() == 0 {
		return math.Inf(-1)
	}
	mant := new(big.Float)
	e := x.MantExp(mant)
	f, _ := mant.Float64()
	return math.Log(f) + float64(e)*math.Ln2
}
