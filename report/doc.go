// Package report prints query results: aligned text tables for people and
// the JSON documented in docs/cli.md for programs. The text format is
// deterministic (numbers with 10 significant digits, variables in query or
// declaration order) so that it can serve as a golden file.
package report
