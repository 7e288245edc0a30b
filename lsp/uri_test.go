package lsp

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

var uriPathTests = []struct {
	uri, want string
}{
	{"file:///home/a/m.pbl", "/home/a/m.pbl"},
	{"file:///", "/"},
	{"file://localhost/home/a/m.pbl", "/home/a/m.pbl"},
	{"file://LocalHost/x", "/x"},
	{"file://server/share/x", "/share/x"}, // the host is dropped, as net/url's Path drops it
	{"file://u:p@h:8080/x", "/x"},         // userinfo and port
	{"file://h:/x", "/x"},                 // an empty port
	{"file://h/", "/"},                    //
	{"file://h", ""},                      // a host and no path
	{"file:////x/y", "//x/y"},             // an empty host, then the path //x/y
	{"FILE:///x", "/x"},                   // the scheme's case does not matter
	{"File:///x", "/x"},                   //
	{"file:///a%20b/%3A/c%C3%A9.pbl", "/a b/:/cé.pbl"},
	{"file:///c%3A/x", "/c:/x"},            // a Windows drive, as VS Code writes it
	{"file:///C:/x", "/C:/x"},              //
	{"file:///a%2Fb", "/a/b"},              // an escaped slash is a slash
	{"file:///a%25b", "/a%b"},              //
	{"file:///a+b", "/a+b"},                // no + for space in a path
	{"file:///a%00b", "/a\x00b"},           // an escaped NUL is decoded
	{"file:///é/日本", "/é/日本"},              // raw non-ASCII is kept
	{"file:///a?q=1", "/a"},                // the query is dropped
	{"file:///a?", "/a"},                   //
	{"file:///a?b?", "/a"},                 //
	{"file:///a#frag", "/a"},               // so is the fragment
	{"file:///a#%41", "/a"},                //
	{"file:///a#\x01", "/a"},               // a control byte in the fragment is let through
	{"file:///a?%zz", "/a"},                // the query is not decoded
	{"file:x", ""},                         // opaque: no path
	{"file:", ""},                          //
	{"file:?x", ""},                        //
	{"file:///a%", "file:///a%"},           // bad escapes: the URI itself
	{"file:///a%2", "file:///a%2"},         //
	{"file:///a%zz", "file:///a%zz"},       //
	{"file:///a#%", "file:///a#%"},         // also in the fragment
	{"file:x#%g0", "file:x#%g0"},           //
	{"file:///a\x00b", "file:///a\x00b"},   // control bytes: the URI itself
	{"file:///a\nb", "file:///a\nb"},       //
	{"file:///a\x7fb", "file:///a\x7fb"},   //
	{"file://h%20/x", "file://h%20/x"},     // only non-ASCII may be escaped in a host
	{"file://h%25/x", "/x"},                // ... and %
	{"file://h%C3%A9/x", "/x"},             //
	{"file://é/x", "/x"},                   //
	{"file://h /x", "file://h /x"},         // a space in a host
	{"file://h:8a/x", "file://h:8a/x"},     // a bad port
	{"file://a:1:2/x", "/x"},               // only the last colon starts the port (not http)
	{"file://a[b/x", "file://a[b/x"},       // a bracket inside a host
	{"file://[::1]/x", "/x"},               // IP literals, checked by net/url
	{"file://[::1]:80/x", "/x"},            //
	{"file://[::1/x", "file://[::1/x"},     // an unclosed bracket
	{"file://[zz]/x", "file://[zz]/x"},     // not an IP address
	{"file://u@v@h/x", "/x"},               // the last @ ends the userinfo
	{"file://u%zz@h/x", "file://u%zz@h/x"}, // a bad escape in the userinfo
	{"file://ü@h/x", "file://ü@h/x"},       // non-ASCII in the userinfo
	{"file://u/v@h/x", "/v@h/x"},           // the authority ends at the first /
	{"untitled:Untitled-1", "untitled:Untitled-1"},
	{"http://h/x", "http://h/x"},
	{"files:///x", "files:///x"},
	{"fil:///x", "fil:///x"},
	{"/home/a/m.pbl", "/home/a/m.pbl"},
	{"", ""},
	{"*", "*"},
}

var pathURITests = []struct {
	path, want string
}{
	{"/home/a/m.pbl", "file:///home/a/m.pbl"},
	{"/", "file:///"},
	{"//x/y", "file:////x/y"},
	{"/a b/c", "file:///a%20b/c"},
	{"/a?b#c%d", "file:///a%3Fb%23c%25d"},
	{"/é", "file:///%C3%A9"},
	{"/C:/x", "file:///C:/x"},
	{"/a:b;c=d@e&f+g$h,i~j_k-l.m", "file:///a:b;c=d@e&f+g$h,i~j_k-l.m"},
	{"/!'()*[]<>\"{}|\\^`", "file:///%21%27%28%29%2A%5B%5D%3C%3E%22%7B%7D%7C%5C%5E%60"},
	{"/\x00\x1f\x7f\xff", "file:///%00%1F%7F%FF"},
	{"m.pbl", "m.pbl"}, // relative paths are not changed
	{"", ""},
	{"untitled:x", "untitled:x"},
}

