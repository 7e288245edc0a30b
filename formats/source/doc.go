// Package source writes a model as pbl source text: the .pbl exporter of
// pbl convert. The text reads back (with pbl.Load) to the same variables,
// states, parents and bit-identical tables: every probability is written
// in its shortest round-trip form, and tables are always written as
// vectors (a bool shorthand p would read back as 1-p, which may differ in
// the last bit from the stored value). Compact tables are written as they
// were given — noisy_or(...), noisy_max(...), a logical formula, a lookup
// (every row) — with names that are keywords there (leak, and, or, not,
// else, ...) quoted; other formats write their expanded tables. An
// influence diagram's decisions are written as `decision D: TYPE` (one
// declaration each, between the runs of variables that share one), their
// information as edge lines into them, and its utilities, after the
// distributions, as `utility U(A, B) = { ... }` with one aligned row per
// configuration of their parents, so that the text reads back to the same
// decisions, information and bit-identical utilities. A causal model's
// latent variables are declared `latent U: TYPE` (runs of them share a
// declaration as variables do), its unobserved confounders are written
// as bidirected edges `A <-> B` after the edge lines, and its observed
// distribution as `observed "FILE"` or `observed data "FILE"`, the path
// made absolute when it was relative (it was relative to the declaring
// file's directory, which need not be the written file's). A
// time-indexed model is written as its template (template.go): var X[t]
// declarations, the arcs and each template distribution once with t and
// t-k, the initial slices' distributions by their slices; a model whose
// slices are not tied (or whose template the language cannot write with
// t) is written unrolled, each slice a variable, with a comment saying
// why. The text
// is in the canonical layout of pbl fmt (package format; a test checks
// it).
package source
