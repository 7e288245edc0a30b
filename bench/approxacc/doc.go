// Command approxacc measures the accuracy of package approx's engines on
// UAI networks with evidence against exact answers (issue 29's acceptance
// figures), through the approx API directly, on the calling goroutine:
//
//	taskset -c 1 go run ./bench/approxacc -engine auto -seconds 10 -mem 64 \
//	    -exact /work/ref/data/out/grid-40-s1.exact /work/ref/data/grid-40-s1.uai
//	taskset -c 1 go run ./bench/approxacc -engine auto -seconds 20 CORPUS/uai/DBN_11.uai
//
// The exact answer is a file in daidrv's form (bench/approxref: a first
// line "logz L ...", then one marginal per line) given by -exact ("none"
// for no comparison: the errors print as 0 and NaN), or else
// the UAI solution files NET.uai.MAR and NET.uai.PR beside the network. It
// prints one line per network: name, engine that answered, i-bound,
// seconds, mean and largest Hellinger error of the unobserved variables'
// marginals, |log10 Z − truth|, the reported LogZErr (log10) and the
// fraction of marginals within their reported error.
package main
