// Package uai reads and writes models in the UAI format of the UAI
// inference competitions, reads their evidence files, and writes and reads
// their answer files. [Read] and [ReadFile] turn a .uai file into an
// [ir.Model]; [ReadEvidence] reads a .evid file against a model; [Write]
// exports a model; [WritePR], [WriteMAR] and [WriteMPE] print answers in
// the competition's formats, and [ReadPR] and [ReadMAR] read them back.
//
// # Model files
//
// A .uai file is a list of whitespace-separated tokens; line breaks carry
// no meaning and there are no comments:
//
//	MARKOV                  the preamble: MARKOV or BAYES
//	3                       the number of variables
//	2 2 3                   their cardinalities
//	2                       the number of factors
//	2 0 1                   each factor's scope: its size, then variable indices
//	2 1 2
//	4 1.2 0.5 0.5 2         each factor's table: its size, then its values
//	6 1 1 1 1 2 0
//
// Input compressed with gzip is recognised by its magic bytes.
//
// Variables are named X0..X{n-1} in file order and their states "0".."k-1"
// (an integer range, [ir.Range]). A table lists its values in row-major
// order over the scope as written, the last variable fastest: the layout
// of [ir.Factor], so values are copied without reordering.
//
// In a MARKOV file every factor becomes a potential ([ir.Builder.AddFactor]):
// the model is the unnormalised product of the factors, and the
// probability of evidence is the partition function Z(e). A MARKOV file
// with no factors at all gets one constant factor 1, so that it remains a
// Markov network (the uniform measure over its variables).
//
// In a BAYES file the last variable of each scope is the factor's child and
// the others its parents, in order; the table is the child's CPT laid out
// (parents..., child), exactly as [ir.Builder.SetCPT] takes it. Every
// variable must be the child of exactly one factor, every row must sum to 1
// within [ir.RowTolerance], and the graph must be acyclic.
//
// # Evidence files
//
// A .evid file is `N v1 s1 ... vN sN`: N observations of variable index vi
// in state si (`0` for none), as in the UAI 2014 competition. The older
// form, a sample count `1` followed by that list, is also read; the two
// are told apart by the number of tokens (1+2N is odd, 2+2N even).
//
// # Answer files
//
// A PR answer is `PR` then log10 Z(e). A MAR answer is `MAR` then the
// number of variables and, for each, its cardinality and marginal
// probabilities; observed variables appear as point masses. An MPE answer
// is `MPE` then the number of variables and each one's state. Numbers are
// written in the shortest form that reads back as the same float64.
//
// # Errors
//
// Every error is an [ir.Error] in an [ir.ErrorList] at file:line:col of the
// offending token (or of the end of the file, for a truncated one): a bad
// preamble, a count or index that is not a non-negative integer, an index
// out of range or repeated in a scope, a table whose size does not match
// its scope, a value that is negative, NaN, infinite or not a number, and
// tokens after the last table. Sizes are checked before anything is
// allocated: a table may not exceed [ir.MaxTableSize] entries, a scope
// 1024 variables, and the variables may not have more than 1<<20 states in
// all. The reader reports
// one error per factor and goes on where the file's structure allows it
// (a wrong table size is skipped by the size it gives), and stops at the
// first error that leaves it without a way to go on.
package uai
