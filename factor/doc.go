// Package factor is pbl's factor layer: the flat table of a non-negative
// function of discrete variables ([Factor]), the scaled number that keeps
// products of thousands of probabilities representable ([Scaled]), and the
// kernels every exact engine is written on — the product of factors with
// variables summed or maximised out ([Combine], [MultiplyInto]),
// restriction to evidence ([Restrict], [RestrictTo]) and normalisation by a
// power of two ([Rescale], [ScaleBy], [Prepare]) — with the per-entry
// exponent tables of exact arithmetic ([Exact], [CombineExact]). It plays
// the role libDAI's core plays for its algorithms: enumeration, variable
// elimination and the junction tree of package infer are written on it, and
// a new engine (see infer.Engine and infer.Register) is too.
//
// # Layering
//
// The package sits below package ir, which imports it: ir.Factor is an
// alias of [Factor] and ir.VarID an alias of [Var]. A variable is
// identified here by an integer only (an index into the model's variables
// in ir): the factor layer needs nothing else of a model, and keeping the
// identifier type in this package, rather than in a third one, lets the
// ~hundreds of users of ir.VarID and ir.Factor keep compiling unchanged
// while nothing here depends on the model layer.
//
// # Layout
//
// A factor's entries are stored row-major, the last variable of its scope
// varying fastest: the entry of the assignment a is Vals[Σ a[i]·Stride[i]].
// Factors need not share a variable order; the kernels map strides between
// scopes.
//
// # Scale
//
// The kernels work on scaled tables: each table's largest entry is brought
// into [0.5, 1) by a power of two (exact in binary floating point), the
// exponent taken off being carried beside it ([Scaled], m·2^e with an int
// exponent). Products of scaled entries cannot overflow; one that falls
// below the normal range of float64 has lost digits, which the kernels
// record in their [Kernel] (Lost) so that the caller can redo the work in
// exact arithmetic ([Exact], every entry with its own exponent).
//
// # Cost
//
// Each kernel's documentation states its time and memory. n is the number
// of entries of the destination, b the number of assignments of the
// variables folded per destination entry (so n·b is the size of the
// product over the union scope), k the number of input factors and v the
// number of variables of the union scope. No kernel allocates more than
// O(k·v) words beyond its result.
//
// # Cancellation
//
// A [Kernel] carries a cancellation channel that the kernels poll every
// [PollEvery] entries (a few milliseconds of work); a canceled kernel
// leaves its destination incomplete and the caller returns an error.
package factor
