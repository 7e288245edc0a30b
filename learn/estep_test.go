package learn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// approxLearner forces the approximate E-step (infer.CompileApproxLearner).
func approxLearner(m *ir.Model, opt infer.Options) (infer.Learner, error) {
	return infer.CompileApproxLearner(m, opt)
}

// compareEM learns m from src by EM with opt, exactly (the junction tree)
// and with the approximate E-step forced, and returns the largest
// difference of a learned table entry, the largest relative difference of
// the traces' log-likelihoods, and both reports.
func compareEM(t *testing.T, m *ir.Model, src []byte, opt learn.Options) (dtheta, dll float64, exact, approx *learn.Report) {
	t.Helper()
	em, exact, err := learn.Learn(m, opener(t, "d.csv", src, m), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Inference = approxLearner
	am, approx, err := learn.Learn(m, opener(t, "d.csv", src, m), opt)
	if err != nil {
		t.Fatal(err)
	}
	for v := range m.Vars {
		if f := em.Factor(ir.VarID(v)); f != nil {
			dtheta = max(dtheta, maxDiff(am.Factor(ir.VarID(v)).Vals, f.Vals))
		}
	}
	if len(exact.Trace) != len(approx.Trace) {
		return dtheta, math.Inf(1), exact, approx
	}
	for i := range exact.Trace {
		dll = max(dll, relDiff(approx.Trace[i], exact.Trace[i]))
	}
	return dtheta, dll, exact, approx
}

// TestApproxEStepTree: on a network whose factor graph is a tree (a hidden
// class and four children, cells missing), belief propagation is exact:
// EM on the approximate E-step (forced through Options.Inference) learns
// the junction tree's parameters (to 1e-7: each row's messages stop
// within 1e-9, and EM's 40 iterations contract such differences) and its
// trace (to 1e-9 relative), and the report names the E-step.
func TestApproxEStepTree(t *testing.T) {
	m := loadModel(t, "var H: {a, b}\nvar A, B, C: {x, y, z}\nvar D: {u, v}\nH -> A\nH -> B\nH -> C\nH -> D\n")
	src := []byte("A,B,C,D\nx,x,y,u\ny,,z,v\nz,z,,u\n,y,y,v\nx,x,x,\ny,z,z,v\nz,,x,u\nx,y,,\ny,y,y,v\n,z,z,u\nx,x,y,v\nz,y,x,u\n")
	dtheta, dll, exact, approx := compareEM(t, m, src, learn.Options{Method: learn.EM, Seed: 4, MaxIter: 40})
	if exact.EStep != nil {
		t.Errorf("the junction tree's E-step reported as approximate: %+v", exact.EStep)
	}
	if a := approx.EStep; a == nil || a.Engine != infer.LearnerEngine || a.Why == nil || !a.Why.Caller || a.Unconverged != 0 {
		t.Errorf("approximate E-step reported as %+v", a)
	}
	if exact.Iterations < 10 {
		t.Fatalf("%d iterations: too few to compare", exact.Iterations)
	}
	if !(dtheta <= 1e-7) || !(dll <= 1e-9) {
		t.Errorf("a tree: parameters differ by %g, log-likelihoods by %g (relative)", dtheta, dll)
	}
}

// exactLogLik returns the log-likelihood of the data src under m's
// numbers, by the junction tree: the start of an EM run from m's tables.
func exactLogLik(t *testing.T, m *ir.Model, src []byte) float64 {
	t.Helper()
	_, rep, err := learn.Learn(m, opener(t, "d.csv", src, m), learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Trace[0]
}

// freeParams returns the free parameters of m's tables: (k − 1) per row.
func freeParams(m *ir.Model) int {
	k := 0
	for v := range m.Vars {
		if f := m.Factor(ir.VarID(v)); f != nil {
			c := f.Card[len(f.Card)-1]
			k += len(f.Vals) / c * (c - 1)
		}
	}
	return k
}

// TestApproxEStepLoopy: on networks with loops (asia: one, through smoke,
// lung, either, dysp and bronc; child: several), with 30% of cells
// missing, EM on the approximate E-step (the Bethe approximation) does
// not learn the junction tree's parameters exactly; what it learns must
// explain the data, its log-likelihood computed exactly, as well as the
// exact EM's parameters to within the noise of estimation itself: the
// maximum-likelihood fit of k free parameters beats the true parameters
// by about k/2 nats (Wilks: twice the difference is χ² with k degrees of
// freedom), so a loss of at most k/2 is within what fitting the data
// already does. (Measured: neither loses anything, both gain 0.0003 and
// 0.016 nats — MAP maximises the log-likelihood plus the log prior, not
// the log-likelihood alone — against k/2 = 9 and 115; an E-step of
// products of marginals instead of family beliefs loses 541 nats on
// child.) Table entries are compared too: each within 0.05 of the exact
// EM's (measured 0.0002 on asia, 0.017 on child; MAP with alpha 1, so that
// a row the data hardly reach stays near uniform in both runs rather than
// following rounding: maximum likelihood moves such rows anywhere on
// differences of 1e-10 in their expected counts).
func TestApproxEStepLoopy(t *testing.T) {
	for _, c := range []struct {
		net  string
		rows int
	}{{"asia.bif", 2000}, {"child.bif", 500}} {
		truth := loadCorpus(t, c.net)
		src := sampleCSV(t, truth, c.rows, 3, 0.3)
		opt := learn.Options{Method: learn.EM, Init: learn.InitUniform, MaxIter: 40, Alpha: 1}
		em, _, err := learn.Learn(truth, opener(t, "d.csv", src, truth), opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Inference = approxLearner
		am, rep, err := learn.Learn(truth, opener(t, "d.csv", src, truth), opt)
		if err != nil {
			t.Fatal(err)
		}
		if rep.EStep == nil || rep.EStep.Engine != infer.LearnerEngine {
			t.Errorf("%s: E-step reported as %+v", c.net, rep.EStep)
		}
		dtheta := 0.0
		for v := range truth.Vars {
			dtheta = max(dtheta, maxDiff(am.Factor(ir.VarID(v)).Vals, em.Factor(ir.VarID(v)).Vals))
		}
		exact, approx := exactLogLik(t, em, src), exactLogLik(t, am, src)
		k := freeParams(truth)
		t.Logf("%s: log-likelihood %.6f (exact E-step), %.6f (approximate), k/2 = %d; largest difference of an entry %.3g", c.net, exact, approx, k/2, dtheta)
		if !(exact-approx <= float64(k)/2) {
			t.Errorf("%s: the approximate E-step's parameters lose %g nats of the exact EM's %g, more than k/2 = %d", c.net, exact-approx, exact, k/2)
		}
		if !(dtheta <= 0.05) {
			t.Errorf("%s: a table entry differs by %g from the exact EM's", c.net, dtheta)
		}
	}
}

// TestApproxEStepFallback: with Options.Approximate, a junction tree over
// Options.MaxMemory gives way to the approximate E-step, whose report says
// why; without it, the tree's refusal is the error.
func TestApproxEStepFallback(t *testing.T) {
	truth := loadCorpus(t, "asia.bif")
	src := sampleCSV(t, truth, 300, 5, 0.25)
	opt := learn.Options{Method: learn.EM, Init: learn.InitUniform, MaxIter: 5, MaxMemory: 64}
	if _, _, err := learn.Learn(truth, opener(t, "d.csv", src, truth), opt); !errors.As(err, new(*infer.TooLargeError)) {
		t.Fatalf("a tree over the memory limit: %v, want a *infer.TooLargeError", err)
	}
	opt.Approximate = true
	_, rep, err := learn.Learn(truth, opener(t, "d.csv", src, truth), opt)
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.EStep; a == nil || a.Engine != infer.LearnerEngine || a.Why == nil || a.Why.TooLarge == nil || a.Why.TooLarge.What != infer.OversizeMemory {
		t.Errorf("the fallback reported as %+v", a)
	}
	opt.MaxMemory = 0
	if _, rep, err := learn.Learn(truth, opener(t, "d.csv", src, truth), opt); err != nil || rep.EStep != nil {
		t.Errorf("a tree within the limit: %+v, %v; want the exact E-step", rep.EStep, err)
	}
}
