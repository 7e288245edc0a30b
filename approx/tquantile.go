package approx

import "math"

// studentT975 returns the 0.975 quantile of Student's t distribution with
// nu ≥ 1 degrees of freedom: the t with P(|T| ≤ t) = 0.95, found by
// bisection on the closed form of P(|T| ≤ t) for whole degrees of freedom
// (Abramowitz & Stegun 26.7.3 and 26.7.4). It is written here, rather than
// taken from gonum's stat/distuv, because distuv's special functions
// (gonum's mathext) made the WebAssembly page, which links this package,
// outgrow its budget (issue 30: 12 MB); TestStudentT975 checks it against
// distuv.
func studentT975(nu int) float64 {
	lo, hi := 0.0, 1.0
	for tAbsCDF(hi, nu) < 0.95 {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if tAbsCDF(mid, nu) < 0.95 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tAbsCDF returns P(|T| ≤ t) for Student's t with nu ≥ 1 degrees of
// freedom (Abramowitz & Stegun 26.7.3, 26.7.4): with θ = atan(t/√ν), for
// odd ν (2/π)(θ + sin θ cos θ (1 + (2/3) cos²θ + … + (2·4⋯(ν−3))/(1·3⋯(ν−2))
// cos^(ν−3) θ)), the bracket absent for ν = 1; for even ν sin θ (1 +
// (1/2) cos²θ + … + (1·3⋯(ν−3))/(2·4⋯(ν−2)) cos^(ν−2) θ).
func tAbsCDF(t float64, nu int) float64 {
	theta := math.Atan(t / math.Sqrt(float64(nu)))
	s, c := math.Sincos(theta)
	c2 := c * c
	if nu%2 == 1 {
		if nu == 1 {
			return 2 * theta / math.Pi
		}
		sum, term := 1.0, 1.0
		for k := 2; k <= nu-3; k += 2 {
			term *= float64(k) / float64(k+1) * c2
			sum += term
		}
		return 2 / math.Pi * (theta + s*c*sum)
	}
	sum, term := 1.0, 1.0
	for k := 1; k <= nu-3; k += 2 {
		term *= float64(k) / float64(k+1) * c2
		sum += term
	}
	return s * sum
}

// normalQuantile returns the standard normal distribution's quantile Φ⁻¹(p)
// = √2 erf⁻¹(2p − 1), for 0 < p < 1.
func normalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}
