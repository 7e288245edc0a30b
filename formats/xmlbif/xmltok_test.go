package xmlbif

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
	"github.com/pbl-lang/pbl/ir"
)

// stdTokens tokenizes src with encoding/xml's Decoder.RawToken directly:
// one line per token, and the error (or EOF) with the offset where it was
// noticed. The tests below compare the reader's tokenizer (xmltok.go,
// which hands encoding/xml's tokens and errors to the reader as its own
// types) with it: nothing may be lost or changed on the way.
func stdTokens(src []byte) []string {
	d := xml.NewDecoder(bytes.NewReader(src))
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if err := checkCharset(label); err != nil {
			return nil, err
		}
		return in, nil
	}
	var out []string
	for {
		tok, err := d.RawToken()
		if err != nil {
			return append(out, describeErr(err, int(d.InputOffset())))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var attrs []xmlAttr
			for _, a := range t.Attr {
				attrs = append(attrs, xmlAttr{xmlName{a.Name.Space, a.Name.Local}, a.Value})
			}
			out = append(out, describeStart(xmlName{t.Name.Space, t.Name.Local}, attrs))
		case xml.EndElement:
			out = append(out, fmt.Sprintf("end %q %q", t.Name.Space, t.Name.Local))
		case xml.CharData:
			out = append(out, fmt.Sprintf("text %q", t))
		case xml.Comment:
			out = append(out, fmt.Sprintf("comment %q", t))
		case xml.ProcInst:
			out = append(out, fmt.Sprintf("procinst %q %q", t.Target, t.Inst))
		case xml.Directive:
			out = append(out, fmt.Sprintf("directive %q", t))
		default:
			out = append(out, fmt.Sprintf("unknown %T", t))
		}
	}
}

// ourTokens is stdTokens with the reader's tokenizer.
func ourTokens(src []byte) []string {
	tz := newTokenizer(src, checkCharset)
	var out []string
	for {
		tok, err := tz.next()
		if err != nil {
			return append(out, describeErr(err, tz.offset()))
		}
		switch t := tok.(type) {
		case startTag:
			out = append(out, describeStart(t.Name, t.Attr))
		case endTag:
			out = append(out, fmt.Sprintf("end %q %q", t.Name.Space, t.Name.Local))
		case charData:
			out = append(out, fmt.Sprintf("text %q", []byte(t)))
		case comment:
			out = append(out, fmt.Sprintf("comment %q", []byte(t)))
		case procInst:
			out = append(out, fmt.Sprintf("procinst %q %q", t.Target, t.Inst))
		case directive:
			out = append(out, fmt.Sprintf("directive %q", []byte(t)))
		default:
			out = append(out, fmt.Sprintf("unknown %T", t))
		}
	}
}

func describeStart(n xmlName, attrs []xmlAttr) string {
	s := fmt.Sprintf("start %q %q", n.Space, n.Local)
	for _, a := range attrs {
		s += fmt.Sprintf(" %q:%q=%q", a.Name.Space, a.Name.Local, a.Value)
	}
	return s
}

// describeErr renders an error the way the reader tells them apart:
// syntax errors (both tokenizers' types), unsupported encodings, others.
func describeErr(err error, off int) string {
	var se *xml.SyntaxError
	var ose *xmlSyntaxError
	var ce *charsetError
	msg := ""
	switch {
	case err == io.EOF:
		return fmt.Sprintf("EOF at %d", off)
	case errors.As(err, &ce):
		return fmt.Sprintf("charset error %q", ce.msg) // positioned at the token by the reader
	case errors.As(err, &se):
		msg = se.Msg
	case errors.As(err, &ose):
		msg = ose.msg
	default:
		return fmt.Sprintf("error %q at %d", err.Error(), off)
	}
	return fmt.Sprintf("syntax error %q at %d", msg, off)
}

// compareTokenizers returns "" if both tokenizers agree on src, or what
// differs.
func compareTokenizers(src []byte) string {
	want, got := stdTokens(src), ourTokens(src)
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("token %d: got %s, want (encoding/xml) %s", i, g, w)
		}
	}
	return ""
}

