package learn

import "github.com/pbl-lang/pbl/ir"

// SetForceNetworkEM routes every mixture through network EM while a test
// compares the two paths; it returns the function that restores the
// default.
func SetForceNetworkEM() (restore func()) {
	forceNetworkEM = true
	return func() { forceNetworkEM = false }
}

// ExpectSeqs returns the E-step's statistics of LearnSequences at m's
// own numbers, by the name of each group's first variable (a table's
// expected counts; a Gaussian's (w, Σw(x−mean), Σw(x−mean)²) per parent
// configuration), and the log-likelihood.
func ExpectSeqs(m *ir.Model, seqs []Seq, opt SeqOptions) (map[string][]float64, float64, error) {
	c := NewSeqCensus(m)
	if err := c.Add(seqs, 0); err != nil {
		return nil, 0, err
	}
	p, err := NewSeqPlan(m, c, opt)
	if err != nil {
		return nil, 0, err
	}
	st, err := p.Shards([][]Seq{seqs}).Expect(m)
	if err != nil {
		return nil, 0, err
	}
	out := map[string][]float64{}
	for gi, g := range p.r.groups {
		out[m.Vars[g.vars[0]].Name] = st.Groups[gi]
	}
	return out, st.LogLik, nil
}
