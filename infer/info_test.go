package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// This file checks entropy(...), MI(...) and VOI against references
// computed independently of the engines: the posterior by enumerating
// the joint (of the whole network, or of the ancestors of the query's
// variables in a corpus network), and the measures by other formulas
// (natural logarithms, MI as H(A) + H(B) − H(A, B)).

// refPosterior returns P(vs | ev), row-major over vs, by summing the
// assignments of joint (from bruteJoint) that agree with ev; nil if ev is
// impossible.
func refPosterior(joint []float64, card []int, vs []ir.VarID, ev []ir.Obs) []float64 {
	n := 1
	for _, v := range vs {
		n *= card[v]
	}
	p := make([]float64, n)
	total := 0.0
	for a, x := range jointGiven(joint, card, ev) {
		i := 0
		for _, v := range vs {
			i = i*card[v] + a[v]
		}
		p[i] += x
		total += x
	}
	if total == 0 {
		return nil
	}
	for i := range p {
		p[i] /= total
	}
	return p
}

// refEntropy is −Σ p ln p / ln 2.
func refEntropy(p []float64) float64 {
	h := 0.0
	for _, x := range p {
		if x != 0 {
			h -= x * math.Log(x)
		}
	}
	return h / math.Ln2
}

// refMI is H(A) + H(B) − H(A, B) for a joint of na × nb entries.
func refMI(p []float64, na, nb int) float64 {
	pa, pb := make([]float64, na), make([]float64, nb)
	for i := range na {
		for j := range nb {
			pa[i] += p[i*nb+j]
			pb[j] += p[i*nb+j]
		}
	}
	return refEntropy(pa) + refEntropy(pb) - refEntropy(p)
}

// infoQuery builds entropy(targets | ev), or MI(a, b | ev) when b is not
// nil.
func infoQuery(a, b []ir.VarID, ev []ir.Obs) ir.Query {
	if b != nil {
		return &ir.MIQuery{QueryHeader: ir.QueryHeader{Text: "MI"}, Conditions: ir.Conditions{Evidence: ev}, A: a, B: b}
	}
	return &ir.EntropyQuery{QueryHeader: ir.QueryHeader{Text: "entropy"}, Conditions: ir.Conditions{Evidence: ev}, Vars: a}
}

func TestInfoRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	checked := 0
	for net := range 40 {
		s := randomNet(rng, 4+rng.IntN(5), 3, 3, net%2 == 0)
		m := s.build(t)
		joint, card := bruteJoint(m)
		for range 8 {
			perm := rng.Perm(len(card))
			na, nb, ne := 1+rng.IntN(2), 1+rng.IntN(2), rng.IntN(3)
			if na+nb+ne > len(card) {
				continue
			}
			a, b := ids(perm[:na]...), ids(perm[na:na+nb]...)
			var ev []ir.Obs
			for _, v := range perm[na+nb : na+nb+ne] {
				ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
			}
			p := refPosterior(joint, card, slices.Concat(a, b), ev)
			nA := len(p)
			for _, v := range b {
				nA /= card[v]
			}
			for _, eng := range []string{Enum, VE, JT} {
				for _, q := range []ir.Query{infoQuery(slices.Concat(a, b), nil, ev), infoQuery(a, b, ev)} {
					r, err := Answer(m, q, Options{Engine: eng})
					if p == nil {
						if !isImpossible(err) {
							t.Fatalf("net %d %v %s: impossible evidence %v: got %v, %v", net, eng, q.Head().Text, ev, r, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("net %d %v %s: %v", net, eng, q.Head().Text, err)
					}
					want := refEntropy(p)
					if flat(q).Kind == kindMI {
						want = refMI(p, nA, len(p)/nA)
					}
					if d := math.Abs(r.(*Bits).Bits - want); !(d <= 1e-12) || !(r.(*Bits).Bits >= 0) {
						t.Errorf("net %d %v %s(%v, %v | %v) = %.17g, want %.17g", net, eng, q.Head().Text, a, b, ev, r.(*Bits).Bits, want)
					}
					checked++
				}
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d checks", checked)
	}
}

func isImpossible(err error) bool { return errors.Is(err, ErrImpossible) }

// TestVOIRandom checks VOI against MI(X, V | e) answered one by one, and
// H(X | e) against the reference.
func TestVOIRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for net := range 40 {
		var m *ir.Model
		if net < 30 {
			m = randomNet(rng, 5+rng.IntN(4), 3, 3, net%2 == 0).build(t)
		} else {
			m = randomMarkov(t, rng, 5+rng.IntN(3)) // unnormalised potentials
		}
		joint, card := bruteJoint(m)
		x := ir.VarID(rng.IntN(len(card)))
		var ev []ir.Obs
		for _, v := range rng.Perm(len(card))[:rng.IntN(3)] {
			if ir.VarID(v) != x {
				ev = append(ev, ir.Obs{Var: ir.VarID(v), State: rng.IntN(card[v])})
			}
		}
		px := refPosterior(joint, card, []ir.VarID{x}, ev)
		res, err := VOI(m, infoQuery([]ir.VarID{x}, nil, ev), nil, Options{})
		if px == nil {
			if !isImpossible(err) {
				t.Fatalf("net %d: impossible evidence: got %v", net, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(res.Entropy - refEntropy(px)); !(d <= 1e-12) {
			t.Errorf("net %d: H = %.17g, want %.17g", net, res.Entropy, refEntropy(px))
		}
		checkVOI(t, fmt.Sprintf("net %d", net), m, x, ev, res, 1e-12, func(v ir.VarID) float64 {
			return refMI(refPosterior(joint, card, []ir.VarID{x, v}, ev), card[x], card[v])
		})
	}
}

// checkVOI checks that res ranks every unobserved discrete variable but x
// once, highest first, each with the information want gives, within tol.
func checkVOI(t *testing.T, name string, m *ir.Model, x ir.VarID, ev []ir.Obs, res *VOIResult, tol float64, want func(ir.VarID) float64) {
	t.Helper()
	n := 0
	for v := range m.Vars {
		if m.Discrete(ir.VarID(v)) && ir.VarID(v) != x && !slices.ContainsFunc(ev, func(o ir.Obs) bool { return o.Var == ir.VarID(v) }) {
			n++
		}
	}
	if len(res.Gains) != n {
		t.Fatalf("%s: %d candidates ranked, want %d", name, len(res.Gains), n)
	}
	for i, g := range res.Gains {
		if i > 0 && !(g.Bits <= res.Gains[i-1].Bits) {
			t.Errorf("%s: rank %d has %g bits, more than %g before it", name, i, g.Bits, res.Gains[i-1].Bits)
		}
		w := want(g.Var)
		if d := math.Abs(g.Bits - w); !(d <= tol) {
			t.Errorf("%s: I(X; %s) = %.17g, want %.17g", name, m.Vars[g.Var].Name, g.Bits, w)
		}
		if !(g.Bits <= res.Entropy+1e-12) {
			t.Errorf("%s: I(X; %s) = %g exceeds H(X) = %g", name, m.Vars[g.Var].Name, g.Bits, res.Entropy)
		}
	}
}

// ancestralPosterior returns P(vs | ev) on a Bayesian network by
// enumerating the ancestors (inclusive) of vs and ev alone, the others
// summing to 1, or ok false if they have more than limit assignments.
func ancestralPosterior(m *ir.Model, vs []ir.VarID, ev []ir.Obs, limit float64) (p []float64, ok bool) {
	in := make([]bool, len(m.Vars))
	var mark func(v ir.VarID)
	mark = func(v ir.VarID) {
		if in[v] {
			return
		}
		in[v] = true
		for _, u := range m.Parents[v] {
			mark(u)
		}
	}
	for _, v := range vs {
		mark(v)
	}
	for _, o := range ev {
		mark(o.Var)
	}
	var sub []ir.VarID
	size := 1.0
	fixed := make([]int, len(m.Vars))
	for v := range fixed {
		fixed[v] = -1
	}
	for _, o := range ev {
		fixed[o.Var] = o.State
	}
	for v, ok := range in {
		if ok && fixed[v] < 0 {
			sub = append(sub, ir.VarID(v))
			size *= float64(len(m.Vars[v].States))
		}
	}
	if size > limit {
		return nil, false
	}
	n := 1
	for _, v := range vs {
		n *= len(m.Vars[v].States)
	}
	p = make([]float64, n)
	a := slices.Clone(fixed)
	total := 0.0
	for i := 0; i < int(size); i++ {
		k := i
		for j := len(sub) - 1; j >= 0; j-- {
			c := len(m.Vars[sub[j]].States)
			a[sub[j]] = k % c
			k /= c
		}
		x := 1.0
		for v, ok := range in {
			if ok {
				x *= m.Factor(ir.VarID(v)).Vals[offset(m.Factor(ir.VarID(v)), a)]
			}
		}
		idx := 0
		for _, v := range vs {
			idx = idx*len(m.Vars[v].States) + a[v]
		}
		p[idx] += x
		total += x
	}
	for i := range p {
		p[i] /= total
	}
	return p, true
}

// TestInfoCorpus checks entropy and MI on asia and alarm against the
// posterior enumerated over the query's ancestors (2e-6: the corpus's
// tables are rounded, so rows sum to 1 only to about 1e-6), and VOI's
// ranking against MI queries answered one by one (1e-12).
func TestInfoCorpus(t *testing.T) {
	for _, name := range []string{"asia", "alarm"} {
		t.Run(name, func(t *testing.T) {
			m := readCorpus(t, name)
			rng := rand.New(rand.NewPCG(3, 3))
			checked := 0
			for try := 0; try < 400 && checked < raceFewer(20, 10); try++ {
				perm := rng.Perm(len(m.Vars))
				a, b := ids(perm[0]), ids(perm[1])
				ev := randomEvidence(rng, m, rng.IntN(3))
				ev = slices.DeleteFunc(ev, func(o ir.Obs) bool { return o.Var == a[0] || o.Var == b[0] })
				p, ok := ancestralPosterior(m, slices.Concat(a, b), ev, 2e6)
				if !ok {
					continue
				}
				checked++
				na := len(m.Vars[a[0]].States)
				for _, q := range []ir.Query{infoQuery(slices.Concat(a, b), nil, ev), infoQuery(a, b, ev)} {
					r, err := Answer(m, q, Options{})
					if err != nil {
						t.Fatal(err)
					}
					want := refEntropy(p)
					if flat(q).Kind == kindMI {
						want = refMI(p, na, len(p)/na)
					}
					if d := math.Abs(r.(*Bits).Bits - want); !(d <= 2e-6) {
						t.Errorf("%s(%s, %s | %v) = %.17g, want %.17g", q.Head().Text, m.Vars[a[0]].Name, m.Vars[b[0]].Name, ev, r.(*Bits).Bits, want)
					}
				}
			}
			if checked < 10 {
				t.Errorf("only %d queries small enough to enumerate", checked)
			}
			// VOI against MI queries one by one.
			for k := range 3 {
				x := ir.VarID(rng.IntN(len(m.Vars)))
				ev := slices.DeleteFunc(randomEvidence(rng, m, 2*k), func(o ir.Obs) bool { return o.Var == x })
				res, err := VOI(m, infoQuery([]ir.VarID{x}, nil, ev), nil, Options{})
				if err != nil {
					t.Fatal(err)
				}
				checkVOI(t, name, m, x, ev, res, 1e-12, func(v ir.VarID) float64 {
					r, err := Answer(m, infoQuery([]ir.VarID{x}, []ir.VarID{v}, ev), Options{})
					if err != nil {
						t.Fatal(err)
					}
					return r.(*Bits).Bits
				})
			}
		})
	}
}

func TestVOIErrors(t *testing.T) {
	m := chainNet(3, 0.9).build(t)
	x := []ir.VarID{0}
	ev := []ir.Obs{{Var: 2, State: 0}}
	for _, c := range [][]ir.VarID{{0}, {2}, {1, 1}} {
		if _, err := VOI(m, infoQuery(x, nil, ev), c, Options{}); err == nil {
			t.Errorf("candidates %v: no error", c)
		}
	}
	res, err := VOI(m, infoQuery(x, nil, ev), []ir.VarID{1}, Options{})
	if err != nil || len(res.Gains) != 1 || res.Gains[0].Var != 1 {
		t.Fatalf("got %v, %v", res, err)
	}
}

// TestInfoDSeparatedZero: a variable d-separated from the target given
// the evidence carries exactly 0 bits, by VOI and by MI, where the sums
// of the posteriors leave rounding noise (asia's bronc carried 1.5e-18).
func TestInfoDSeparatedZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	checked := 0
	for net := range 60 {
		m := randomNet(rng, 6+rng.IntN(4), 3, 2, false).build(t)
		n := len(m.Vars)
		x := ir.VarID(rng.IntN(n))
		var ev []ir.Obs
		var given []ir.VarID
		for _, v := range rng.Perm(n)[:rng.IntN(3)] {
			if ir.VarID(v) != x {
				ev = append(ev, ir.Obs{Var: ir.VarID(v), State: 0})
				given = append(given, ir.VarID(v))
			}
		}
		res, err := VOI(m, infoQuery([]ir.VarID{x}, nil, ev), nil, Options{})
		if isImpossible(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range res.Gains {
			sep, err := Independent(m, []ir.VarID{x}, []ir.VarID{g.Var}, given)
			if err != nil || !sep {
				continue
			}
			checked++
			if g.Bits != 0 {
				t.Errorf("net %d: VOI of %d about %d = %g bits, d-separated: want 0", net, g.Var, x, g.Bits)
			}
			r, err := Answer(m, infoQuery([]ir.VarID{x}, []ir.VarID{g.Var}, ev), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.(*Bits).Bits != 0 {
				t.Errorf("net %d: MI(%d, %d) = %g bits, d-separated: want 0", net, x, g.Var, r.(*Bits).Bits)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d d-separated pairs checked", checked)
	}
}
