package xmlbif

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/internal/xmltext"
)

// This file is a small XML tokenizer for the reader, in place of
// encoding/xml, whose package init builds a map of 250 HTML entities on
// every start of pbl (issue 16). It reads a document held in memory and
// behaves as encoding/xml's Decoder.RawToken in strict mode: the same
// tokens, the same errors (messages and the offsets where they are
// noticed), so that the reader reports malformed XML as it did. The
// differences, which TestTokenizerDifferences pins down, are:
//
//   - Names (of elements, attributes, processing instructions, entity
//     references) may hold the non-ASCII characters of the NameStartChar
//     and NameChar productions of XML 1.0, fifth edition; encoding/xml
//     uses the older, narrower tables of XML 1.0's appendix B (it refuses
//     <a😀/>, for instance, which the fifth edition allows).
//   - The encoding of an XML declaration is checked by a function that
//     returns an error (charset), not by opening a reader: the input is
//     already UTF-8 when tokenizing starts.

// xmlName is the name of an element or attribute: Space is the prefix
// before a colon, if any (no namespace is resolved).
type xmlName struct{ Space, Local string }

// xmlAttr is an attribute, with its value decoded.
type xmlAttr struct {
	Name  xmlName
	Value string
}

// The tokens: the reader switches on their types.
type (
	startTag struct {
		Name xmlName
		Attr []xmlAttr
	}
	endTag    struct{ Name xmlName }
	charData  []byte // decoded text or CDATA; valid until the next token
	comment   []byte
	procInst  struct{ Target, Inst string }
	directive []byte // <!DOCTYPE ...> and the like, without <! and >
)

// xmlSyntaxError is malformed XML, noticed at the tokenizer's offset.
type xmlSyntaxError struct{ msg string }

func (e *xmlSyntaxError) Error() string { return e.msg }

// xmlVersionError is an XML declaration of a version other than 1.0.
type xmlVersionError struct{ version string }

func (e *xmlVersionError) Error() string {
	return fmt.Sprintf("xml: unsupported version %q; only version 1.0 is supported", e.version)
}

// tokenizer splits an XML document into tokens.
type tokenizer struct {
	in  []byte
	off int // of the next byte to read
	err error

	needClose bool // the last start tag was self-closing: its end tag is next
	toClose   xmlName

	buf []byte // decoded text

	// charset checks the encoding named by an XML declaration, unless it
	// is UTF-8; an error it returns stops the tokenizer.
	charset func(label string) error
}

func newTokenizer(in []byte, charset func(string) error) *tokenizer {
	return &tokenizer{in: in, charset: charset}
}

// offset returns the offset of the end of the last token, where the next
// one begins; after an error, where the error was noticed.
func (t *tokenizer) offset() int { return t.off }

func (t *tokenizer) fail(msg string) error {
	t.err = &xmlSyntaxError{msg}
	return t.err
}

// expected returns the error of a name that is not where msg says one
// must be: the error name or nsname found (an invalid name, the end of
// the input), else msg.
func (t *tokenizer) expected(msg string) error {
	if t.err == nil {
		t.fail(msg)
	}
	return t.err
}

// getc returns the next byte; at the end of the input it fails with
// "unexpected EOF".
func (t *tokenizer) getc() (byte, bool) {
	if t.off >= len(t.in) {
		t.fail("unexpected EOF")
		return 0, false
	}
	b := t.in[t.off]
	t.off++
	return b, true
}

func (t *tokenizer) space() {
	for t.off < len(t.in) && isSpace(t.in[t.off]) {
		t.off++
	}
}

// next returns the next token, or io.EOF at the end of the input. An error
// is returned again by every later call.
func (t *tokenizer) next() (any, error) {
	if t.err != nil {
		return nil, t.err
	}
	if t.needClose {
		t.needClose = false
		return endTag{t.toClose}, nil
	}
	if t.off >= len(t.in) {
		t.err = io.EOF
		return nil, t.err
	}
	if t.in[t.off] != '<' {
		data, ok := t.text(0, false)
		if !ok {
			return nil, t.err
		}
		return charData(data), nil
	}
	t.off++
	b, ok := t.getc()
	if !ok {
		return nil, t.err
	}
	switch b {
	case '/':
		name, ok := t.nsname()
		if !ok {
			return nil, t.expected("expected element name after </")
		}
		t.space()
		if b, ok = t.getc(); !ok {
			return nil, t.err
		}
		if b != '>' {
			return nil, t.fail("invalid characters between </" + name.Local + " and >")
		}
		return endTag{name}, nil
	case '?':
		return t.procInst()
	case '!':
		if b, ok = t.getc(); !ok {
			return nil, t.err
		}
		switch b {
		case '-':
			return t.comment()
		case '[':
			for i := 0; i < len("CDATA["); i++ {
				if b, ok = t.getc(); !ok {
					return nil, t.err
				}
				if b != "CDATA["[i] {
					return nil, t.fail("invalid <![ sequence")
				}
			}
			data, ok := t.text(0, true)
			if !ok {
				return nil, t.err
			}
			return charData(data), nil
		}
		return t.directive(b)
	}
	t.off-- // b begins the element's name
	return t.startTag()
}

