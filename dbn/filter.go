package dbn

import "fmt"

// Filter calls emit(t, post) at every step t, post[a] being P(target_a
// at step t | the observations of steps 0..t and the static values),
// one probability per state, in memory constant in the sequence's
// length. A target names a template variable (its slice t) or a static
// one (P(S | observations so far)); a real-valued target is an
// ErrTarget. post is valid only during the call; an error from emit
// stops the run and is returned.
func (n *Net) Filter(s Seq, targets []string, emit func(t int, post [][]float64) error) error {
	if n.fast != nil && n.fast.covers(n, targets) && n.fast.hidden(s) {
		return n.fast.filter(n, s, len(targets), emit)
	}
	r, err := n.newRun(s, targets, true)
	if err != nil {
		return err
	}
	msg, _, err := r.prior(s)
	if err != nil {
		return err
	}
	for t, obs := range s.Steps {
		if msg, _, err = r.forward(t, msg, obs); err != nil {
			return err
		}
		if emit != nil {
			ks := r.kinds[n.kindOf(t)]
			if err := emit(t, r.posts(ks, ks.j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// LogLik returns log p(observations, static values): the probability
// of the discrete values observed times the density of the real ones,
// everything else summed or integrated out (0 for an empty sequence
// without static values). Observations of probability zero are an
// *ImpossibleError.
func (n *Net) LogLik(s Seq) (float64, error) {
	if n.fast != nil && n.fast.hidden(s) {
		return n.fast.loglik(n, s)
	}
	r, err := n.newRun(s, nil, true)
	if err != nil {
		return 0, err
	}
	msg, ll, err := r.prior(s)
	if err != nil {
		return 0, err
	}
	for t, obs := range s.Steps {
		var l float64
		if msg, l, err = r.forward(t, msg, obs); err != nil {
			return 0, err
		}
		ll += l
	}
	return ll, nil
}

// Predict returns P(target at step T-1+k | observations) for k = 1..steps,
// T the sequence's length: out[k-1][a] is target a's distribution k
// steps after the last observed one (for an empty sequence, at step k-1).
func (n *Net) Predict(s Seq, targets []string, steps int) ([][][]float64, error) {
	if steps < 1 {
		return nil, fmt.Errorf("predict %d steps: at least 1: %w", steps, ErrTarget)
	}
	if need := sizeOf([]int{steps, len(targets) + 1, n.maxCard(), 8}); need > MaxBytes {
		return nil, &TooLargeError{What: "the predictions", Size: need, Limit: MaxBytes, Unit: "bytes"}
	}
	if n.fast != nil && n.fast.covers(n, targets) && n.fast.hidden(s) {
		return n.fast.predict(n, s, len(targets), steps)
	}
	r, err := n.newRun(s, targets, true)
	if err != nil {
		return nil, err
	}
	msg, _, err := r.prior(s)
	if err != nil {
		return nil, err
	}
	for t, obs := range s.Steps {
		if msg, _, err = r.forward(t, msg, obs); err != nil {
			return nil, err
		}
	}
	out := make([][][]float64, steps)
	T := len(s.Steps)
	for k := range steps {
		t := T + k
		if msg, _, err = r.forward(t, msg, nil); err != nil {
			return nil, err
		}
		ks := r.kinds[n.kindOf(t)]
		p := r.posts(ks, ks.j)
		out[k] = make([][]float64, len(p))
		for a, x := range p {
			out[k][a] = append([]float64(nil), x...)
		}
	}
	return out, nil
}

// maxCard returns the largest number of states of a variable.
func (n *Net) maxCard() int {
	c := 1
	for _, k := range n.local {
		c = max(c, k)
	}
	return c
}
