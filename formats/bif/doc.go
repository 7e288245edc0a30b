// Package bif reads Bayesian networks in BIF, the Bayesian Interchange
// Format used by the bnlearn repository (and written by pgmpy and
// JavaBayes), into an [ir.Model], and writes models back. [Read] and
// [ReadFile] are the reader's entry points; input compressed with gzip is
// recognised by its magic bytes. [Write] writes a Bayesian network in the
// corpus's layout, keeping every probability bit for bit.
//
// # Dialect
//
// A file is an optional network block followed by variable and
// probability blocks:
//
//	network asia {
//	  property author = someone;
//	}
//	variable smoke {
//	  type discrete [ 2 ] { yes, no };
//	  property position = (10, 20);
//	}
//	probability ( smoke ) {
//	  table 0.5, 0.5;
//	}
//	probability ( lung | smoke ) {
//	  (yes) 0.1, 0.9;
//	  (no) 0.01, 0.99;
//	}
//
// Lexical structure:
//
//   - White space separates tokens; comments are // to the end of the line
//     and /* ... */ (not nested).
//   - The punctuation is { } ( ) [ ] , ; and |. Every other run of
//     characters is one word: a keyword, a name or a number. Names may thus
//     contain characters such as - . + < > = / (bnlearn's child.bif has the
//     states <5, 5-12, 12+, <7.5, >=7.5 and Asy/Patch), and may begin with a
//     digit (link.bif has the states 1_1 and 2). A word ends where a
//     comment begins.
//   - A name may also be written in double quotes ("light-on"), as
//     JavaBayes does, with \" and \\ as escapes.
//   - Keywords (network, variable, probability, type, discrete, property,
//     table, default) are lower case and are keywords only where the
//     grammar expects one: a state may be called "table".
//   - Numbers are decimal with an optional sign, fraction and exponent
//     (1, 0.25, .5, 1e-05, 0.000000e+00); inf, nan and hexadecimal are
//     rejected.
//   - Commas between states, parents and values may be left out, as in
//     BIF 0.15 (`{ "true" "false" }`), and the "|" after the child is
//     optional (`probability ( "light-on" "family-out" )`).
//
// Blocks:
//
//   - The network block's name and properties are skipped.
//   - A variable block must have one `type discrete [ n ] { s1, ... };`
//     whose count n matches the states listed; `property ...;` statements
//     are skipped. Variables must be declared before the probability
//     blocks that use them, as BIF requires.
//   - A probability block names the child, then its parents. Its body
//     holds rows `(a, b) p1, ..., pk;` giving the parents' states by name,
//     in any order of rows; a `default p1, ..., pk;` row for every parent
//     configuration without a row of its own; or a `table` with every
//     value. Every parent configuration needs exactly one row (or the
//     default), and every variable exactly one probability block.
//
// # Table layout
//
// With no parents `table` lists P(x) in state order. With parents it lists
// the values with the child varying slowest and the parents after it in
// row-major order, the last parent fastest (the layout of JavaBayes' BIF
// and of pgmpy's reader, which reshapes the list to child × parent
// configurations). For P(X | A) with binary X and A:
//
//	table P(x0|a0), P(x0|a1), P(x1|a0), P(x1|a1);
//
// This is the transpose of the ir layout (parents..., child), child
// fastest, into which the reader converts it. No network of the bnlearn
// repository uses `table` with parents: they all write rows.
//
// # Errors
//
// Every error is an [ir.Error] in an [ir.ErrorList], positioned at the
// offending token: unknown variables and states (with a "did you mean"
// hint), rows with the wrong number of states or probabilities, missing
// and duplicate rows, state counts that do not match the list, malformed
// numbers, unexpected tokens, unterminated comments and strings, and
// truncated files. After a syntax error the reader skips to the end of the
// statement or to the next block and goes on, so that it reports every
// error it can. The model is then validated by [ir.Builder.Finish]:
// probabilities in [0, 1], rows summing to 1 within [ir.RowTolerance],
// and no cycles.
package bif