func (t *tokenizer) startTag() (any, error) {
	name, ok := t.nsname()
	if !ok {
		return nil, t.expected("expected element name after <")
	}
	tag := startTag{Name: name, Attr: []xmlAttr{}}
	for {
		t.space()
		b, ok := t.getc()
		if !ok {
			return nil, t.err
		}
		if b == '/' {
			if b, ok = t.getc(); !ok {
				return nil, t.err
			}
			if b != '>' {
				return nil, t.fail("expected /> in element")
			}
			t.needClose, t.toClose = true, name
			return tag, nil
		}
		if b == '>' {
			return tag, nil
		}
		t.off--
		var a xmlAttr
		if a.Name, ok = t.nsname(); !ok {
			return nil, t.expected("expected attribute name in element")
		}
		t.space()
		if b, ok = t.getc(); !ok {
			return nil, t.err
		}
		if b != '=' {
			return nil, t.fail("attribute name without = in element")
		}
		t.space()
		if b, ok = t.getc(); !ok {
			return nil, t.err
		}
		if b != '"' && b != '\'' {
			return nil, t.fail("unquoted or missing attribute value in element")
		}
		v, ok := t.text(b, false)
		if !ok {
			return nil, t.err
		}
		a.Value = string(v)
		tag.Attr = append(tag.Attr, a)
	}
}

// procInst reads a processing instruction, past "<?", and checks the
// version and encoding of an XML declaration.
func (t *tokenizer) procInst() (any, error) {
	target, ok := t.name()
	if !ok {
		return nil, t.expected("expected target name after <?")
	}
	t.space()
	start := t.off
	var b0 byte
	for {
		b, ok := t.getc()
		if !ok {
			return nil, t.err
		}
		if b0 == '?' && b == '>' {
			break
		}
		b0 = b
	}
	inst := string(t.in[start : t.off-2])
	if target == "xml" {
		if v := declParam(inst, "version="); v != "" && v != "1.0" {
			t.err = &xmlVersionError{v}
			return nil, t.err
		}
		if enc := declParam(inst, "encoding="); enc != "" && !strings.EqualFold(enc, "utf-8") {
			if err := t.charset(enc); err != nil {
				t.err = err
				return nil, err
			}
		}
	}
	return procInst{target, inst}, nil
}

// declParam returns the value of the pseudo-attribute key (with its "=")
// in the data of an XML declaration: the text after the first occurrence
// of key that is followed by a quote, up to the same quote. It is as
// loose as encoding/xml, which allows no space around the "=".
func declParam(s, key string) string {
	i := 0
	var quote byte
	for i < len(s) {
		k := strings.Index(s[i:], key)
		if k < 0 || i+k+len(key) >= len(s) {
			return ""
		}
		c := s[i+k+len(key)]
		i += k + len(key) + 1
		if c == '\'' || c == '"' {
			quote = c
			break
		}
	}
	if quote == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], quote)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// comment reads a comment, past "<!-".
func (t *tokenizer) comment() (any, error) {
	b, ok := t.getc()
	if !ok {
		return nil, t.err
	}
	if b != '-' {
		return nil, t.fail("invalid sequence <!- not part of <!--")
	}
	start := t.off
	var b0, b1 byte
	for {
		if b, ok = t.getc(); !ok {
			return nil, t.err
		}
		if b0 == '-' && b1 == '-' {
			if b != '>' {
				return nil, t.fail(`invalid sequence "--" not allowed in comments`)
			}
			return comment(t.in[start : t.off-3 : t.off-3]), nil
		}
		b0, b1 = b1, b
	}
}

// directive reads a directive such as <!DOCTYPE ...>, past "<!" and its
// first byte b, up to the ">" that closes it: angle brackets within nest,
// except in quotes, and comments within are skipped (each becomes a space
// in the directive's text).
func (t *tokenizer) directive(b byte) (any, error) {
	buf := append(t.buf[:0], b)
	var quote byte
	depth := 0
	ok := true
	for {
		if b, ok = t.getc(); !ok {
			return nil, t.err
		}
		if quote == 0 && b == '>' && depth == 0 {
			break
		}
	again:
		buf = append(buf, b)
		switch {
		case b == quote:
			quote = 0
		case quote != 0:
		case b == '\'' || b == '"':
			quote = b
		case b == '>':
			depth--
		case b == '<':
			for i := 0; i < len("!--"); i++ {
				if b, ok = t.getc(); !ok {
					return nil, t.err
				}
				if b != "!--"[i] {
					buf = append(buf, "!--"[:i]...)
					depth++
					goto again
				}
			}
			buf = buf[:len(buf)-1] // the '<'
			var b0, b1 byte
			for {
				if b, ok = t.getc(); !ok {
					return nil, t.err
				}
				if b0 == '-' && b1 == '-' && b == '>' {
					break
				}
				b0, b1 = b1, b
			}
			buf = append(buf, ' ')
		}
	}
	t.buf = buf
	return directive(buf), nil
}

