package approx

import (
	"errors"
	"math"
	"time"
)

// Auto is the approximate engine for a problem whose exact junction tree
// may not fit: the combination the planner calls for marginals and ln Z.
// It runs, in turn:
//
//  1. Cutset enumeration when a cutset whose removal isolates every other
//     variable has at most 2^22 joint states, its measured speed says it
//     ends within 80 % of the time left (cutset.go), and exact
//     elimination does not fit the memory or would touch more table
//     entries (four per entry of its tables) than the enumeration (the
//     cutset's states times its size plus one): exact (Engine "cutset",
//     Err 0, LogZErr 0).
//  2. Weighted mini-buckets ([WMB]) for about half the time left: when
//     its i-bound reaches the induced width of the problem restricted to
//     its evidence within Settings.MaxMemory, it is exact elimination
//     (Engine "wmb", Err 0, LogZErr 0) and Auto returns it.
//  3. Otherwise IJGP ([IJGP]) for the rest of the time (exact too when
//     its junction tree fits the memory: Engine "ijgp", Err 0, LogZErr
//     0). The answer has IJGP's marginals and their Err: WMB's marginals
//     could only be given an error of their residual plus their distance
//     to IJGP's plus IJGP's Err (WMB's residual alone is not calibrated),
//     never less than IJGP's own, and on grids under a tight memory limit
//     they were the farther from the exact ones. Its ln Z is the better
//     known of the two: WMB's bounds' midpoint when their half gap is
//     below IJGP's LogZErr, else IJGP's moved into WMB's bounds when
//     outside them; LogZErr is WMB's half gap (a bound), or the least of
//     IJGP's estimate and the distance to the farther of WMB's bounds (a
//     bound too). LogZLo and LogZHi are WMB's bounds. Engine is "ijgp".
//     When IJGP is stopped before any answer, WMB's is returned with
//     Stopped set.
//
// With a Deadline, the stages reached and the i-bounds, and so the
// numbers, depend on the machine's speed; without one they do not (the
// engines draw no random numbers), but each stage runs to its own end.
//
// Result.Engine names the engine that answered ("ijgp", "cutset" or
// "wmb"). Settings are passed on (Deadline, Cancel, MaxMemory, IBound,
// Damping, Tolerance, MaxIter). It returns ErrImpossible for impossible
// evidence and ErrNoAnswer when stopped before any answer.
func Auto(p *Problem, s Settings) (*Result, error) {
	r, err := propReduce(p)
	if err != nil {
		return nil, err
	}
	if autoCutsetFirst(p, r, s) {
		if res, err := cutsetExact(r, autoShare(s, 0.8)); res != nil || err != nil {
			return res, err
		}
	}
	w, werr := WMB(p, autoShare(s, 0.5))
	if errors.Is(werr, ErrImpossible) {
		return w, werr
	}
	if werr == nil && w.LogZErr == 0 {
		return w, nil
	}
	j, jerr := IJGP(p, s)
	switch {
	case jerr != nil && werr != nil:
		return nil, jerr
	case jerr != nil:
		w.Stopped = w.Stopped || errors.Is(jerr, ErrNoAnswer)
		return w, nil
	case werr != nil:
		return j, nil
	}
	if w.LogZErr < j.LogZErr {
		j.Stopped = j.Stopped || w.Stopped
		j.LogZ, j.LogZErr = w.LogZ, w.LogZErr
		j.LogZLo, j.LogZHi = w.LogZLo, w.LogZHi
		return j, nil
	}
	if j.LogZ > w.LogZHi {
		j.LogZ = w.LogZHi
	}
	if j.LogZ < w.LogZLo {
		j.LogZ = w.LogZLo
	}
	j.LogZErr = min(j.LogZErr, max(w.LogZHi-j.LogZ, j.LogZ-w.LogZLo))
	j.LogZLo, j.LogZHi = w.LogZLo, w.LogZHi
	return j, nil
}

// autoShare returns s with its Deadline moved to the given share of the
// time left (s itself without a Deadline).
func autoShare(s Settings, share float64) Settings {
	if !s.Deadline.IsZero() {
		s.Deadline = time.Now().Add(time.Duration(share * float64(time.Until(s.Deadline))))
	}
	return s
}

// autoCutsetFirst reports whether Auto tries the cutset enumeration: its
// cutset is small enough, and exact elimination along WMB's order does
// not fit the memory or costs more.
func autoCutsetFirst(p *Problem, r *propReduced, s Settings) bool {
	cut, bits, ok := cutsetPlan(r)
	if !ok || bits > math.Log2(cutsetMaxStates) {
		return false
	}
	w := newWMB(p, s)
	if w.impossible || w.stop() || w.width < 0 {
		return true
	}
	mem := s.MaxMemory
	if mem <= 0 {
		mem = DefaultWMBMemory
	}
	pl := w.plan(w.width + 1)
	return pl.bytes > mem || 4*float64(pl.entries) > math.Exp2(bits)*float64(len(cut)+1)
}
