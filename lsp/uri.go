//go:build !js

package lsp

import (
	"net/url"
	"path/filepath"
)

// The file: URIs of the protocol are read and written with net/url.
// (They were read by hand until issue 28, to spare every run of pbl the
// initialisation of net/netip, which net/url links: some microseconds
// that no person notices; docs/performance.md "Start-up".)

// uriPath returns the file path of a file: URI, or the URI itself.
//
// The URI is read by url.Parse: the scheme's case does not matter, the
// path is percent-decoded, a query and a fragment are dropped, and a host
// (file://localhost/x, file://h/x) is checked but not part of the path. A
// URI that is not a file: URI, or that Parse refuses (a bad % escape, a
// control character, a bad host), is returned unchanged. A file: URI
// without a path (file:x) gives "".
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

// pathURI returns the file: URI of an absolute path (others unchanged),
// escaped as url.URL.String escapes a path: only ASCII letters and
// digits and -_.~$&+,/:;=@ are kept; other bytes are written %XX.
func pathURI(path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
