package grammar

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NameBeforeEquals returns the name written just before a trailing "=" of
// head, the text before a cursor — Storm in "P(X | Storm=", odd name in
// `P(X | "odd name" = ` — the variable whose state a completer offers
// next. A comparison ("==", "!=", "<=", ">=") is not one.
func NameBeforeEquals(head string) (string, bool) {
	h := strings.TrimRight(head, " \t")
	if !strings.HasSuffix(h, "=") {
		return "", false
	}
	h = h[:len(h)-1]
	if strings.HasSuffix(h, "=") || strings.HasSuffix(h, "!") || strings.HasSuffix(h, "<") || strings.HasSuffix(h, ">") {
		return "", false
	}
	h = strings.TrimRight(h, " \t")
	if strings.HasSuffix(h, `"`) {
		i := strings.LastIndexByte(h[:len(h)-1], '"')
		if i < 0 {
			return "", false
		}
		return h[i+1 : len(h)-1], true
	}
	i := len(h)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(h[:i])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i -= size
	}
	if i == len(h) {
		return "", false
	}
	return h[i:], true
}
