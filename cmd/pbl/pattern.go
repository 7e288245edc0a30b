package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A pathPattern is pbl test --run's filter: alternatives separated by |
// (neither escaped nor in a class), each a glob — * any run of characters
// (/ included), ? one character, [abc], [a-z] and [^a-z] a character of a
// class, \x the character x — that selects a path containing a match of
// it. A plain word selects the paths that contain it, as before: --run
// was a regular expression, which linked package regexp, whose Unicode
// tables were built on every start of pbl (issue 16).
type pathPattern []string

// errBadPattern is the error of a malformed pattern.
var errBadPattern = errors.New("malformed pattern")

// parsePathPattern splits a --run pattern into its alternatives, at each
// | that is neither escaped nor in a class, and checks that every class
// is closed and no escape ends the pattern.
func parsePathPattern(s string) (pathPattern, error) {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", errBadPattern, s, why) }
	var alts pathPattern
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 == len(s) {
				return nil, bad(`\ at the end`)
			}
			i++
		case '[':
			end := classEnd(s, i)
			if end < 0 {
				return nil, bad("[ without ]")
			}
			i = end
		case '|':
			alts = append(alts, s[start:i])
			start = i + 1
		}
	}
	return append(alts, s[start:]), nil
}

// MatchString reports whether path contains a match of an alternative.
func (p pathPattern) MatchString(path string) bool {
	for _, a := range p {
		if globMatch("*"+a+"*", path) {
			return true
		}
	}
	return false
}

// classEnd returns the index of the ] closing the class that starts at
// g[i] == '[', or -1. A ] right after [ or [^ is a member.
func classEnd(g string, i int) int {
	j := i + 1
	if j < len(g) && g[j] == '^' {
		j++
	}
	if j < len(g) && g[j] == ']' {
		j++
	}
	for ; j < len(g); j++ {
		switch g[j] {
		case '\\':
			j++
		case ']':
			return j
		}
	}
	return -1
}

// globMatch reports whether the whole of s matches the glob g, checked
// by parsePathPattern.
// On a mismatch it resumes after the last * with one more character
// consumed by it, which is enough for globs (a later * can absorb what
// an earlier one did not): the time is at most len(g)·len(s) steps.
func globMatch(g, s string) bool {
	star, resume := -1, 0 // after the last *: where in g, and where in s
	for gi, si := 0, 0; ; {
		if gi < len(g) {
			switch g[gi] {
			case '*':
				star, resume = gi+1, si
				gi++
				continue
			case '?':
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					gi, si = gi+1, si+n
					continue
				}
			case '[':
				end := classEnd(g, gi)
				if si < len(s) {
					r, n := utf8.DecodeRuneInString(s[si:])
					if inClass(g[gi+1:end], r) {
						gi, si = end+1, si+n
						continue
					}
				}
			default:
				c, w := g[gi], 1
				if c == '\\' {
					c, w = g[gi+1], 2
				}
				if si < len(s) && s[si] == c {
					gi, si = gi+w, si+1
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		if star < 0 || resume >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[resume:])
		resume += n
		gi, si = star, resume
	}
}

// inClass reports whether r is in the class body c (between [ and ]).
func inClass(c string, r rune) bool {
	negate := strings.HasPrefix(c, "^")
	if negate {
		c = c[1:]
	}
	in := false
	for len(c) > 0 {
		lo, n := classChar(c)
		c = c[n:]
		hi := lo
		if len(c) > 1 && c[0] == '-' {
			hi, n = classChar(c[1:])
			c = c[1+n:]
		}
		if lo <= r && r <= hi {
			in = true
		}
	}
	return in != negate
}

// classChar decodes one character of a class, escaped or not.
func classChar(c string) (rune, int) {
	if c[0] == '\\' && len(c) > 1 {
		r, n := utf8.DecodeRuneInString(c[1:])
		return r, n + 1
	}
	return utf8.DecodeRuneInString(c)
}