// tokenizerCases are hand-written documents, well formed or not; err says
// whether encoding/xml refuses them (so that both kinds are tested).
var tokenizerCases = []struct {
	name, src string
	err       bool
}{
	{"empty", "", false},
	{"text only", "hello", false},
	{"nested", "<a><b>x</b><c/></a>", false},
	{"attributes, both quotes", `<a x="1" y='2' p:z = "a'b" w='a"b'/>`, false},
	{"attributes without space", `<a x="1"y="2"/>`, false},
	{"attribute with entities and newlines", "<a x=\"&lt;&#x41;&#66;\r\n\t\"/>", false},
	{"entities", "<a>&lt;&gt;&amp;&apos;&quot;&#38;&#x26;&#X26</a>", true},
	{"predefined entities", "<a>&lt;&gt;&amp;&apos;&quot;&#38;&#x26;&#x1F600;</a>", false},
	{"surrogate reference", "<a>&#xD800;</a>", false},
	{"reference to NUL", "<a>&#0;</a>", true},
	{"huge reference", "<a>&#99999999999999999999;</a>", true},
	{"reference beyond Unicode", "<a>&#x110000;</a>", true},
	{"empty reference", "<a>&#;</a>", true},
	{"unknown entity", "<a>&unknown;</a>", true},
	{"entity without semicolon", "<a>&amp b</a>", true},
	{"bare ampersand", "<a>a & b</a>", true},
	{"ampersand semicolon", "<a>&;</a>", true},
	{"entity at EOF", "<a>&am", true},
	{"CDATA", "<a><![CDATA[<x> & ]] ]> \r\n]]></a>", false},
	{"empty CDATA", "<a><![CDATA[]]></a>", false},
	{"unterminated CDATA", "<a><![CDATA[abc", true},
	{"bad CDATA opening", "<a><![CDATX[abc]]></a>", true},
	{"]]> in text", "<a>x]]>y</a>", true},
	{"]]> in attribute", `<a x="]]>"/>`, false},
	{"comments", "<!-- c1 --><a><!----><!-- - --></a>", false},
	{"-- in comment", "<!-- a -- b -->", true},
	{"<!- not a comment", "<!-a>", true},
	{"unterminated comment", "<!-- abc --", true},
	{"XML declaration", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><a/>`, false},
	{"declaration, Latin-1", `<?xml version='1.0' encoding='ISO-8859-1'?><a/>`, false},
	{"declaration, US-ASCII", `<?xml version="1.0" encoding="US-ASCII"?><a/>`, false},
	{"declaration, unsupported encoding", `<?xml version="1.0" encoding="UTF-16"?><a/>`, true},
	{"declaration, version 1.1", `<?xml version="1.1"?><a/>`, true},
	{"declaration without space", `<?xml version="1.0"encoding="utf8"?><a/>`, false},
	{"processing instruction", "<?target some data ? > ?><?x?><a/>", false},
	{"processing instruction without target", "<? x?>", true},
	{"unterminated processing instruction", "<?x abc ?", true},
	{"DOCTYPE", `<!DOCTYPE BIF [ <!ELEMENT BIF ( NETWORK )*> <!ATTLIST BIF x CDATA "a>b"> <!-- a <comment> --> ]><BIF/>`, false},
	{"DOCTYPE with stray <", "<!DOCTYPE x <> <!-x>><a/>", false},
	{"unterminated DOCTYPE", "<!DOCTYPE x [ <!ELEMENT a>", true},
	{"line ends", "<a>1\r\n2\r3\n\r\n4\r</a>", false},
	{"text and tag names with colons", "<p:a q:x='1'><p:b/></p:a><:c/><d:/>", false},
	{"two colons", "<a:b:c/>", true},
	{"non-ASCII names", "<café état='1'>x</café>", false},
	{"name starting with a digit", "<1a/>", true},
	{"name starting with a dot", "<.a/>", true},
	{"invalid UTF-8 in a name", "<a\xff/>", true},
	{"invalid UTF-8 in text", "<a>x\xffy</a>", true},
	{"invalid UTF-8 in an attribute", "<a b='\xff'/>", true},
	{"control character in text", "<a>x\x01y</a>", true},
	{"control character in a tag", "<a\x01/>", true},
	{"U+FFFE in text", "<a>\uFFFE</a>", true},
	{"U+FFFD in text", "<a>\uFFFD</a>", false},
	{"unquoted attribute", "<a b=1/>", true},
	{"attribute without value", "<a b/>", true},
	{"attribute without name", "<a ='1'/>", true},
	{"< in attribute", "<a b='<'/>", true},
	{"attribute at EOF", "<a b='x", true},
	{"bad self-closing", "<a/ >", true},
	{"end tag with space", "</a >", false},
	{"end tag with junk", "</a b>", true},
	{"end tag without name", "</>", true},
	{"start tag without name", "< a/>", true},
	{"lone <", "<", true},
	{"tag at EOF", "<abc", true},
	{"end tag at EOF", "</abc", true},
	{"unmatched tags (not checked)", "<a></b></c>", false},
	{"text after the root", "<a/>tail", false},
}

// TestTokenizer compares the tokenizer with encoding/xml on hand-written
// documents, in which the tokens and errors must agree.
func TestTokenizer(t *testing.T) {
	for _, tc := range tokenizerCases {
		t.Run(tc.name, func(t *testing.T) {
			std := stdTokens([]byte(tc.src))
			if last := std[len(std)-1]; strings.HasPrefix(last, "EOF") == tc.err {
				t.Fatalf("encoding/xml ends with %s, want an error: %v", last, tc.err)
			}
			if d := compareTokenizers([]byte(tc.src)); d != "" {
				t.Errorf("%q: %s", tc.src, d)
			}
		})
	}
}

// TestTokenizerCorpus compares the tokenizer with encoding/xml on the XMLBIF
// files of the corpus and of testdata, and on each chunk of annotated
// files.
func TestTokenizerCorpus(t *testing.T) {
	files := formattest.Files(formattest.CorpusPath("xmlbif", "*.xml"), "testdata/*.xml")
	if len(files) == 0 {
		t.Fatal("no files")
	}
	n := 0
	for _, src := range files {
		for _, c := range append([][]byte{src}, bytes.Split(src, []byte("\n---\n"))...) {
			n++
			if d := compareTokenizers(c); d != "" {
				t.Errorf("document of %d bytes beginning %q: %s", len(c), c[:min(len(c), 60)], d)
			}
		}
	}
	t.Logf("%d documents", n)
}

// fragments are the pieces of the documents TestTokenizerGenerated makes.
var fragments = []string{
	"<a>", "</a>", "<b x='1'>", "</b>", "<c/>", "<p:d y=\"2\" z='&amp;'>", "</p:d>", "<e:f:g>",
	"text", " ", "\n", "\r\n", "\r", "\t", "é", "😀", "\x01", "\xff", "\uFFFE",
	"&amp;", "&lt;", "&#65;", "&#x42;", "&#xD800;", "&#0;", "&bogus;", "&", ";", "#", "x",
	"<![CDATA[", "]]>", "]", "<!--", "-->", "--", "-", "<!DOCTYPE r [", "<!ELEMENT a ANY>", "<!",
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?pi data?>", "<?", "?>", "?",
	"<", ">", "/>", "/", "=", "'", "\"", "<a", " b=", "'v'", "\"w\"", "<1", "</", "< ",
}

// TestTokenizerGenerated compares the tokenizer with encoding/xml on
// random concatenations of fragments, most of them malformed.
func TestTokenizerGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	accepted := 0
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := rng.Intn(12) + 1; k > 0; k-- {
			b.WriteString(fragments[rng.Intn(len(fragments))])
		}
		src := []byte(b.String())
		if d := compareTokenizers(src); d != "" {
			t.Fatalf("%q: %s", src, d)
		}
		if std := stdTokens(src); strings.HasPrefix(std[len(std)-1], "EOF") {
			accepted++
		}
	}
	if accepted == 0 || accepted == n {
		t.Errorf("%d of %d documents accepted: the generator tests only one side", accepted, n)
	}
	t.Logf("%d of %d documents well formed for encoding/xml", accepted, n)
}

// TestNonASCIINames: names are encoding/xml's, whose tables (XML 1.0's
// appendix B) are narrower than the fifth edition's, which the package's
// own tokenizer followed until issue 28. A name it refuses is malformed
// XML, positioned where the decoder noticed it.
func TestNonASCIINames(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"<BIF><a😀/></BIF>", "x.xml:1:9: malformed XML: invalid XML name: a😀"},
		{"<BIF>\n<\u2070/></BIF>", "x.xml:2:3: malformed XML: invalid XML name: \u2070"},
		{"<BIF><café/></BIF>", ""}, // in appendix B: read, and ignored as an unknown element
	} {
		_, err := Read("x.xml", []byte(tc.src))
		var el ir.ErrorList
		switch {
		case tc.want == "":
			if errors.As(err, &el) {
				for _, e := range el {
					if strings.Contains(e.Msg, "malformed XML") {
						t.Errorf("%q: %v, want no malformed XML", tc.src, e)
					}
				}
			}
		case !errors.As(err, &el) || len(el) == 0 || el[0].Error() != tc.want:
			t.Errorf("%q: got %v, want %s", tc.src, err, tc.want)
		}
	}
}

// FuzzTokenizer compares the tokenizer with encoding/xml.
func FuzzTokenizer(f *testing.F) {
	for _, tc := range tokenizerCases {
		f.Add([]byte(tc.src))
	}
	for _, src := range formattest.Files(formattest.CorpusPath("xmlbif", "asia.xml"), "testdata/*.xml") {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if d := compareTokenizers(src); d != "" {
			t.Errorf("%q: %s", src, d)
		}
	})
}

// declRx is the regular expression the reader used to find the encoding of
// the XML declaration before declEncoding.
var declRx = regexp.MustCompile(`^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']`)

func regexpEncoding(src []byte) (string, bool) {
	m := declRx.FindSubmatch(src[:min(len(src), 200)])
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// TestDeclEncoding compares declEncoding with the regular expression it
// replaces, on hand-written and random declarations.
func TestDeclEncoding(t *testing.T) {
	cases := []string{
		`<?xml version="1.0" encoding="ISO-8859-1"?>`,
		" \f\r\n\t<?xml encoding = 'latin1' ?>",
		`<?xml encoding="a'`,
		`<?xml version="1.0"?><a encoding="x"/>`,
		`<?xml version="1.0" encodings="x" encoding="y"?>`,
		`<?xml encoding="x`,
		`<?xml encoding=x encoding="y"?>`,
		"\uFEFF<?xml encoding='latin1'?>",
		`<?xmlencoding="x"?>`,
		`<a/><?xml encoding="x"?>`,
		`<?xml` + strings.Repeat(" ", 180) + `encoding="ISO-8859-1"?>`,
		"",
	}
	pieces := []string{"<?xml", " ", "\f", "\v", "encoding", "=", "\"", "'", "latin1", ">", "?", "x", "\xff", "é"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		if rng.Intn(4) > 0 {
			b.WriteString("<?xml")
		}
		for k := rng.Intn(10); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	found := 0
	for _, c := range cases {
		wv, wok := regexpEncoding([]byte(c))
		gv, gok := declEncoding([]byte(c))
		if gv != wv || gok != wok {
			t.Fatalf("%q: got %q %v, want (regexp) %q %v", c, gv, gok, wv, wok)
		}
		if wok {
			found++
		}
	}
	if found == 0 || found == len(cases) {
		t.Errorf("an encoding in %d of %d cases: one side untested", found, len(cases))
	}
}
