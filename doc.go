// Package pbl is the entry point for using pbl as a library: it chains the
// pipeline (parser → ir → infer) the way cmd/pbl and the REPL use it.
//
//	m, err := pbl.LoadFile("examples/campfire.pbl")
//	a, err := pbl.Ask(m, "P(Campfire | Storm=true)")
//	p, err := a.Prob("Campfire=true")
//
// Answers are read by state names ([Answer.Prob], [Answer.Rows],
// [Answer.Assignment], [Answer.Marginals]); [LearnCSV] learns a model's
// numbers from a CSV file and [Write] writes a model in any format pbl
// writes. docs/api.md walks through the examples.
//
// LoadFile reads a model, choosing the format by the file's extension (in
// upper or lower case; [Formats] lists them): .pbl, the language of
// docs/language.md; .bif and .bif.gz, BIF (gzip recognised by its magic
// bytes); .xml and .xmlbif, XMLBIF 0.3; .net, Hugin NET; and .uai, the UAI
// competition format. A .pbl file gets the one meaning every command gives
// it (docs/cli.md, "One meaning for a file"): its imports are resolved
// relative to the file that names them, its learn statements run, and the
// model is validated.
package pbl
