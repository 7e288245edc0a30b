package mixture

import (
	"fmt"
)

// SelectK fits a mixture with each number of components from kmin to kmax
// (opt.K is ignored) and returns the fit with the lowest BIC (the smallest
// k of equal ones) and every fit, in order of k. A k for which the data
// has too few rows ends the range; a fit that fails for another reason
// fails the selection.
func SelectK(x *Matrix, kmin, kmax int, opt GMMOptions) (best *GMM, all []*GMM, err error) {
	if kmin < 1 || kmax < kmin {
		return nil, nil, &Error{Err: ErrBadOption, Msg: fmt.Sprintf("k range %d..%d: want 1 ≤ min ≤ max", kmin, kmax)}
	}
	if x.Rows < kmin {
		return nil, nil, x.check(kmin)
	}
	for k := kmin; k <= min(kmax, x.Rows); k++ {
		opt.K = k
		g, err := FitGMM(x, opt)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, g)
		if best == nil || g.BIC() < best.BIC() {
			best = g
		}
	}
	return best, all, nil
}
