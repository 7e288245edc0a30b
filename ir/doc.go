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
//   - every variable has at most one distribution ([Dist]); a discrete
//     variable without one is a structure whose numbers are to be learned
//     ([Model.Unlearned]); a table's factor is laid out over (parents...,
//     child) with the child varying fastest;
//   - every CPT row holds probabilities in [0, 1] that sum to 1 within 1e-6,
//     and is then renormalised to sum to 1, so that every engine answers
//     the same model whatever it prunes (a barren node's rows sum to 1, a
//     query's result never exceeds 1); the numbers as written are kept for
//     writers ([CPT.Written]), so that files round-trip bit for bit.
//
// # Models are values
//
// A built Model is never written to: lowering, importers and derivations
// ([Model.WithStates], [Model.WithDists], [Extend]) each return a new
// Model that shares what did not change, so a model may be used by any
// number of goroutines and learning returns a new model.
//
// # Distributions
//
// The kinds of distribution form a sealed set ([Dist]: [*CPT], [*Gaussian],
// [*MultiNormal], the joint normal density of several real variables, each
// of whose Dists is the same value). A [Mixture] declares such a density
// to learn.
// [Model.Table] lowers a discrete variable's distribution to the flat
// table the engines multiply, in one place (dist.go); engines, learners
// and the table formats read that, and only ir switches over the kinds to
// lower them.
//
// # Statements
//
// [LowerWith] runs a file's learn statements through a callback
// ([LowerOptions].Learn, the root package's RunLearn) and lowers the file's
// queries and expectations against the model they learned, so a query
// may name a state that only the data gave an open variable.
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
