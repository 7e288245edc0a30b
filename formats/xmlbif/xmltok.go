package xmlbif

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// The reader reads tokens with encoding/xml's Decoder.RawToken in strict
// mode: the tokens, the errors (messages and the offsets where they are
// noticed) and the names it accepts are encoding/xml's. This file gives
// the reader the tokens as types of its own, so that it switches on them
// and positions errors with the decoder's input offset. (Until issue 28
// the package had its own tokenizer, for the microseconds encoding/xml's
// package initialisation took on every start of pbl; reading the largest
// XMLBIF of the corpus takes about as long either way:
// docs/performance.md "XMLBIF with encoding/xml".)

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

// tokenizer splits an XML document into tokens, with encoding/xml.
type tokenizer struct {
	d *xml.Decoder
}

// newTokenizer returns a tokenizer of in. charset checks the encoding
// named by an XML declaration, unless it is UTF-8 (the input is UTF-8
// already); an error it returns stops the tokenizer.
func newTokenizer(in []byte, charset func(string) error) *tokenizer {
	d := xml.NewDecoder(bytes.NewReader(in))
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if err := charset(label); err != nil {
			return nil, err
		}
		return r, nil
	}
	return &tokenizer{d: d}
}

// offset returns the offset of the end of the last token, where the next
// one begins; after an error, where the error was noticed.
func (t *tokenizer) offset() int { return int(t.d.InputOffset()) }

// next returns the next token, or io.EOF at the end of the input. A
// syntax error is an *xmlSyntaxError; an error is returned again by every
// later call.
func (t *tokenizer) next() (any, error) {
	tok, err := t.d.RawToken()
	if err != nil {
		if se, ok := errors.AsType[*xml.SyntaxError](err); ok {
			return nil, &xmlSyntaxError{se.Msg}
		}
		return nil, err
	}
	switch x := tok.(type) {
	case xml.StartElement:
		st := startTag{Name: xmlName(x.Name)}
		if len(x.Attr) > 0 {
			st.Attr = make([]xmlAttr, len(x.Attr))
			for i, a := range x.Attr {
				st.Attr[i] = xmlAttr{xmlName(a.Name), a.Value}
			}
		}
		return st, nil
	case xml.EndElement:
		return endTag{xmlName(x.Name)}, nil
	case xml.CharData:
		return charData(x), nil
	case xml.Comment:
		return comment(x), nil
	case xml.ProcInst:
		return procInst{x.Target, string(x.Inst)}, nil
	case xml.Directive:
		return directive(x), nil
	}
	panic("xmlbif: unknown token type")
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
