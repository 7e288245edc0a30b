// Package repl is pbl's interactive session: `pbl repl [MODEL]`.
//
// A [Session] reads input through a readline function and writes results
// to an io.Writer, so its logic is tested with a scripted slice of lines;
// the terminal adapter ([RunTerminal], the only file that imports
// github.com/peterh/liner) adds line editing, history and completion.
//
// # Input
//
// Each input line is a command (`:observe Storm=true`, `:help`, ...) or part
// of a statement of the language. Statements are read the way starlark's
// ParseCompoundStmt reads them: lines are joined until the parser is
// satisfied, so a CPT may span several lines. A parse error at the end of
// the text means the statement is incomplete; any other error is reported
// and the text discarded. A line starting with a query keyword and "(" is a
// query (`P(Campfire | Storm)`), unless it continues as a CPT (`P(X) = 0.3`).
//
// # The model
//
// The session's model is an [ir.Model], which never changes once built:
// the session holds a pointer to the current one and replaces it. It
// starts as the loaded file (any format, read by pbl.LoadFile, which runs
// a .pbl file's learn statements) or an empty model. An input that
// declares something (variables, edges, distributions, a classifier, data
// tables, learn statements, imports) is lowered onto it with [ir.Extend],
// which runs its learn statements and returns the extended model; its
// errors are positioned at the lines typed, as "<stdin>:LINE:COL". An
// input that fails to lower is rejected and the model is unchanged. A
// variable declared without a distribution is a variable still to learn:
// a query that needs it fails with an error of the kind
// ir.ErrNoDistribution, and the others are answered. :reload reads the
// file again and extends it with the parsed inputs, in order. Inputs of
// only queries and expectations leave the model alone, so the junction
// tree that package infer caches per model is compiled once and only
// re-calibrated as the evidence changes.
//
// # Evidence
//
// Session evidence (`:observe`) is added to every later query once it is
// lowered, with [ir.WithEvidence], and so to the queries of expect
// lines typed in the session; a query that gives an observed variable
// another state, asks about it or conditions on each of its states is an
// error at the variable in the query.
package repl
