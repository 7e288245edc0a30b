// Package decision solves influence diagrams: chance variables with
// conditional probability tables, decisions taken knowing some variables
// (their information parents), and utility tables over the outcomes, whose
// sum is the total utility ([Diagram], [Var], [Utility]).
//
// It answers, for a perfect-recall (no-forgetting) diagram whose decisions
// are taken in a temporal order, the maximum expected utility and an
// optimal policy for each decision ([Diagram.Solve], exact, by variable
// elimination in the reverse decision order on probability and utility
// potential pairs), the expected utility of a choice given evidence on what
// is known when it is taken, later decisions optimal ([Solution.EU]), and
// the value of perfect information of a chance variable for a decision
// ([Diagram.VPI], and [Diagram.RankVPI] for every variable still to
// learn). For a limited-memory influence diagram (LIMID: each
// decision knows its own parents only) it runs single policy updating
// ([Diagram.SolveLIMID]), whose answer is a local optimum, and exact when
// the diagram has perfect recall as it stands.
//
// Evidence is of two kinds. A finding ([Finding], in Diagram.Findings) is
// a fact of the case known before any decision, hard or a likelihood, on
// a chance variable no decision influences: every answer is conditioned
// on it (the MEU is the best strategy's E[U | findings]), as aGrUM's
// evidence is. [Diagram.Set] is an intervention, do(X=x), on a chance
// variable or a decision (which is then no longer chosen). Each policy
// marks the configurations of its information that cannot occur
// (Policy.Impossible), where its choice is arbitrary.
//
// The package is numeric and structural: variables are indices, tables are
// flat row-major slices, and it imports nothing of pbl. The language's
// decision and utility declarations are lowered to a [Diagram] by the
// packages after ir; infer and the root package will call it.
//
// Errors are *[Error] values whose kind (Err) is matched with errors.Is;
// every table's size is checked against [Options] before it is allocated
// (a *[TooLargeError]). Nothing panics on a bad diagram: [Diagram.Validate]
// runs first.
//
// References: F. Jensen, F. V. Jensen and S. L. Dittmer, From influence
// diagrams to junction trees, UAI 1994; S. L. Lauritzen and D. Nilsson,
// Representing and solving decision problems with limited information,
// Management Science 47(9), 2001; H. Raiffa, Decision Analysis, 1968.
package decision