func TestURIPath(t *testing.T) {
	for _, tt := range uriPathTests {
		if got := uriPath(tt.uri); got != tt.want {
			t.Errorf("uriPath(%q) = %q, want %q", tt.uri, got, tt.want)
		}
	}
	// IP literals: refused by the hand-written parser before issue 28.
	for _, uri := range []string{"file://[::1]/x", "file://[fe80::1%25en0]:80/x"} {
		if got := uriPath(uri); got != "/x" {
			t.Errorf("uriPath(%q) = %q, want /x", uri, got)
		}
	}
}

func TestPathURI(t *testing.T) {
	for _, tt := range pathURITests {
		if got := pathURI(tt.path); got != tt.want {
			t.Errorf("pathURI(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// uriPieces are the pieces that random URIs are made of.
var uriPieces = []string{
	"file:", "FILE:", "File:", "file://", "file:///", "//", "/", "localhost", "u:p@", "@", ":", ":80",
	"[", "]", "[::1]", "%", "%2", "%20", "%25", "%3A", "%3a", "%2F", "%C3%A9", "%e9", "%zz", "%41",
	"%7f", "%80", " ", "é", "日", "\xff", "?", "#", ";", "=", "&", "+", "~", "!", "'", "\"", "<",
	"a", "Z", "0", "9", ".", "..", "-", "_", "\x00", "\n", "\x7f", "http:", "untitled:",
}

// randomURI returns a URI made of random pieces, mostly a file: URI.
func randomURI(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(6) {
	case 0:
	case 1:
		b.WriteString("file://")
	default:
		b.WriteString([]string{"file:", "FILE:", "fIlE:"}[r.IntN(3)])
		b.WriteString([]string{"", "/", "//", "///", "//localhost/", "//h:1/", "//u@h/"}[r.IntN(7)])
	}
	for n := r.IntN(12); n > 0; n-- {
		if r.IntN(8) == 0 {
			b.WriteRune(rune(r.IntN(0x800))) // any rune, control bytes included
			continue
		}
		b.WriteString(uriPieces[r.IntN(len(uriPieces))])
	}
	return b.String()
}

// randomPath returns an absolute path of random bytes and runes.
func randomPath(r *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('/')
	for n := r.IntN(16); n > 0; n-- {
		switch r.IntN(4) {
		case 0:
			b.WriteByte(byte(r.IntN(256)))
		case 1:
			b.WriteRune(rune(r.IntN(0x3000)))
		default:
			b.WriteByte(" %?#;@:/=&+$,!'()*[]~-_.aZ9\\"[r.IntN(28)])
		}
	}
	return b.String()
}

// TestURIRoundTrip: on many random absolute paths, uriPath gives back
// the path pathURI wrote, and pathURI escapes every byte but those a path
// may hold as they are; on many random URIs, uriPath gives either a path
// or the URI itself, and both outcomes are common among them.
func TestURIRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	paths, refused := 0, 0
	for range n {
		uri := randomURI(r)
		if uriPath(uri) == uri {
			refused++
		} else {
			paths++
		}
		checkPath(t, randomPath(r))
	}
	if paths < n/5 || refused < n/5 {
		t.Errorf("of %d random URIs, %d gave a path and %d the URI itself: want at least %d of each", n, paths, refused, n/5)
	}
}

// checkPath requires pathURI(p), for an absolute p, to be "file://"
// followed by p with every byte but ASCII letters and digits and
// -_.~$&+,/:;=@ written %XX, and uriPath to give p back.
func checkPath(t *testing.T, p string) {
	t.Helper()
	uri := pathURI(p)
	if !filepath.IsAbs(p) {
		if uri != p {
			t.Fatalf("pathURI(%q) = %q, want the relative path unchanged", p, uri)
		}
		return
	}
	var want strings.Builder
	want.WriteString("file://")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~$&+,/:;=@", c) >= 0 {
			want.WriteByte(c)
		} else {
			fmt.Fprintf(&want, "%%%02X", c)
		}
	}
	if uri != want.String() {
		t.Fatalf("pathURI(%q) = %q, want %q", p, uri, want.String())
	}
	{
		if back := uriPath(uri); back != p {
			t.Fatalf("uriPath(pathURI(%q)) = uriPath(%q) = %q", p, uri, back)
		}
	}
}

func FuzzURI(f *testing.F) {
	for _, tt := range uriPathTests {
		f.Add(tt.uri)
	}
	for _, tt := range pathURITests {
		f.Add(tt.path)
	}
	f.Fuzz(func(t *testing.T, s string) {
		uriPath(s) // must not panic
		checkPath(t, s)
	})
}
