package infer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// clgCase is a random query on a random CLG network.
type clgCase struct {
	ev      []ir.Obs
	obs     []ir.RealObs
	doReal  []ir.RealObs
	targets []ir.VarID
}

// randomCase picks real observations (about a third of the real
// variables, at values near their prior scale, or none), one to three real
// targets, sometimes discrete evidence and sometimes a do(...) of a real
// variable.
func randomCase(r *rand.Rand, n clgTestNet, offset float64) clgCase {
	var c clgCase
	perm := r.Perm(len(n.reals))
	nt := 1 + r.IntN(3)
	for _, i := range perm[:nt] {
		c.targets = append(c.targets, n.reals[i])
	}
	rest := perm[nt:]
	if r.IntN(3) == 0 {
		c.doReal = append(c.doReal, ir.RealObs{Var: n.reals[rest[0]], Value: r.NormFloat64() * 3})
		rest = rest[1:]
	}
	if r.IntN(5) == 0 {
		rest = nil // no real evidence: the discrete part is the model's
	}
	for _, i := range rest[:len(rest)/3] {
		c.obs = append(c.obs, ir.RealObs{Var: n.reals[i], Value: offset + r.NormFloat64()*(4+offset/2)})
	}
	if len(n.disc) > 0 && r.IntN(2) == 0 {
		v := n.disc[r.IntN(len(n.disc))]
		c.ev = append(c.ev, ir.Obs{Var: v, State: r.IntN(len(n.m.Vars[v].States))})
	}
	return c
}

func (c clgCase) conds() ir.Conditions {
	return ir.Conditions{Evidence: c.ev, Real: c.obs, DoReal: c.doReal}
}

func clgQueryHeader(text string) ir.QueryHeader {
	return ir.QueryHeader{Pos: ir.Pos{File: "clg.pbl", Line: 1, Col: 1}, Text: text}
}

// near reports whether a and b agree to tol relative to scale (and fails
// on NaN).
func near(a, b, scale, tol float64) bool {
	return math.Abs(a-b) <= tol*max(scale, math.Abs(a), math.Abs(b))
}

const clgTol = 1e-9

// TestCLGAgainstReference compares every kind of answer on random
// Gaussian networks (no discrete parents) and CLG networks with the
// covariance-form reference of clgref_test.go.
func TestCLGAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	for trial := range 32 {
		offset := 0.0
		if trial >= 24 {
			offset = 500 // means like blood pressures: the engine centres them
		}
		nd, maxDisc := 0, 0 // a Gaussian network: no discrete variable at all
		nr := 20 + r.IntN(41)
		if trial%2 == 1 {
			nd, maxDisc, nr = 2+r.IntN(3), 2, 20+r.IntN(21)
		}
		net, err := randomCLG(r, nd, nr, 3, maxDisc, offset)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 3 {
			c := randomCase(r, net, offset)
			t.Run(fmt.Sprintf("net%d/case%d", trial, k), func(t *testing.T) { checkCLGCase(t, net, c) })
		}
	}
}

