package textscan

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// At returns the position of the start of t.
func (s *Scanner) At(t Token) ir.Pos { return s.posIn(t.Line, t.Off) }

// Pos returns the position of offset off, which must have been scanned.
// The first call indexes the lines scanned so far, so that any offset's
// line is then found by binary search.
func (s *Scanner) Pos(off int) ir.Pos {
	if s.lines == nil {
		s.lines = []int{0}
	}
	for s.linesEnd < s.off {
		i := bytes.IndexByte(s.src[s.linesEnd:s.off], '\n')
		if i < 0 {
			s.linesEnd = s.off
			break
		}
		s.linesEnd += i + 1
		s.lines = append(s.lines, s.linesEnd)
	}
	line := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) // 1-based line
	if line == 0 {
		line = 1
	}
	return s.posIn(line, off)
}

// posIn returns the position of offset off on line line.
func (s *Scanner) posIn(line, off int) ir.Pos {
	if s.cline != line || off < s.coff {
		start := bytes.LastIndexByte(s.src[:off], '\n') + 1
		if start < s.bom {
			start = s.bom
		}
		s.cline, s.cstart, s.coff, s.ccol = line, start, start, 1
	}
	if off < s.cstart {
		off = s.cstart // inside a byte order mark
	}
	s.ccol += utf8.RuneCount(s.src[s.coff:off])
	s.coff = off
	return ir.Pos{File: s.file, Line: line, Col: s.ccol}
}
