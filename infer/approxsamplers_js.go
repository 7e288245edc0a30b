//go:build js

package infer

// samplerEngines is empty in the WebAssembly page, whose answers are
// auto's (exact, or the cascade): approxsamplers.go has the samplers.
var samplerEngines [0]approxAlg
