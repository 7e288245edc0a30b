// Package repl will hold pbl's interactive session. It is empty until the
// REPL issue lands.
package repl
