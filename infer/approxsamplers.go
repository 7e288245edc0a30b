//go:build !js

package infer

import "github.com/pbl-lang/pbl/approx"

// samplerEngines are the approximate engines that sample. The WebAssembly
// page (GOOS=js), which never names an engine (its answers are auto's:
// exact, or the cascade), leaves them out to stay under issue 30's 12 MB
// (approxsamplers_js.go).
var samplerEngines = [...]approxAlg{
	{"gibbs", "Gibbs sampling, several chains, R-hat; approximate", approx.Gibbs, false},
	{"is", "adaptive importance sampling from the loopy BP marginals, Bayesian networks; approximate", approx.Importance, true},
	{"lw", "likelihood weighting, Bayesian networks; approximate", approx.LikelihoodWeighting, true},
}