func checkCLGCase(t *testing.T, net clgTestNet, c clgCase) {
	m := net.m
	ref := net.reference(c.ev, c.obs, c.doReal, c.targets)
	logW := make([]float64, len(ref))
	for i, rc := range ref {
		logW[i] = rc.logW
	}
	logZ := refLogSumExp(logW)

	// The real targets' posterior.
	q := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(targets | e)"), Conditions: c.conds(), Targets: c.targets, TargetStates: free(len(c.targets))}
	res, err := Answer(m, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nr, ok := res.(*Normals)
	if !ok {
		t.Fatalf("answer is %T, want *Normals", res)
	}
	nt := len(c.targets)
	refMean := make([]float64, nt)
	for _, rc := range ref {
		w := math.Exp(rc.logW - logZ)
		for i := range nt {
			refMean[i] += w * rc.mean[i]
		}
	}
	refCov := make([]float64, nt*nt)
	for _, rc := range ref {
		w := math.Exp(rc.logW - logZ)
		for i := range nt {
			for j := range nt {
				refCov[i*nt+j] += w * (rc.cov.At(i, j) + (rc.mean[i]-refMean[i])*(rc.mean[j]-refMean[j]))
			}
		}
	}
	mean, cov := nr.Mean(), nr.Cov()
	for i := range nt {
		sd := math.Sqrt(refCov[i*nt+i])
		if !near(mean[i], refMean[i], sd, clgTol) {
			t.Errorf("mean of %s = %.15g, reference %.15g", m.Vars[c.targets[i]].Name, mean[i], refMean[i])
		}
		for j := range nt {
			scale := math.Sqrt(refCov[i*nt+i] * refCov[j*nt+j])
			if !near(cov[i*nt+j], refCov[i*nt+j], scale, clgTol) {
				t.Errorf("cov[%d][%d] = %.15g, reference %.15g", i, j, cov[i*nt+j], refCov[i*nt+j])
			}
		}
	}
	// Each component: its weight is the reference's over the assignments
	// it covers, and its normal that of each of them.
	sumW := 0.0
	for _, comp := range nr.Components {
		sumW += comp.Weight
		w := 0.0
		for _, rc := range ref {
			if !slices.ContainsFunc(comp.Given, func(o ir.Obs) bool { return rc.assign[o.Var] != o.State }) {
				w += math.Exp(rc.logW - logZ)
				for i := range nt {
					if !near(comp.Mean[i], rc.mean[i], math.Sqrt(rc.cov.At(i, i)), clgTol) {
						t.Errorf("component %v: mean %d = %.15g, reference %.15g", comp.Given, i, comp.Mean[i], rc.mean[i])
					}
					if !near(comp.Cov[i*nt+i], rc.cov.At(i, i), 0, clgTol) {
						t.Errorf("component %v: var %d = %.15g, reference %.15g", comp.Given, i, comp.Cov[i*nt+i], rc.cov.At(i, i))
					}
				}
			}
		}
		if !near(comp.Weight, w, 0, clgTol) {
			t.Errorf("component %v: weight %.15g, reference %.15g", comp.Given, comp.Weight, w)
		}
	}
	if !near(sumW, 1, 1, 1e-12) {
		t.Errorf("weights sum to %.15g", sumW)
	}

	// P(e): the density of the real evidence with the discrete evidence.
	if len(c.obs) > 0 {
		q := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(e)"), Conditions: c.conds()}
		res, err := Answer(m, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := res.(*Density)
		if !(math.Abs(d.LogDensity-logZ) <= clgTol*max(1, math.Abs(logZ))) {
			t.Errorf("ln P(e) = %.15g, reference %.15g", d.LogDensity, logZ)
		}
	}

	// The density of the first target at its reference mean, given the rest.
	x := refMean[0]
	dq := &ir.DensityQuery{QueryHeader: clgQueryHeader("density(t | e)"), Conditions: c.conds(), Values: []ir.RealObs{{Var: c.targets[0], Value: x}}}
	res, err = Answer(m, dq, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, rc := range ref {
		v := rc.cov.At(0, 0)
		want += math.Exp(rc.logW-logZ) * math.Exp(-0.5*(x-rc.mean[0])*(x-rc.mean[0])/v) / math.Sqrt(2*math.Pi*v)
	}
	if got := res.(*Density).Density; !near(got, want, 0, clgTol) {
		t.Errorf("density = %.15g, reference %.15g", got, want)
	}

	// P(D | e) of each unobserved discrete variable.
	for _, v := range net.disc {
		if slices.ContainsFunc(c.ev, func(o ir.Obs) bool { return o.Var == v }) {
			continue
		}
		q := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(d | e)"), Conditions: c.conds(), Targets: []ir.VarID{v}, TargetStates: []int{-1}}
		eng := []string{Auto, VE, JT, Enum}[v%4] // the discrete part on each exact engine
		res, err := Answer(m, q, Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		best := 0.0
		for _, row := range res.(*Table).Rows {
			want := 0.0
			for _, rc := range ref {
				if rc.assign[v] == row.Values[0] {
					want += math.Exp(rc.logW - logZ)
				}
			}
			if !near(row.P, want, 0, clgTol) {
				t.Errorf("P(%s=%d | e) = %.15g, reference %.15g", m.Vars[v].Name, row.Values[0], row.P, want)
			}
			best = max(best, want)
		}
		// MAP(v | e): the largest of those.
		res, err = Answer(m, &ir.MAPQuery{QueryHeader: clgQueryHeader("MAP(d | e)"), Conditions: c.conds(), Targets: []ir.VarID{v}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.(*Assignment).P; !near(got, best, 0, clgTol) {
			t.Errorf("MAP(%s | e): P = %.15g, reference %.15g", m.Vars[v].Name, got, best)
		}
	}

	// MPE over the discrete variables.
	mq := &ir.MPEQuery{QueryHeader: clgQueryHeader("MPE(e)"), Conditions: c.conds()}
	res, err = Answer(m, mq, Options{})
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(-1)
	for _, rc := range ref {
		best = max(best, rc.logW-logZ)
	}
	if got := res.(*Assignment).LogP; !near(got, best, 1, clgTol) {
		t.Errorf("MPE: ln P = %.15g, reference %.15g", got, best)
	}
}

// TestCLGDiscreteChildOfReal: a discrete variable with a real parent is
// refused by the exact engines with its kind of error (Auto answers it
// approximately: hybrid_test.go).
func TestCLGDiscreteChildOfReal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	net, err := randomCLG(r, 2, 3, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Give d1 the real parent x0 by hand (logistic(...) and softmax(...)
	// make one in the language).
	m := *net.m
	m.Parents = slices.Clone(m.Parents)
	m.Parents[net.disc[1]] = append(slices.Clone(m.Parents[net.disc[1]]), net.reals[0])
	q := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(x1)"), Targets: []ir.VarID{net.reals[1]}, TargetStates: []int{-1}}
	_, err = Answer(&m, q, Options{Exact: true})
	var e *ir.Error
	if !errors.Is(err, ErrDiscreteChildOfReal) || !errors.As(err, &e) || !e.Pos.IsValid() {
		t.Fatalf("err = %v, want a positioned ErrDiscreteChildOfReal", err)
	}
}

// TestCLGTooManyConfigurations: more configurations of the real
// variables' discrete parents than the limit is a *TooLargeError before
// any is enumerated.
func TestCLGTooManyConfigurations(t *testing.T) {
	b := ir.NewBuilder("big.pbl")
	pos := ir.Pos{File: "big.pbl", Line: 1, Col: 1}
	var disc []ir.VarID
	for i := range 21 {
		v, _ := b.AddVar(pos, fmt.Sprintf("d%d", i), ir.Bool, nil, 0)
		b.SetCPT(pos, v, nil, []float64{0.5, 0.5}, nil)
		disc = append(disc, v)
	}
	x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
	y, _ := b.AddVar(pos, "y", ir.Real, nil, 0)
	n := 1 << 11
	b.SetGaussian(pos, x, disc[:11], make([]float64, n), slices.Repeat([]float64{1}, n))
	n = 1 << 10
	b.SetGaussian(pos, y, disc[11:], make([]float64, n), slices.Repeat([]float64{1}, n))
	m := b.Model()
	g := m.Dists[y].(*ir.Gaussian)
	g.Real, g.Coef = []ir.VarID{x}, slices.Repeat([]float64{1}, n)
	m.Parents[y] = append(slices.Clone(disc[11:]), x)
	model, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	q := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(d0 | y=1)"), Conditions: ir.Conditions{Real: []ir.RealObs{{Var: y, Value: 1}}},
		Targets: []ir.VarID{disc[0]}, TargetStates: []int{-1}}
	_, err = Answer(model, q, Options{})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != maxCLGConfigs || tl.Size != 1<<21 {
		t.Fatalf("err = %v, want a *TooLargeError of 2^21 configurations", err)
	}
	// With x observed too, y's density and x's are independent parts
	// (clgNet.split): 2^11 and 2^10 configurations, answered.
	q2 := *q
	q2.Real = append(slices.Clone(q.Real), ir.RealObs{Var: x, Value: 0.5})
	if _, err := Answer(model, &q2, Options{}); err != nil {
		t.Fatal(err)
	}
	// With d0 observed, half as many: answered.
	q.Targets = []ir.VarID{disc[1]}
	q.Evidence = []ir.Obs{{Var: disc[0], State: 0}}
	if _, err := Answer(model, q, Options{}); err != nil {
		t.Fatal(err)
	}
	// With every discrete parent observed, one configuration, whatever
	// the size of the table over all of them (2^21 here, over a MaxTable
	// of 2^20): the likelihood is over the parents the evidence leaves
	// open. P(y | every d = 0) is then y = x + noise: normal(0, √2).
	q3 := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(y | d…)"), Targets: []ir.VarID{y}, TargetStates: []int{-1}}
	for _, d := range disc {
		q3.Evidence = append(q3.Evidence, ir.Obs{Var: d, State: 0})
	}
	r, err := Answer(model, q3, Options{MaxTable: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	nr, ok := r.(*Normals)
	if !ok || len(nr.Components) != 1 || !(math.Abs(nr.Components[0].Mean[0]) < 1e-12) || !(math.Abs(nr.Components[0].Cov[0]-2) < 1e-12) {
		t.Fatalf("P(y | every d = 0) = %#v, want normal(0, √2)", r)
	}
}

// TestCLGScipyGolden compares the answers on a fixed CLG network with
// those numpy and scipy.stats.multivariate_normal gave
// (testdata/clg_scipy.py wrote testdata/clg_scipy.json; its comment says
// how).
func TestCLGScipyGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/clg_scipy.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Discrete []struct {
			Name    string
			States  int
			Parents []string
			CPT     []float64
		}
		Real []struct {
			Name           string
			Disc, Real     []string
			Mean, Coef, SD []float64
		}
		Queries []struct {
			Evidence  map[string]int
			Real      map[string]float64
			Targets   []string
			LogPE     float64 `json:"log_pe"`
			Mean      []float64
			Cov       [][]float64
			Marginals map[string][]float64
		}
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	b := ir.NewBuilder("scipy.pbl")
	pos := ir.Pos{File: "scipy.pbl", Line: 1, Col: 1}
	id := map[string]ir.VarID{}
	ids := func(names []string) []ir.VarID {
		out := []ir.VarID{}
		for _, n := range names {
			out = append(out, id[n])
		}
		return out
	}
	for _, d := range g.Discrete {
		states := make([]string, d.States)
		for s := range states {
			states[s] = fmt.Sprint(s)
		}
		id[d.Name], _ = b.AddVar(pos, d.Name, ir.Enum, states, 0)
		b.SetCPT(pos, id[d.Name], ids(d.Parents), d.CPT, nil)
	}
	for _, r := range g.Real {
		id[r.Name], _ = b.AddVar(pos, r.Name, ir.Real, nil, 0)
		b.SetGaussian(pos, id[r.Name], ids(r.Disc), r.Mean, r.SD)
	}
	m := b.Model()
	for _, r := range g.Real {
		if len(r.Real) > 0 {
			d := m.Dists[id[r.Name]].(*ir.Gaussian)
			d.Real, d.Coef = ids(r.Real), r.Coef
			m.Parents[id[r.Name]] = append(ids(r.Disc), ids(r.Real)...)
		}
	}
	model, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for qi, gq := range g.Queries {
		var c ir.Conditions
		for n, s := range gq.Evidence {
			c.Evidence = append(c.Evidence, ir.Obs{Var: id[n], State: s})
		}
		for n, x := range gq.Real {
			c.Real = append(c.Real, ir.RealObs{Var: id[n], Value: x})
		}
		targets := ids(gq.Targets)
		res, err := Answer(model, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(t | e)"), Conditions: c, Targets: targets, TargetStates: free(len(targets))}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		nr := res.(*Normals)
		mean, cov := nr.Mean(), nr.Cov()
		n := len(targets)
		for i := range n {
			if !near(mean[i], gq.Mean[i], math.Sqrt(gq.Cov[i][i]), clgTol) {
				t.Errorf("query %d: mean %d = %.15g, scipy %.15g", qi, i, mean[i], gq.Mean[i])
			}
			for j := range n {
				if !near(cov[i*n+j], gq.Cov[i][j], math.Sqrt(gq.Cov[i][i]*gq.Cov[j][j]), clgTol) {
					t.Errorf("query %d: cov %d,%d = %.15g, scipy %.15g", qi, i, j, cov[i*n+j], gq.Cov[i][j])
				}
			}
		}
		res, err = Answer(model, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(e)"), Conditions: c}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ld := res.(*Density).LogDensity; !(math.Abs(ld-gq.LogPE) <= clgTol) {
			t.Errorf("query %d: ln P(e) = %.15g, scipy %.15g", qi, ld, gq.LogPE)
		}
		for name, want := range gq.Marginals {
			res, err := Answer(model, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(d | e)"), Conditions: c, Targets: []ir.VarID{id[name]}, TargetStates: []int{-1}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range res.(*Table).Rows {
				if !near(row.P, want[row.Values[0]], 0, clgTol) {
					t.Errorf("query %d: P(%s=%d | e) = %.15g, scipy %.15g", qi, name, row.Values[0], row.P, want[row.Values[0]])
				}
			}
		}
	}
}

// BenchmarkCLG answers the posterior of three real variables given a
// third of the others observed: on a Gaussian network of 60 variables,
// and on a CLG network of 40 real variables whose discrete parents (5
// variables) have up to 243 configurations.
func BenchmarkCLG(b *testing.B) {
	for _, bc := range []struct {
		name               string
		nd, nr, maxDisc, k int
	}{{"gaussian60", 1, 60, 0, 3}, {"clg40", 5, 40, 2, 3}} {
		r := rand.New(rand.NewPCG(5, 5))
		net, err := randomCLG(r, bc.nd, bc.nr, 3, bc.maxDisc, 0)
		if err != nil {
			b.Fatal(err)
		}
		var obs []ir.RealObs
		for _, v := range net.reals[3:] {
			if r.IntN(3) == 0 {
				obs = append(obs, ir.RealObs{Var: v, Value: r.NormFloat64()})
			}
		}
		q := &ir.ProbQuery{QueryHeader: clgQueryHeader("P(t | e)"), Conditions: ir.Conditions{Real: obs}, Targets: net.reals[:bc.k], TargetStates: free(bc.k)}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Answer(net.m, q, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCLGFarTails: real evidence whose likelihoods differ by more than
// float64 holds relative to one scale across the discrete configurations
// (y = 0.5 is about 1,250 nats less likely when x ~ normal(0, 0.01) than
// when x ~ normal(0.5, 1)) goes through real.go's exact weighing of far
// likelihoods: the answers equal the reference's, computed in log space,
// with B, a child of A, observed or not.
func TestCLGFarTails(t *testing.T) {
	b := ir.NewBuilder("far.pbl")
	pos := ir.Pos{File: "far.pbl", Line: 1, Col: 1}
	a, _ := b.AddVar(pos, "A", ir.Bool, nil, 0)
	bb, _ := b.AddVar(pos, "B", ir.Bool, nil, 0)
	b.SetCPT(pos, a, nil, []float64{1 - 1e-200, 1e-200}, nil)
	b.SetCPT(pos, bb, []ir.VarID{a}, []float64{0.9, 0.1, 0.2, 0.8}, nil)
	x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
	y, _ := b.AddVar(pos, "y", ir.Real, nil, 0)
	b.SetGaussian(pos, x, []ir.VarID{a}, []float64{0, 0.5}, []float64{0.01, 1})
	b.SetGaussian(pos, y, nil, []float64{0}, []float64{0.001})
	m := b.Model()
	g := m.Dists[y].(*ir.Gaussian)
	g.Real, g.Coef = []ir.VarID{x}, []float64{1}
	m.Parents[y] = []ir.VarID{x}
	model, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	net := clgTestNet{m: model, disc: []ir.VarID{a, bb}, reals: []ir.VarID{x, y}}
	for _, ev := range [][]ir.Obs{nil, {{Var: bb, State: 0}}} {
		c := clgCase{ev: ev, obs: []ir.RealObs{{Var: y, Value: 0.5}}, targets: []ir.VarID{x}}
		ref := net.reference(c.ev, c.obs, nil, c.targets)
		logW := make([]float64, len(ref))
		for i, rc := range ref {
			logW[i] = rc.logW
		}
		logZ := refLogSumExp(logW)
		res, err := Answer(model, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(A | e)"), Conditions: c.conds(), Targets: []ir.VarID{a}, TargetStates: []int{-1}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.(*Table).Rows {
			want := 0.0
			for _, rc := range ref {
				if rc.assign[a] == row.Values[0] {
					want += math.Exp(rc.logW - logZ)
				}
			}
			if !near(row.P, want, 0, clgTol) && !(math.Abs(row.P-want) <= 1e-300) {
				t.Errorf("ev %v: P(A=%d | y=0.5) = %.15g, reference %.15g", ev, row.Values[0], row.P, want)
			}
		}
		res, err = Answer(model, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(e)"), Conditions: c.conds()}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ld := res.(*Density).LogDensity; !(math.Abs(ld-logZ) <= clgTol*max(1, math.Abs(logZ))) {
			t.Errorf("ev %v: ln p(e) = %.15g, reference %.15g", ev, ld, logZ)
		}
		res, err = Answer(model, &ir.ProbQuery{QueryHeader: clgQueryHeader("P(x | e)"), Conditions: c.conds(), Targets: c.targets, TargetStates: []int{-1}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for _, rc := range ref {
			want += math.Exp(rc.logW-logZ) * rc.mean[0]
		}
		if got := res.(*Normals).Mean()[0]; !near(got, want, 0, clgTol) {
			t.Errorf("ev %v: E[x | y=0.5] = %.15g, reference %.15g", ev, got, want)
		}
	}
}

// TestCLGJointNormalParent: a joint normal density of (u, v) with
// covariance [[1, 0.5], [0.5, 2]] given C is the chain u ~ N(μu, 1),
// v = μv + 0.5 (u − μu) + N(0, 1.75); with w = 1 + 2v + N(0, 0.25), a
// linear Gaussian child of v, the model with the joint density and the
// model with the chain give the same answers.
func TestCLGJointNormalParent(t *testing.T) {
	pos := ir.Pos{File: "mn.pbl", Line: 1, Col: 1}
	means := [][]float64{{0, 0}, {4, 1}}
	build := func(joint bool) (*ir.Model, map[string]ir.VarID) {
		b := ir.NewBuilder("mn.pbl")
		id := map[string]ir.VarID{}
		id["C"], _ = b.AddVar(pos, "C", ir.Bool, nil, 0)
		b.SetCPT(pos, id["C"], nil, []float64{0.3, 0.7}, nil)
		for _, n := range []string{"u", "v", "w"} {
			id[n], _ = b.AddVar(pos, n, ir.Real, nil, 0)
		}
		c := []ir.VarID{id["C"]}
		if joint {
			b.SetMultiNormal(&ir.MultiNormal{Pos: pos, Children: []ir.VarID{id["u"], id["v"]}, Parents: c, Mean: means,
				Cov: [][]float64{{1, 0.5, 0.5, 2}, {1, 0.5, 0.5, 2}}})
		} else {
			b.SetGaussian(pos, id["u"], c, []float64{means[0][0], means[1][0]}, []float64{1, 1})
			// v = μv − 0.5 μu + 0.5 u + e
			b.SetGaussian(pos, id["v"], c, []float64{means[0][1] - 0.5*means[0][0], means[1][1] - 0.5*means[1][0]}, []float64{math.Sqrt(1.75), math.Sqrt(1.75)})
		}
		b.SetGaussian(pos, id["w"], nil, []float64{1}, []float64{0.5})
		m := b.Model()
		if !joint {
			g := m.Dists[id["v"]].(*ir.Gaussian)
			g.Real, g.Coef = []ir.VarID{id["u"]}, []float64{0.5, 0.5}
			m.Parents[id["v"]] = []ir.VarID{id["C"], id["u"]}
		}
		g := m.Dists[id["w"]].(*ir.Gaussian)
		g.Real, g.Coef = []ir.VarID{id["v"]}, []float64{2}
		m.Parents[id["w"]] = []ir.VarID{id["v"]}
		model, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return model, id
	}
	mj, id := build(true)
	mc, _ := build(false)
	type ask struct {
		q    ir.Query
		read func(Result) []float64
	}
	obs := ir.Conditions{Real: []ir.RealObs{{Var: id["w"], Value: 3}}}
	normals := func(r Result) []float64 { n := r.(*Normals); return append(n.Mean(), n.Cov()...) }
	asks := []ask{
		{&ir.ProbQuery{QueryHeader: clgQueryHeader("P(u, v | w=3)"), Conditions: obs, Targets: []ir.VarID{id["u"], id["v"]}, TargetStates: []int{-1, -1}}, normals},
		{&ir.ProbQuery{QueryHeader: clgQueryHeader("P(C | w=3)"), Conditions: obs, Targets: []ir.VarID{id["C"]}, TargetStates: []int{-1}},
			func(r Result) []float64 { return []float64{r.(*Table).Rows[0].P} }},
		{&ir.ProbQuery{QueryHeader: clgQueryHeader("P(w=3)"), Conditions: obs}, func(r Result) []float64 { return []float64{r.(*Density).LogDensity} }},
		{&ir.ProbQuery{QueryHeader: clgQueryHeader("P(w | u=1)"), Conditions: ir.Conditions{Real: []ir.RealObs{{Var: id["u"], Value: 1}}}, Targets: []ir.VarID{id["w"]}, TargetStates: []int{-1}}, normals},
	}
	for _, a := range asks {
		rj, err := Answer(mj, a.q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := Answer(mc, a.q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		xj, xc := a.read(rj), a.read(rc)
		for i := range xj {
			if !near(xj[i], xc[i], 1, 1e-12) {
				t.Errorf("%s: number %d: %.15g with the joint density, %.15g with the chain", a.q.Head().Text, i, xj[i], xc[i])
			}
		}
	}
}

// TestCLGRefusals: the questions about real variables the engine does not
// answer are positioned errors, never a wrong answer.
func TestCLGRefusals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	net, err := randomCLG(r, 2, 4, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	x, d := net.reals[0], net.disc[0]
	for _, q := range []ir.Query{
		&ir.ProbQuery{QueryHeader: clgQueryHeader("P(x, d)"), Targets: []ir.VarID{x, d}, TargetStates: []int{-1, -1}},
		&ir.ProbQuery{QueryHeader: clgQueryHeader("P(x | d)"), Conditions: ir.Conditions{Free: []ir.VarID{d}}, Targets: []ir.VarID{x}, TargetStates: []int{-1}},
		&ir.ProbQuery{QueryHeader: clgQueryHeader("P(x | x=1)"), Conditions: ir.Conditions{Real: []ir.RealObs{{Var: x, Value: 1}}}, Targets: []ir.VarID{x}, TargetStates: []int{-1}},
		&ir.ProbQuery{QueryHeader: clgQueryHeader("P(d | do(x=1), x=2)"), Conditions: ir.Conditions{Real: []ir.RealObs{{Var: x, Value: 2}}, DoReal: []ir.RealObs{{Var: x, Value: 1}}}, Targets: []ir.VarID{d}, TargetStates: []int{-1}},
	} {
		_, err := Answer(net.m, q, Options{})
		var e *ir.Error
		if !errors.As(err, &e) || !e.Pos.IsValid() {
			t.Errorf("%s: err = %v, want a positioned error", q.Head().Text, err)
		}
	}
}
