// Package serve is the page of pbl serve: a model's graph with a belief
// bar per state, live evidence, the model's statements with their answers
// and a source editor, over a JSON API whose every number comes from pbl's
// own engines (package infer, through the root package pbl).
//
// # Layers
//
// A [Session] holds one model: its file, its source, the loaded model and
// the language server that diagnoses its source. Its methods take and
// return the API's JSON values ([Graph], [Beliefs], …) and know nothing of
// HTTP, so that the same code answers the page in the browser alone, where
// cmd/pbl-wasm calls [Session.Call] from JavaScript.
//
// A [Server] is the local web server of pbl serve: the embedded page
// (assets/, built from web/ by esbuild, go:embed) and the API under /api/,
// behind the checks of the security model (security.go): a random token in
// every request, the Host header one of the loopback names (DNS
// rebinding), a same-origin Origin, bounded bodies, and no file read or
// written but the opened model and the files it imports (files.go).
//
// # Evidence
//
// The page sends its evidence as a list of findings, each a variable, a
// state and whether it is observed or set (do). After a source edit, the
// findings whose variable and state still exist are kept (Session.Open
// returns them). Beliefs are P(* | e) answered by infer.Answer on a
// query built through the ir API (never by text), P(e) likewise; the
// query line the page shows is the text of the same question, which
// pbl.ParseQuery reads back to the same query (tested).
package serve
