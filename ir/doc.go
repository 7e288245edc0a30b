// Package ir is pbl's intermediate representation: a validated model of
// discrete variables with integer-indexed domains, factors stored as flat
// row-major float64 arrays with strides, and the statements of a file.
//
// # Pipeline
//
// The front end (package parser) produces a syntax tree; [Lower] turns it
// into a [Model]. Importers of other formats (package formats/bif) build a
// Model with the same [Builder] and share its validation, so that every
// model, whatever its source, satisfies the same invariants:
//
//   - variable names are unique and every variable has at least one state;
//   - the graph given by [Model.Parents] is acyclic;
//   - every discrete variable has exactly one CPT, whose factor is laid out
//     over (parents..., child) with the child varying fastest;
//   - every CPT row holds probabilities in [0, 1] that sum to 1 within 1e-6.
//     Rows are kept exactly as written: there is no silent renormalisation.
//
// # Factors
//
// A [Factor] over variables v0, v1, ..., vk-1 with cardinalities c0..ck-1
// stores its values in row-major order, the last variable fastest:
//
//	index(a) = Σ a[i]·Stride[i],  Stride[k-1] = 1,  Stride[i] = Stride[i+1]·c[i+1]
//
// # Errors
//
// User errors are [Error] values carrying a [Pos]; each phase collects them
// in an [ErrorList] and reports all of them, sorted by position.
package ir
