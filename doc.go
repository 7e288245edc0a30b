// Package pbl is the entry point for using pbl as a library: it chains the
// pipeline (parser → ir → infer) the way cmd/pbl and the REPL use it.
//
//	m, err := pbl.LoadFile("examples/campfire.pbl")
//	q, err := pbl.ParseQuery(m, "P(Campfire | Storm=true)")
//	res, err := infer.Answer(m, q, infer.Options{})
//
// LoadFile reads .pbl files (resolving their imports) and the formats of
// other tools by extension: .bif and .bif.gz.
package pbl
