package grammar

import (
	"strconv"
	"strings"
	"unicode"
)

// MaxExprDepth is the deepest an expression may be: the parser refuses
// more levels of nesting (parentheses, calls, unary minus, exponents), and
// lowering (package ir) a longer chain of operators (a sum of more terms),
// so that no recursive pass over an expression can exhaust the stack. It
// is a rule of the language's syntax, so it sits here, below both.
const MaxExprDepth = 10_000

// Quote returns name as written in pbl source: bare if it is an identifier
// or an integer, or a slice of a time-indexed variable (an identifier and
// a slice number, Rain[3], which reads back as the same name), otherwise
// double-quoted. A declaration of a variable so named quotes it with
// strconv.Quote: var Rain[3] would declare a slice.
func Quote(name string) string {
	if IsIdent(name) || isInt(name) || IsSliceName(name) {
		return name
	}
	return strconv.Quote(name)
}

// IsSliceName reports whether s is an identifier followed by a slice
// number in brackets, written canonically: Rain[0], Rain[12].
func IsSliceName(s string) bool {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") || !IsIdent(s[:i]) {
		return false
	}
	n := s[i+1 : len(s)-1]
	if n == "" || len(n) > 1 && n[0] == '0' {
		return false
	}
	for j := 0; j < len(n); j++ {
		if n[j] < '0' || n[j] > '9' {
			return false
		}
	}
	return true
}

// IsIdent reports whether s is a pbl identifier: a letter or underscore
// followed by letters, digits and underscores.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80 && unicode.IsLetter(r):
		case i > 0 && ('0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// isInt reports whether s is an integer, with an optional minus sign.
func isInt(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
