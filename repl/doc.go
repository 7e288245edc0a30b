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
// The session's model is the loaded file plus the declarations entered so
// far. It is lowered from a generated source named "<stdin>" that holds
// every accepted chunk of input at its own input line (so errors are
// positioned at the line the user typed) and imports the model file. A
// chunk that fails to lower is rejected and the model is unchanged. Chunks
// of only queries leave the model object alone, so the junction tree that
// package infer caches per model is compiled once and only re-calibrated
// as the evidence changes.
//
// # Evidence
//
// Session evidence (`:observe`) is merged into every later query as extra
// conditioning terms; a query that mentions an observed variable with
// another state, or asks about it, is an error that says so.
package repl