// text reads character data: up to the next '<' or the end of the input
// if quote is 0 and not cdata; up to and past the quote if quote is a
// quotation mark or an apostrophe; up to and past "]]>" if cdata. Entity
// references are decoded (not in CDATA), line ends normalised to "\n",
// and characters XML does not allow refused once the whole text is read.
func (t *tokenizer) text(quote byte, cdata bool) ([]byte, bool) {
	in := t.in
	buf := t.buf[:0]
	copied := false // buf holds the text up to mark; else the text begins at mark
	mark := t.off
	end := 0 // the text read ends at in[:end] (after mark)
	var b0, b1 byte
	for {
		if t.off >= len(in) {
			if cdata {
				t.fail("unexpected EOF in CDATA section")
				return nil, false
			}
			end = len(in)
			break
		}
		b := in[t.off]
		t.off++
		if quote == 0 && b0 == ']' && b1 == ']' && b == '>' {
			if cdata {
				end = t.off - 3
				break
			}
			t.fail("unescaped ]]> not in CDATA section")
			return nil, false
		}
		if b == '<' && !cdata {
			if quote != 0 {
				t.fail("unescaped < inside quoted string")
				return nil, false
			}
			t.off--
			end = t.off
			break
		}
		if quote != 0 && b == quote {
			end = t.off - 1
			break
		}
		if b == '&' && !cdata {
			buf = append(buf, in[mark:t.off-1]...)
			copied = true
			var ok bool
			if buf, ok = t.entity(buf); !ok {
				return nil, false
			}
			mark = t.off
			b0, b1 = 0, 0
			continue
		}
		if b == '\r' {
			buf = append(buf, in[mark:t.off-1]...)
			buf = append(buf, '\n')
			copied, mark = true, t.off
		} else if b1 == '\r' && b == '\n' {
			mark = t.off // "\r\n" was written as "\n"
		}
		b0, b1 = b1, b
	}
	var data []byte
	if copied {
		buf = append(buf, in[mark:max(mark, end)]...)
		t.buf, data = buf, buf[:len(buf):len(buf)]
	} else {
		// Capped: a caller appending to the text must not write into the
		// document.
		data = in[mark:end:end]
	}
	for i := 0; i < len(data); {
		if c := data[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				t.fail(fmt.Sprintf("illegal character code %U", rune(c)))
				return nil, false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			t.fail("invalid UTF-8")
			return nil, false
		}
		if !xmltext.IsChar(r) {
			t.fail(fmt.Sprintf("illegal character code %U", r))
			return nil, false
		}
		i += n
	}
	return data, true
}

// entity decodes the reference past the '&' at t.off-1, appending its
// text to buf: one of the five predefined entities, or a character
// reference &#N; or &#xN; (which encoding/xml, and so this tokenizer,
// decode to U+FFFD if N is a surrogate).
func (t *tokenizer) entity(buf []byte) ([]byte, bool) {
	in := t.in
	start := t.off - 1
	b, ok := t.getc()
	if !ok {
		return nil, false
	}
	if b == '#' {
		if b, ok = t.getc(); !ok {
			return nil, false
		}
		base := 10
		if b == 'x' {
			base = 16
			if b, ok = t.getc(); !ok {
				return nil, false
			}
		}
		digits := t.off - 1
		for '0' <= b && b <= '9' || base == 16 && ('a' <= b && b <= 'f' || 'A' <= b && b <= 'F') {
			if b, ok = t.getc(); !ok {
				return nil, false
			}
		}
		if b != ';' {
			t.off--
		} else if n, err := strconv.ParseUint(string(in[digits:t.off-1]), base, 64); err == nil && n <= utf8.MaxRune {
			return utf8.AppendRune(buf, rune(n)), true
		}
	} else {
		t.off--
		if _, ok := t.readName(); !ok && t.err != nil {
			return nil, false
		}
		if b, ok = t.getc(); !ok {
			return nil, false
		}
		if b != ';' {
			t.off--
		} else if name := in[start+1 : t.off-1]; isName(name) {
			var c byte
			switch string(name) {
			case "lt":
				c = '<'
			case "gt":
				c = '>'
			case "amp":
				c = '&'
			case "apos":
				c = '\''
			case "quot":
				c = '"'
			}
			if c != 0 {
				return append(buf, c), true
			}
		}
	}
	ent := string(in[start:t.off])
	if ent[len(ent)-1] != ';' {
		ent += " (no semicolon)"
	}
	t.fail("invalid character entity " + ent)
	return nil, false
}

