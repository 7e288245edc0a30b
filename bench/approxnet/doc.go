// Command approxnet generates the benchmark networks of approximate
// inference (issue 29's acceptance figures): binary grid Markov networks,
// random Bayesian networks and two-layer diagnosis networks, each with
// evidence, written as UAI (.uai and .uai.evid; Bayesian networks also as
// .bif for pomegranate). The output depends only on the flags: the same
// seed gives the same files.
//
//	go run ./bench/approxnet -kind grid -n 20 -seed 1 -observe 0.2 -out DIR
//	go run ./bench/approxnet -kind bn -n 200 -k 3 -window 25 -seed 1 -observe 0.2 -out DIR
//	go run ./bench/approxnet -kind diag -n 100 -m 400 -k 6 -seed 1 -observe 0.2 -out DIR
//	go run ./bench/approxnet -kind diag -n 200 -m 2000 -k 6 -seed 1 -observe 0.2 -positive 0.5 -out DIR
//
// Kinds:
//
//   - grid: an n×n grid of binary variables (Ising-like): a field
//     exp(±h) on each variable, h ~ N(0, 0.5²), and a coupling exp(±J) on
//     each edge, J ~ N(0, coupling²) (mixed signs: a spin glass). A
//     fraction observe of the variables is observed at uniformly random
//     states (every state is possible: all entries are positive). Written
//     as UAI MARKOV.
//   - bn: a random Bayesian network of n variables with 2 to 4 states, in
//     the order 0..n-1, each with up to k parents drawn among the window
//     variables before it (all before it when window is 0), CPT rows drawn
//     from Dirichlet(alpha). The evidence is a sample of the network,
//     observed on a random fraction observe of the variables (so it is
//     possible). Written as UAI BAYES and BIF.
//   - diag: a two-layer diagnosis network (QMR-like): n binary diseases
//     with priors U(0.01, 0.1) and m binary findings, each a noisy-OR of
//     k diseases (inhibitions U(0.1, 0.9), leak 0.01). The evidence
//     observes a fraction observe of all the variables, chosen among the
//     findings, at a sample of the network with extra positive findings
//     (the sampled diseases are drawn with prior doubled), so that many
//     findings are positive; with -positive F, a fraction F of the
//     observed findings is taken among the sampled positive ones (as many
//     as there are), the rest among the negative ones. Written as UAI
//     BAYES and BIF.
//
// The files are named KIND-N-sSEED (with -name to override) in the
// directory -out, which is created if needed.
package main
