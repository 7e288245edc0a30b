package learn

import "github.com/pbl-lang/pbl/ir"

// SetForceNetworkEM routes every mixture through network EM while a test
// compares the two paths; it returns the function that restores the
// default.
func SetForceNetworkEM() (restore func()) {
	forceNetworkEM = true
	return func() { forceNetworkEM = false }
}

// SeqStats returns the E-step's statistics of LearnSequences at m's own
// numbers, by the name of each group's first variable (a table's
// expected counts; a Gaussian's (w, Σw(x−mean), Σw(x−mean)²) per parent
// configuration), and the log-likelihood.
func SeqStats(m *ir.Model, seqs []Seq, opt SeqOptions) (map[string][]float64, float64, error) {
	r := &seqRun{opt: opt, m: m, seqs: seqs, horizon: map[int]*seqTree{}}
	if r.opt.VarFloor == 0 {
		r.opt.VarFloor = DefaultVarFloor
	}
	if err := r.setGroups(); err != nil {
		return nil, 0, err
	}
	if err := r.checkSeqs(); err != nil {
		return nil, 0, err
	}
	if !opt.General {
		r.hmm = r.hmmShape()
	}
	st, err := r.expect(m)
	if err != nil {
		return nil, 0, err
	}
	out := map[string][]float64{}
	for gi, g := range r.groups {
		out[m.Vars[g.vars[0]].Name] = st.groups[gi]
	}
	return out, st.ll, nil
}
