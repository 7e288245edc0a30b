// Package infer answers queries on an [ir.Model] exactly: posterior tables
// and marginals, single probabilities, the probability of evidence, MPE, MAP
// and d-separation. [Answer] is the entry point; [Options] selects the
// engine (enumeration, variable elimination or junction tree), the
// elimination order and the memory limits. [Compile] builds a junction tree
// that answers many queries on one model.
//
// Programs that ask without a query text (classifiers, learners) call
// [Posterior] for P(target | e) and [LogPE] for ln P(e), which choose the
// engine and fail as Answer does, and, for EM, [JTree.Families] and
// [JTree.Expect], which read every family's posterior off one
// calibration, and [JTree.WithModel], which reuses a compiled tree for new
// numbers.
//
// # Reference semantics
//
// A model's distribution is the normalised product of its factors,
// P(x) = Π φ(x) / Z with Z = Σ_x Π φ(x). For a Bayesian network Z = 1: the
// ir package renormalises the CPT rows it accepts within 1e-6 on load, so
// that every engine multiplies rows that sum to 1 (to rounding) whatever
// it prunes. For a query q and evidence e,
//
//	P(q | e) = Σ_{x ⊨ q, e} Π φ(x)  /  Σ_{x ⊨ e} Π φ(x)
//	P(e)     = Σ_{x ⊨ e} Π φ(x)  /  Z
//
// for Markov networks too. The partition function with the evidence,
// Z(e) = Σ_{x ⊨ e} Π φ(x), is asked for by name: [Evidence].LogZ is ln Z(e)
// for every P(e) answer, finite even where Z(e) over- or underflows
// float64 (it is the UAI competition's PR, in natural log); for a Bayesian
// network it is ln P(e). Z itself (no evidence) is computed once per query
// by the engine answering it, and once per compiled junction tree.
//
// No answer exceeds 1 or is NaN: conditional answers are ratios of sums
// of non-negative terms, clamped to [0, 1] where two sums computed apart
// (MPE's maximum and P(e), Z(e) and Z) round to 1 + ulp.
//
// Real-valued variables have no CPT and take no part in discrete inference.
//
// # Engines
//
// Every engine implements [Engine] and registers itself ([Register]):
// enum, ve, jt and bnb (branch and bound for MPE and MAP) are built in, and
// [Options.Engine] and pbl's --engine take any registered name or "auto"
// ([Engines], [Lookup], [ParseEngine]). An engine provides three
// primitives on a model and an evidence set ([Instance]: the joint of some
// variables with the evidence, as a factor times a [factor.Scaled]; the
// partition function; the maximising assignment), and Answer turns them
// into every kind of answer. Package infer/enginetest checks an engine
// against brute-force enumeration.
//
// # Factor layout
//
// Every table is an [ir.Factor] (an alias of [factor.Factor]; the tables,
// the scaled numbers and the kernels below are package factor's, on which
// every engine is written): a flat []float64 in row-major order over
// its scope, the last variable fastest, with explicit strides:
//
//	offset(a) = Σ a[i]·Stride[i],  Stride[k-1] = 1,  Stride[i] = Stride[i+1]·Card[i+1]
//
// # Kernels
//
// One kernel, factor.Combine, multiplies a list of factors and folds out (sums
// or maximises) every variable not in the destination's scope. It walks the
// union scope U = (dst vars, folded vars) with an odometer, the folded
// variables fastest, so each destination entry is one contiguous block
// computed in a register and written once. Every input keeps a running
// offset; when odometer digit d moves, each offset changes by that input's
// stride for U[d] (0 if the input lacks it), and a digit that wraps takes
// off (Card[d]-1)·stride. There are no maps, interfaces or allocations in
// the loop. factor.Restrict fixes observed variables the same way, starting from
// the offset of the observed states. With maximisation, the kernel also
// records the first maximising state of the folded variable, so ties go to
// the lowest state.
//
// # Scaling
//
// Probabilities of long evidence vectors underflow float64 (0.5^1100 is
// already 0), and the potentials of a Markov network may overflow it (a
// factor of 1e308 squared). Every engine works on scaled tables: a table is
// float64 entries times 2^exponent, with one int exponent per table kept
// beside it, and its entries brought by a power of two to a largest in
// [0.5, 1). Scaling by a power of two is exact, so it changes no digit of
// any answer. Constants are carried as a mantissa and an int exponent
// (factor.Scaled).
//
//   - The kernels multiply scaled tables only, so no product overflows: a
//     model's factor whose largest entry is outside [2^-32, 1+2^-10] (a
//     potential, a restricted CPT column of 1e-200s) enters as a scaled
//     copy; VE rescales every factor it restricts and every table it
//     makes; the junction tree rescales every initial clique table, every
//     message and every clique whose largest entry falls below 2^-256.
//   - A product of many tables is taken a few at a time: VE first
//     multiplies the tables of a bucket whose scope lies within its
//     largest table's into a copy of it (a star's root meets thousands of
//     unary tables), and a clique's factors are multiplied in 32 at a
//     time, with a factor.Rescale after each pass.
//   - Scaling cannot keep an entry that lies more than float64's range
//     (2^1022) below its table's largest, as in a factor holding both 1e300
//     and 1e-300, or in the product of tables whose largest entries sit at
//     incompatible assignments. The kernels detect it: a product of nonzero
//     entries that falls below the normal range sets a flag (lost), checked
//     per term only when the tables' smallest nonzero entries allow it, so
//     the common case pays nothing. A VE run that lost digits is run again
//     in exact arithmetic (exact.go: an exponent per entry, several times
//     slower); a junction tree whose initial tables or calibration lost
//     digits answers that query by VE, which does the same. So no answer
//     is ever silently inexact, and a normaliser is 0 only when the
//     evidence is impossible, never because it underflowed.
//
// P(e) is mantissa·2^exponent, and [Evidence].LogP = ln mantissa +
// exponent·ln 2 is finite whenever P(e) > 0. Conditional answers are ratios
// of scaled entries and never underflow unless the answer itself does
// (P(x | e) for an entry far below its table's largest is recomputed from
// P(x, e) and P(e), so that its LogP stays finite). A query for P(e) whose
// value is below the smallest normal float64 returns an error whose kind,
// an *[UnderflowError], gives ln P(e) and ln Z(e), rather than a silent 0.
// Enumeration multiplies with the same mantissa/exponent pair (a factor
// beyond 2^±500 into a normalised mantissa) and adds terms by aligning
// exponents.
//
// # Enumeration
//
// The Enum engine is the textbook reference: an odometer over every
// unobserved discrete variable (VarID order, last fastest) and, for each
// assignment, the product of every CPT in the model, with nothing pruned.
// It refuses more than [MaxEnum] assignments. (In a model with variables
// still to be learned, it enumerates only those a query needs: see below.)
//
// # Variable elimination
//
// The VE engine first keeps only the relevant variables: the ancestors
// (inclusive) of the query, given and evidence variables. Any other
// variable is barren: summed out of its CPT it gives 1, so it and its CPT
// are dropped (exact, the rows being renormalised). The remaining CPTs are
// restricted by the evidence; those that become constants are multiplied
// into the scale.
//
// Then VE plans before it computes: it chooses the elimination order, and
// follows the tables' scopes through it (which tables each elimination
// multiplies, found through per-variable lists, and the scope of the
// table it makes) without allocating a single entry. Eliminating v makes a
// table over v's neighbours in the interaction graph, so the order's
// greedy pass knows each table's size as it chooses: it stops at the first
// table over [Options.MaxTable] entries, and the refusal names its
// variables. The plan's peak memory (the live tables, the copy absorbing a
// bucket makes, MAP's traceback tables) is checked against
// [Options.MaxMemory]. So a query VE cannot answer is refused in the time
// of a greedy order, milliseconds on a 40×40 grid, never after building
// tables for a minute. Then the variables are eliminated one at a time:
// the tables that mention the variable are combined and the variable
// folded out in one kernel call; what remains is combined into a table
// over the query variables.
//
// P(*|e) with VE runs it once per unobserved variable; the junction tree
// answers all marginals from one calibration.
//
// # Elimination orders
//
// Orders are greedy on the interaction graph of the restricted factors.
// MinFill picks the variable whose elimination adds the fewest edges
// between its neighbours; MinWeight the one whose neighbours'
// cardinalities have the smallest product. Ties go to the smaller weight,
// then to the lower VarID, so orders are deterministic.
//
// The greedy elimination (elim.go, shared with the junction tree's
// triangulation) uses sparse adjacency, a sorted neighbour list per
// vertex, and keeps every score exact incrementally: with d(v) the degree
// and t(v) the number of edges among v's neighbours, v's fill-in is
// d(v)(d(v)-1)/2 - t(v), and each fill-in edge (a, b) adds to t the common
// neighbours of a and b; the weighted fill-in keeps Σ card and Σ card² over
// the neighbours and Σ card(a)·card(b) over the edges among them the same
// way; a weight (a product of cardinalities, multiplied up in vertex
// order) is +Inf from 1024 neighbours of two or more states on, without
// multiplying. The candidates wait in a heap. An elimination therefore
// costs time in its degree and fill-in, never in the number of vertices,
// and memory is linear in the edges: a star of 20,000 leaves orders in
// milliseconds, where bitset adjacency took n² bits and minutes. The
// orders are the same, bit for bit, as a recount from scratch gives.
//
// # Junction tree
//
// [Compile] builds a [JTree] once per model; each query then costs one
// calibration with its evidence, and a query with the same evidence as the
// previous one on the same workspace costs none. Answer with [JT] (or Auto
// choosing it) compiles through a small cache keyed by the model pointer and
// the limits, so repeated queries on one model compile once.
//
// Moralisation: the moral graph joins every two discrete variables that
// share a factor's scope; a CPT's scope is its child and parents, so this
// marries the parents. Nothing is pruned (the tree serves every evidence
// set); the rows being renormalised on load, JT and VE agree to rounding.
//
// Triangulation: greedy elimination (as for VE's orders, with the sparse
// adjacency and incremental scores described there) with three
// heuristics, each run with a deterministic tie-break (clique weight, then
// VarID) and two seeded random tie-breaks:
//
//	min-fill            fewest fill-in edges
//	min-weight          smallest clique table Π card(v ∪ N(v))
//	weighted-min-fill   smallest Σ card(a)·card(b) over fill-in edges (a, b)
//
// Eliminating v creates the clique C_v = v ∪ N(v). v's parent in the
// elimination tree is the first of N(v) eliminated after it, and C_w \ w ⊆
// C_v for each child w, so C_v is contained in an earlier clique exactly
// when a child has |C_w| = |C_v| + 1; such a C_v is merged into the
// child's clique, and the others are the maximal cliques, in order of
// creation. The run with the smallest total clique-table size Σ_C Π card
// wins; a run stops as soon as its total exceeds the best so far, or one
// of its cliques exceeds [Options.MaxTable] (Compile then refuses only if
// every run does, naming the smallest such clique).
//
// Clique tree: a maximum spanning tree (Kruskal) of the clique graph
// weighted by the number of shared variables, which for the maximal cliques
// of a chordal graph has the running-intersection property. When the
// clique graph has more than 2^20 edges (a variable in thousands of
// cliques, as a star's root), the elimination tree contracted to the
// maximal cliques is used instead: a clique tree too, with the same
// separators (all clique trees of a chordal graph have them), built in
// time linear in Σ|C|. Components are joined by empty separators, so
// there is one root (clique 0) and P(e) is read off it. Each factor is multiplied into the smallest clique that
// contains its scope; the products (the initial tables) are rescaled by
// powers of two, kept flat in one []float64, and copied per query.
//
// Structure and numbers: a tree is its structure, which depends only on the
// model's graph (the factors' scopes) and the variables' numbers of states,
// and its numbers. The structure is the triangulation, the cliques and
// their layouts, the clique tree, the index maps and the clique each
// factor multiplies into; it is built once, never modified, and shared.
// The numbers are the initial clique tables with their exponent and the
// product of the constant factors. [JTree.WithModel] gives a model with
// the same variables and factor scopes (the next step of EM) a tree that
// shares the structure: it multiplies the new factors into the cliques and
// nothing else, so a learner pays for triangulation and index maps once.
// Models are immutable, so the compile cache is keyed by the model pointer.
//
// Limits: before any table is allocated, the plan is checked against
// [Options.MaxTable] entries for the largest clique and
// [Options.MaxMemory] bytes for the whole tree (initial and working
// tables, separators, index maps); the error names the largest clique and
// its size. [Explain] prints the plan without allocating it. What the
// limit leaves beside the tree and one workspace holds, as far as it goes,
// the no-evidence collect tables of the cliques a calibration may skip
// (jtclean.go: filled lazily from a tree's second calibration on, the
// deepest cliques first); the limit is per tree, so concurrent queries'
// workspaces may together exceed it.
//
// Index maps (jtedge.go): a clique's table is cut into blocks of at least
// 64 entries over its last variables; the offset in a separator S of a
// clique entry is the sum of its block's outer offset and its offset
// within the block, so two short int32 tables per clique and separator
// replace an index per entry, and a block splits into runs whose entries
// map to one entry of S or to consecutive ones. Each pass over a clique
// works a block at a time, in cache: the block is read, the messages of
// every neighbour multiplied in, and it is summed onto every separator it
// sends to, so a clique is read once per pass whatever its degree.
//
// Calibration (Hugin): collect visits the cliques children first; each
// clique's table is its initial table restricted to the evidence (every
// clique holding an observed variable skips the blocks, and zeroes the
// entries, that disagree with it), times its children's messages, summed
// onto the separator towards its parent in the same pass. Distribute
// visits them parents first and multiplies each clique by new(S)/old(S),
// with 0/0 = 0, summing the result onto its children's separators; a
// query for marginals writes back only the cliques some variable's
// marginal is read from (its smallest clique). The root is the clique
// from which the heaviest path to a leaf is lightest; on a tree of at
// least 256k entries both passes run on every core (jtpar.go): the
// subtrees under a few cliques around the root are shared out, heaviest
// first, and those cliques run alone, with the same bits as on one core. A joint query whose variables share a clique is summed from that
// clique; any other joint query, and MAP, go to VE.
//
// Scaling (see Scaling above): each collect message is normalised by a
// power of two (exact) and its exponent added to a running int; a clique
// whose largest entry falls below 2^-256 while absorbing is rescaled the
// same way. P(e) is
// (Σ root)·2^exponent, carried as an factor.Scaled, so it never underflows
// silently: the same underflow error as VE is returned when it is below
// the smallest normal float64. In distribute, the parent's new separator
// marginal is normalised before the division, so no clique's scale drifts
// along long paths. The tables of one clique share one scale; conditional
// answers are ratios within a clique.
//
// Max-product: MPE runs the collect pass with max in place of sum, then a
// traceback from the root: the root's first maximal entry, then in each
// child the first maximal entry among those that agree with its parent's
// choice on the separator. The maximum is read off the root with its
// scale, and divided by P(e) from a sum collect.
//
// Engine choice: Auto uses the junction tree for P(*|e); MPE uses branch
// and bound (mpesearch.go), and max-product on the tree only when the
// search gives up; MAP uses its search or VE. No choice depends on whether
// a tree is compiled already (by an earlier query or another goroutine):
// the same query gets the same answer, to the last digit, whatever ran
// before it.
// Every other query is planned (plan.go): VE's plan on the reduced model
// (barren variables dropped, the evidence absorbed, the components the
// evidence separates from a normalised query left out when their
// constant is provably positive, the cheapest of three greedy orders and
// the model's own that fits the memory) is
// weighed against the junction tree's compilation (unless compiled
// already; shared among [Options.Queries]) and calibration, by estimated
// time, and the tree is not even triangulated when VE costs less than
// any tree of the model could. [ExplainQuery] prints the choice. When the
// tree exceeds the limits Auto uses VE. Both costs are estimated before
// anything is allocated (the triangulation and VE's plan), so a model
// neither can answer is refused in about the time of the greedy passes.
//
// # Limits and cancellation
//
// Every limit is checked before the work it bounds: [Options.MaxTable]
// (entries of one VE table or clique), [Options.MaxMemory] (bytes of a
// junction tree, or of VE's tables at their peak), [MaxEnum] (assignments
// enumerated) and [Options.MaxRows] (rows of a table answer, checked
// before any engine runs: P(HISTORY | 15 free variables) on ALARM asks for
// billions of rows, which are refused with their number rather than built
// until memory runs out). A refusal is a *[TooLargeError] naming what
// (an Oversize) and how much.
//
// [Options].Cancel, a channel, stops a computation when it is closed. The
// outer loops poll it (each elimination step of VE, each message of a
// calibration, each triangulation step, each clique filled), and so do the
// inner ones every 2^16 entries or assignments, so a canceled query stops
// within milliseconds and returns an error of kind [ErrCanceled]. Nothing
// canceled is kept: a canceled compilation is not cached, and a canceled
// calibration leaves its workspace empty.
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
// smallest (Enum's is). [Assignment].P is P(assignment | e).
//
// # Family posteriors and EM
//
// EM's E-step needs, for every row of data, the posterior of every family:
// the family of a discrete variable v is the scope of its factor
// m.Factor(v), (parents..., v) with v fastest. At compile time each family
// records the clique its factor multiplies into (the smallest that
// contains the family) and an int32 map from that clique's entries to the
// family's, omitted when the clique is the family in the same layout; the
// maps belong to the structure and count towards MaxMemory. After a
// calibration a family's posterior is one pass over its clique,
//
//	fam[idx[i]] += C[i],   P(family = j | e) = fam[j] / Σ fam
//
// which is what [JTree.Families] returns, with ln P(e).
//
// [JTree.Expect] adds w_r·P(family_v | row r) to acc[v] for every row r.
// Rows with the same evidence need the same calibration, so it sorts the
// row indices by evidence (ties by index, so that the sums come in the
// same order every run) and calibrates once per group, adding the group's
// summed weight: a data set with few patterns of missing values costs few
// calibrations however many rows it has. Rows of probability 0 are
// skipped and counted; ExpectStats.LogLik is Σ w_r ln P(row r) over the
// others, the log-likelihood EM watches. Each call takes a workspace from
// the tree's pool, so calls with different acc may run at once on one
// tree, one per core. Between iterations, [JTree.WithModel] loads the
// M-step's numbers into the same structure.
//
// # Variables still to be learned
//
// A Bayesian network may have variables whose numbers are still to be
// learned (ir.Model.Unlearned: a structure without tables). A query needs
// the numbers of the ancestors (inclusive) of its query, given and
// evidence variables: every other variable is barren (see Variable
// elimination), so its numbers cannot change the answer. MPE and P(* | e)
// ask about every unobserved variable and so need every discrete one.
// Answer refuses a query that needs an unlearned variable, naming up to
// three of them, with the kind ir.ErrNoDistribution, and answers any other
// exactly: VE prunes the barren variables anyway; the junction tree needs
// every factor, so Auto and JT use VE instead, and [Compile] refuses such a
// model; Enum enumerates the needed variables only (the ancestral closure)
// instead of every variable. Real variables never take part, learned or
// not. indep needs no numbers at all.
//
// # d-separation
//
// [Independent] implements the reachability ("Bayes ball") algorithm of
// Koller and Friedman, Algorithm 3.1, in time linear in the graph.
//
// # Conditional linear Gaussian models
//
// A real variable's mean may be linear in real parents (ir.Gaussian's
// Real). clg.go answers queries on such models, and the posterior of real
// variables on any model ([Normals]: a normal, or a mixture of normals),
// exactly: per configuration of the discrete parents of each group of
// real variables the query reaches, their joint normal is conditioned on
// the real evidence in canonical form (clgnormal.go), and the density of
// the evidence becomes a likelihood potential for the discrete engines.
// At most 2^20 configurations per group are enumerated. A discrete
// variable with a real parent is refused (ErrDiscreteChildOfReal).
//
// # Sensitivity analysis
//
// [Sensitivity] differentiates P(y | e) with respect to each entry of the
// tables, its row co-varied in proportion, exactly: P(y, e) and P(e) are
// linear in the entry, with slopes read off the family posteriors of two
// calibrations of the junction tree (sensitivity.go explains the
// algebra, entries at 0 and 1, and which tables are left out).
//
// # Errors
//
// User errors come back as *ir.Error at the query's position: impossible
// evidence (P(e) = 0) for every query that conditions on e, tables or
// enumerations that are too large, a variable used twice, a real variable
// in a query. The message (Msg) is for people; the kind (Err, which
// errors.Is and errors.As see through the *ir.Error and an ir.ErrorList)
// is for programs, which never need to read the message:
//
//	ErrImpossible         the evidence has probability 0
//	*UnderflowError       a query for P(e) whose value is below 2.2e-308, with
//	                      its LogP and LogZ (errors.Is(err, ErrUnderflow) holds)
//	ErrRange              real values beyond float64: a density whose logarithm
//	                      underflows (below -1.8e308), or likelihoods that lift
//	                      parent configurations the discrete evidence makes less
//	                      likely than e^-700 to the weight of others
//	*TooLargeError        a table, clique, tree, plan, enumeration or answer
//	                      over the limits: What (an Oversize), Vars, Size and Limit
//	ErrCanceled           Options.Cancel was closed
//	ErrDiscreteChildOfReal a discrete variable has a real-valued parent
//	ir.ErrNoDistribution  the question needs a variable still to be learned
//	ErrSensitivity        [Sensitivity] of a query other than P(Y=y | e) with
//	                      discrete evidence, or on a Markov network
//
// [Compile], [Posterior], [LogPE] and [JTree.Families] have no query:
// their errors are at the model's file, with the same kinds. Expect skips
// impossible rows rather than failing. Violated invariants (a malformed
// argument to Families or Expect, say) panic with an "infer: " message.
package infer