// nsname reads a name with an optional prefix: p:local. A name with two
// colons is refused (without an error: the caller says what was expected).
func (t *tokenizer) nsname() (xmlName, bool) {
	s, ok := t.name()
	if !ok {
		return xmlName{}, false
	}
	if strings.Count(s, ":") > 1 {
		return xmlName{}, false
	}
	if space, local, ok := strings.Cut(s, ":"); ok && space != "" && local != "" {
		return xmlName{space, local}, true
	}
	return xmlName{Local: s}, true
}

// name reads a name and checks it.
func (t *tokenizer) name() (string, bool) {
	b, ok := t.readName()
	if !ok {
		return "", false
	}
	if !isName(b) {
		t.fail("invalid XML name: " + string(b))
		return "", false
	}
	return string(b), true
}

// readName reads the bytes of a name: up to the first ASCII byte that
// cannot be in a name (non-ASCII bytes are checked by isName). It fails
// without an error if there is no name, with "unexpected EOF" if the input
// ends in it.
func (t *tokenizer) readName() ([]byte, bool) {
	start := t.off
	for {
		if t.off >= len(t.in) {
			t.fail("unexpected EOF")
			return nil, false
		}
		if c := t.in[t.off]; c < utf8.RuneSelf && !isNameByte(c) {
			break
		}
		t.off++
	}
	return t.in[start:t.off], t.off > start
}

func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// isName reports whether s is an XML name (XML 1.0, fifth edition).
func isName(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); {
		c, n := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRune(s[i:])
			if c == utf8.RuneError && n == 1 {
				return false
			}
		}
		if !isNameStart(c) && (i == 0 || !isNameRest(c)) {
			return false
		}
		i += n
	}
	return true
}

// isNameStart reports whether c is in the NameStartChar production.
func isNameStart(c rune) bool {
	switch {
	case c < utf8.RuneSelf:
		return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':'
	case c < 0x300:
		return c >= 0xC0 && c != 0xD7 && c != 0xF7
	}
	return 0x370 <= c && c <= 0x1FFF && c != 0x37E ||
		0x200C <= c && c <= 0x200D ||
		0x2070 <= c && c <= 0x218F ||
		0x2C00 <= c && c <= 0x2FEF ||
		0x3001 <= c && c <= 0xD7FF ||
		0xF900 <= c && c <= 0xFDCF ||
		0xFDF0 <= c && c <= 0xFFFD ||
		0x10000 <= c && c <= 0xEFFFF
}

// isNameRest reports whether c is in the NameChar production but not in
// NameStartChar.
func isNameRest(c rune) bool {
	return '0' <= c && c <= '9' || c == '.' || c == '-' || c == 0xB7 ||
		0x300 <= c && c <= 0x36F || c == 0x203F || c == 0x2040
}

// declEncoding returns the encoding named by the XML declaration at the
// start of src (within its first 200 bytes), if there is one: the value
// of the first encoding="..." (or '...', quotes of either kind at either
// end, spaces allowed around the "=") before the first '>'.
func declEncoding(src []byte) (string, bool) {
	src = src[:min(len(src), 200)]
	i := 0
	for i < len(src) && (isSpace(src[i]) || src[i] == '\f') {
		i++
	}
	if !strings.HasPrefix(string(src[i:]), "<?xml") {
		return "", false
	}
	for i += len("<?xml"); i < len(src) && src[i] != '>'; i++ {
		if v, ok := encodingAttr(src[i:]); ok {
			return v, true
		}
	}
	return "", false
}

// encodingAttr matches encoding\s*=\s*["']([^"']*)["'] at the start of s.
func encodingAttr(s []byte) (string, bool) {
	if !strings.HasPrefix(string(s), "encoding") {
		return "", false
	}
	i := len("encoding")
	skip := func() {
		for i < len(s) && (isSpace(s[i]) || s[i] == '\f') {
			i++
		}
	}
	skip()
	if i == len(s) || s[i] != '=' {
		return "", false
	}
	i++
	skip()
	if i == len(s) || s[i] != '"' && s[i] != '\'' {
		return "", false
	}
	i++
	j := i
	for j < len(s) && s[j] != '"' && s[j] != '\'' {
		j++
	}
	if j == len(s) {
		return "", false
	}
	return string(s[i:j]), true
}
