// Package infer answers queries on an [ir.Model] exactly: posterior tables
// and marginals, single probabilities, the probability of evidence, MPE, MAP
// and d-separation. [Answer] is the entry point; [Options] selects the
// engine, the elimination order and the memory limit.
//
// # Reference semantics
//
// A model is the product of its factors exactly as written. For a query q
// and evidence e,
//
//	P(q | e) = Σ_{x ⊨ q, e} Π φ(x)  /  Σ_{x ⊨ e} Π φ(x)
//	P(e)     = Σ_{x ⊨ e} Π φ(x)
//
// Real-valued variables have no CPT and take no part in discrete inference.
//
// # Factor layout
//
// Every table is an [ir.Factor]: a flat []float64 in row-major order over
// its scope, the last variable fastest, with explicit strides:
//
//	offset(a) = Σ a[i]·Stride[i],  Stride[k-1] = 1,  Stride[i] = Stride[i+1]·Card[i+1]
//
// # Kernels
//
// One kernel, combineTo, multiplies a list of factors and folds out (sums
// or maximises) every variable not in the destination's scope. It walks the
// union scope U = (dst vars, folded vars) with an odometer, the folded
// variables fastest, so each destination entry is one contiguous block
// computed in a register and written once. Every input keeps a running
// offset; when odometer digit d moves, each offset changes by that input's
// stride for U[d] (0 if the input lacks it), and a digit that wraps takes
// off (Card[d]-1)·stride. There are no maps, interfaces or allocations in
// the loop. restrict fixes observed variables the same way, starting from
// the offset of the observed states. With maximisation, the kernel also
// records the first maximising state of the folded variable, so ties go to
// the lowest state.
//
// # Scaling
//
// Probabilities of long evidence vectors underflow float64 (0.5^1100 is
// already 0). Every intermediate table is rescaled after it is computed by
// a power of two so that its largest entry lies in [0.5, 1), and the
// exponent is added to a running int; constants are carried as a mantissa
// and an int exponent (xfloat). Scaling by a power of two is exact, so the
// scaling changes no digit of any answer. P(e) is mantissa·2^exponent, and
// Result.LogP = ln mantissa + exponent·ln 2 is finite whenever P(e) > 0.
// Conditional answers are ratios of scaled entries and never underflow
// unless the answer itself does. A query for P(e) whose value is below the
// smallest normal float64 returns an error that gives ln P(e), rather than a
// silent 0. Enumeration multiplies with the same mantissa/exponent pair and
// adds terms by aligning exponents.
//
// # Enumeration
//
// The Enum engine is the textbook reference: an odometer over every
// unobserved discrete variable (VarID order, last fastest) and, for each
// assignment, the product of every CPT in the model, with nothing pruned.
// It refuses more than [MaxEnum] assignments.
//
// # Variable elimination
//
// The VE engine first keeps only the relevant variables: the ancestors
// (inclusive) of the query, given and evidence variables. Any other
// variable is barren: summed out of its CPT it gives 1, so it and its CPT
// are dropped (on models whose rows are rounded, this differs from the
// product as written by the rounding, ~1e-7 on the corpus). The remaining
// CPTs are restricted by the evidence; those that become constants are
// multiplied into the scale. Variables are then eliminated one at a time:
// the factors that mention the variable are combined and the variable
// folded out in one kernel call. Before each table is allocated its size is
// computed without overflow, and a table over [Options.MaxTable] entries
// is refused with an error naming its variables. What remains is combined
// into a table over the query variables.
//
// P(*|e) runs VE once per unobserved variable (a junction tree will answer
// all marginals in one pass).
//
// # Elimination orders
//
// Orders are greedy on the interaction graph of the restricted factors
// (bitset adjacency). MinFill picks the variable whose elimination adds the
// fewest edges between its neighbours; MinWeight the one whose neighbours'
// cardinalities have the smallest product. Ties go to the smaller weight,
// then to the lower VarID, so orders are deterministic. After each step only
// the neighbours of the eliminated variable and their neighbours are
// rescored.
//
// # MPE and MAP
//
// MPE is max-product VE over every unobserved variable; each maximising
// step records, for every configuration of the new table's scope, the
// maximising state, and a traceback in reverse elimination order reads the
// assignment off those tables. MAP uses a constrained order: every non-MAP
// variable is summed out before any MAP variable is maximised. Ties: the
// traceback takes the lowest maximising state of each variable given the
// states already chosen, so the result is deterministic; when several joint
// assignments tie exactly, it is not necessarily the lexicographically
// smallest (Enum's is). Result.P is P(assignment | e).
//
// # d-separation
//
// [Independent] implements the reachability ("Bayes ball") algorithm of
// Koller and Friedman, Algorithm 3.1, in time linear in the graph.
//
// # Errors
//
// User errors come back as *ir.Error at the query's position: impossible
// evidence (P(e) = 0) for every query that conditions on e, tables or
// enumerations that are too large, a variable used twice, a real variable
// in a query. Violated invariants panic with an "infer: " message.
package infer
