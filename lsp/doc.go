// Package lsp is pbl's language server: the Language Server Protocol over
// a byte stream (stdio for `pbl lsp`), with JSON-RPC 2.0 messages framed by
// Content-Length headers.
//
// It keeps the text of every open .pbl document and, on every change,
// loads it the way every command does (pbl.Load: imports resolved from the
// document's directory, learn statements run) to publish its diagnostics —
// every error `pbl check` reports, with its range (an imported file's on
// the import, a data file's on the statement naming it), at most
// maxDiagnostics (100), the last saying how many more. Changes that
// arrive together, typed while the server was busy, are loaded once, at
// the last. A learn statement that runs longer than learnTimeout (2 s) —
// its iterative method (em, gradient), or the reading of its data file —
// is stopped and reported at the statement, for pbl check or pbl learn to
// run; a distribution whose table would bring the model's tables to more
// entries than pbl's --max-table default (infer.DefaultMaxTable) is
// reported rather than computed. The other features work
// on a file with errors too, the usual state of a file being edited:
//
//   - completion: keywords, query forms, variable names, and a variable's
//     states after "X=" (names from the text's model; with errors, from
//     the model of the text without the statements that have them
//     (partialModel), else the last model that loaded, and the
//     document's var declarations);
//   - hover: a variable's states, parents and table (from the same
//     model); on a query statement, its answer, if found within
//     hoverTimeout (2 s): computed on another goroutine, cancelled at the
//     limit, so that the reply comes then and the work stops soon after;
//   - go to definition: a variable's declaration, across imports;
//   - document symbols: the variables, data sets, spaces and mixtures
//     declared, found by scanning the tokens, so they survive errors;
//   - formatting: the canonical layout of package format (`pbl fmt`).
//
// The server is synchronous: it answers each request before reading the
// next. Positions follow LSP: zero-based lines, and characters counted in
// UTF-16 code units.
package lsp
