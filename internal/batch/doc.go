// Package batch scores the rows of a CSV file one by one: the predictions
// of a classifier (the CSV that pbl classify --predictions writes) and the
// answers of queries given each row's cells as evidence (the JSON Lines
// that pbl query --batch writes). It is shared by the local command and
// the Beam runner (cmd/pbl-beam), so that the two write the same bytes for
// the same rows; so are the scores of a classifier, in text and JSON
// (ScoresText, ScoresJSON).
//
// # Query batches
//
// A row's evidence is its non-missing cells: a discrete cell observes its
// variable's state, a real cell its value. Each query is answered given
// that evidence added to its own (ir.WithRowEvidence and
// WithRowRealEvidence, as the REPL adds a session's observations), and the
// row's output is one line of JSON:
//
//	{"row":1,"answers":[ANSWER,...]}
//
// where each ANSWER is the object pbl query --json prints for that query,
// or {"error":"message"} when the query has no answer given the row (its
// evidence impossible, or contradicting the query's own). Rows are
// numbered from 1 in their file.
package batch
