//go:build js

package lsp

// In the WebAssembly page, file: URIs are read and written by hand
// (uri_hand.go), keeping net/url and net/netip out of its module.

func uriPath(uri string) string { return uriPathByHand(uri) }

func pathURI(path string) string { return pathURIByHand(path) }
