package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestURIByHand: the hand-written uriPathByHand and pathURIByHand (the
// WebAssembly page's) give what uriPath and pathURI (net/url's) give, on
// the tables and on random URIs and paths, but for the deliberate
// difference: an IP-literal host, refused by hand.
func TestURIByHand(t *testing.T) {
	check := func(uri string) {
		want := uriPath(uri)
		if strings.Contains(uri, "[") {
			return // an IP literal: the deliberate difference
		}
		if got := uriPathByHand(uri); got != want {
			t.Errorf("uriPathByHand(%q) = %q, net/url's %q", uri, got, want)
		}
	}
	for _, tt := range uriPathTests {
		check(tt.uri)
	}
	for _, tt := range pathURITests {
		if got, want := pathURIByHand(tt.path), pathURI(tt.path); got != want {
			t.Errorf("pathURIByHand(%q) = %q, net/url's %q", tt.path, got, want)
		}
	}
	r := rand.New(rand.NewPCG(5, 5))
	for range 20000 {
		check(randomURI(r))
		p := randomPath(r)
		if got, want := pathURIByHand(p), pathURI(p); got != want {
			t.Errorf("pathURIByHand(%q) = %q, net/url's %q", p, got, want)
		}
	}
}
