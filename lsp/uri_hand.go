package lsp

import (
	"path/filepath"
	"strings"
)

// uriPathByHand and pathURIByHand are uriPath and pathURI written by
// hand, for the WebAssembly page (uri_js.go): net/url links net/netip,
// 174 KB of the page's module, whose budget (issue 30: 12 MB) the CLG
// engine and decisions used up. The pbl command uses net/url (uri.go,
// issue 28). They give what net/url gives (TestURIByHand compares them),
// except for one deliberate difference: a host that is an IP literal in
// brackets (file://[::1]/x), which net/url checks with net/netip, is
// refused, and uriPathByHand returns the URI itself where net/url's Path
// gives "/x".

// uriPathByHand returns the file path of a file: URI, or the URI itself.
//
// It reads the URI as net/url's Parse does: the scheme's case does not
// matter, the path is percent-decoded, a query and a fragment are
// dropped, and a host (file://localhost/x, file://h/x) is checked but
// not part of the path. A URI that is not a file: URI, or that Parse
// would refuse (a bad % escape, a control character, a bad host), is
// returned unchanged. A file: URI without a path (file:x) gives "".
func uriPathByHand(uri string) string {
	if p, ok := fileURIPath(uri); ok {
		return filepath.FromSlash(p)
	}
	return uri
}

// pathURIByHand returns the file: URI of an absolute path (others unchanged).
//
// The path is escaped as net/url's URL.String escapes a path: only ASCII
// letters and digits and -_.~$&+,/:;=@ are kept; other bytes are written
// %XX with upper-case hex digits.
func pathURIByHand(path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	p := filepath.ToSlash(path)
	n := 0
	for i := 0; i < len(p); i++ {
		if !pathByte(p[i]) {
			n++
		}
	}
	const scheme = "file://"
	b := make([]byte, 0, len(scheme)+len(p)+2*n)
	b = append(b, scheme...)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if pathByte(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upperHex[c>>4], upperHex[c&15])
	}
	return string(b)
}

const upperHex = "0123456789ABCDEF"

// fileURIPath returns the decoded path of a file: URI, and false if uri
// is not one or net/url's Parse would refuse it.
func fileURIPath(uri string) (string, bool) {
	s, frag, _ := strings.Cut(uri, "#")
	if !hasFileScheme(s) {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == 0x7f {
			return "", false
		}
	}
	if !validEscapes(frag) {
		return "", false
	}
	rest, _, _ := strings.Cut(s[len("file:"):], "?")
	if !strings.HasPrefix(rest, "/") {
		return "", true // file:x is opaque: no path
	}
	if strings.HasPrefix(rest, "//") {
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if !validAuthority(authority) {
			return "", false
		}
	}
	if !validEscapes(rest) {
		return "", false
	}
	return unescape(rest), true
}

// hasFileScheme reports whether s begins with "file:" in any case.
func hasFileScheme(s string) bool {
	const want = "file:"
	if len(s) < len(want) {
		return false
	}
	for i := 0; i < len(want); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// validAuthority reports whether net/url would accept a file: URI's
// [userinfo@]host[:port], except that IP literals are refused.
func validAuthority(a string) bool {
	host := a
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		if !validUserinfo(a[:i]) {
			return false
		}
		host = a[i+1:]
	}
	return validHost(host)
}

// validUserinfo reports whether net/url would accept s as userinfo.
func validUserinfo(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !alnum(c) && !strings.ContainsRune("-._:~!$&'()*+,;=%@", rune(c)) {
			return false // also any byte of a non-ASCII rune
		}
	}
	return validEscapes(s)
}

// validHost reports whether net/url would accept host[:port] in a URI
// whose scheme is not http or https, except that IP literals ("[" at the
// start), which it checks with net/netip, are refused.
func validHost(h string) bool {
	if strings.IndexByte(h, '[') >= 0 {
		return false
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		for j := i + 1; j < len(h); j++ {
			if h[j] < '0' || h[j] > '9' {
				return false
			}
		}
	}
	for i := 0; i < len(h); {
		switch c := h[i]; {
		case c == '%':
			// Only non-ASCII bytes, and the %, may be escaped in a host.
			if i+2 >= len(h) || !isHex(h[i+1]) || !isHex(h[i+2]) || h[i+1] < '8' && h[i:i+3] != "%25" {
				return false
			}
			i += 3
		case c >= 0x80 || alnum(c) || strings.ContainsRune("-_.~!$&'()*+,;=:[]<>\"", rune(c)):
			i++
		default:
			return false
		}
	}
	return true
}

// pathByte reports whether net/url leaves c unescaped in a path.
func pathByte(c byte) bool {
	return alnum(c) || strings.ContainsRune("-_.~$&+,/:;=@", rune(c))
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unHex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// validEscapes reports whether every % in s begins %XX, X a hex digit.
func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

// unescape decodes the %XX escapes of s, which validEscapes accepts.
func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, unHex(s[i+1])<<4|unHex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}
