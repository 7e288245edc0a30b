package data

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/ir"
)

// Limits that keep memory bounded whatever the input.
const (
	initialBuf = 1 << 20 // initial size of the read buffer
	maxField   = 1 << 20 // longest field, in bytes
	maxRow     = 1 << 24 // longest row (the read buffer never grows past it)
	maxColumns = 1 << 20 // most fields in the header row
	maxQuoted  = 40      // longest value quoted in full in a message, in runes
)

// status is the outcome of scanning a field or a row.
type status int8

const (
	stOK    status = iota
	stMore         // the buffer ends before the field or row does; fill and rescan
	stBad          // a malformed field or row; scanner.err is set
	stEOF          // no more rows
	stSkip         // a blank line was consumed
	stFlush        // blank lines are pending before the next row (one-column files)
)

// stop marks the bytes that end the fast scan of an unquoted field.
var stop = [256]bool{',': true, '\n': true, '\r': true, '"': true}

// scanner holds the read buffer and the position in the file. The parser
// works on the bytes of buf directly; a row is scanned only once it (or a
// field of it) is known to be complete, and a row cut by the end of the
// buffer is scanned again from its start after fill.
type scanner struct {
	file string
	src  io.Reader
	buf  []byte
	pos  int  // start of the first unconsumed row
	end  int  // buf[pos:end] holds unconsumed input
	eof  bool // src is exhausted: buf[pos:end] is all that is left
	err  error
	gzip bool // src decompresses gzip input

	// rerr is an error src returned with the last bytes it gave, or
	// src's error after the bytes of a chunk (parallel mode): fill
	// returns it when the rows need more than those bytes, so that what
	// is read before a read error does not depend on how src splits its
	// reads.
	rerr error

	line     int // line number of buf[pos]
	rowStart int // offset of the row being scanned, for positions
	rowLines int // newlines inside quoted fields of the row being scanned

	scratch []byte // unescaped value of a quoted field with "" in it
}

// fill reads more input, first making room by dropping consumed bytes and
// then, if the unconsumed row fills the whole buffer, by growing it.
func (s *scanner) fill() error {
	if s.rerr != nil {
		return s.readError(s.rerr)
	}
	if s.end == len(s.buf) {
		if s.pos > 0 {
			n := copy(s.buf, s.buf[s.pos:s.end])
			s.end, s.pos = n, 0
		}
		if s.end == len(s.buf) {
			if len(s.buf) >= maxRow {
				return malformed(ir.Pos{File: s.file, Line: s.line, Col: 1}, "a row is longer than %d MiB", maxRow>>20)
			}
			nb := make([]byte, min(2*len(s.buf), maxRow))
			copy(nb, s.buf[:s.end])
			s.buf = nb
		}
	}
	for range 100 {
		n, err := s.src.Read(s.buf[s.end:])
		s.end += n
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil && n > 0 {
			s.rerr = err // the bytes first
			return nil
		}
		if err != nil {
			return s.readError(err)
		}
		if n > 0 {
			return nil
		}
	}
	return s.readError(io.ErrNoProgress)
}

// readError is the error of a failed read of src, at the line of the row
// that needed more input.
func (s *scanner) readError(err error) error {
	switch {
	case err == errRowTooLong:
		return malformed(ir.Pos{File: s.file, Line: s.line, Col: 1}, "a row is longer than %d MiB", maxRow>>20)
	case s.gzip && err != io.ErrNoProgress:
		return malformed(ir.Pos{File: s.file, Line: s.line}, "the file starts as gzip data but is not valid gzip (%v): is it truncated?", err)
	}
	return ir.Errorf(ir.Pos{File: s.file, Line: s.line}, "read error: %v", err)
}

// posAt returns the position of buf[off], which is in the row being
// scanned.
func (s *scanner) posAt(off int) ir.Pos {
	b := s.buf[s.rowStart:off]
	line := s.line + bytes.Count(b, []byte{'\n'})
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		b = b[k+1:]
	}
	return ir.Pos{File: s.file, Line: line, Col: utf8.RuneCount(b) + 1}
}

// cursor returns a cursor at the start of the row being scanned.
func (s *scanner) cursor() *cursor {
	return &cursor{s: s, off: s.rowStart, line: s.line, col: 1}
}

// A cursor gives the positions of offsets of the row being scanned, taken
// in increasing order, in time linear in the row's length overall (posAt
// counts from the row's start each time).
type cursor struct {
	s         *scanner
	off       int // the offset of line:col
	line, col int
}

// pos returns the position of buf[off], off at least the last offset
// asked for.
func (c *cursor) pos(off int) ir.Pos {
	b := c.s.buf[c.off:off]
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		c.line += bytes.Count(b, []byte{'\n'})
		c.col = 1
		b = b[k+1:]
	}
	c.col += utf8.RuneCount(b)
	c.off = off
	return ir.Pos{File: c.s.file, Line: c.line, Col: c.col}
}

// errorf returns an error at buf[off].
func (s *scanner) errorf(off int, format string, args ...any) *ir.Error {
	return ir.Errorf(s.posAt(off), format, args...)
}

// bad records an error of kind ErrMalformed at buf[off] and returns
// stBad.
func (s *scanner) bad(off int, format string, args ...any) status {
	e := s.errorf(off, format, args...)
	e.Err = ErrMalformed
	s.err = e
	return stBad
}

// malformed returns an error of kind ErrMalformed at pos.
func malformed(pos ir.Pos, format string, args ...any) *ir.Error {
	e := ir.Errorf(pos, format, args...)
	e.Err = ErrMalformed
	return e
}

// field scans the field that starts at buf[p]. It returns the field's value
// (valid until the next call), the offset just past its terminator, and
// whether the terminator ended the row (a line break or the end of input).
// It handles every case; the row scanner inlines only the common ones.
func (s *scanner) field(p int) (val []byte, next int, eol bool, st status) {
	buf, end := s.buf[:s.end], s.end
	if p < end && buf[p] == '"' {
		return s.quoted(p)
	}
	i := p
	for i < end && !stop[buf[i]] {
		i++
	}
	if i-p > maxField {
		return nil, 0, false, s.bad(p, "field longer than %d MiB", maxField>>20)
	}
	if i == end {
		if !s.eof {
			return nil, 0, false, stMore
		}
		return buf[p:i], i, true, stOK
	}
	switch buf[i] {
	case ',':
		return buf[p:i], i + 1, false, stOK
	case '\n':
		return buf[p:i], i + 1, true, stOK
	case '\r':
		n, st := s.crlf(i)
		return buf[p:i], i + n, true, st
	}
	// A quote inside an unquoted field.
	return nil, 0, false, s.bad(i, `bare " in an unquoted field (quote the whole field and write a quote inside it as "")`)
}

// crlf checks the line break at buf[i] == '\r' and returns its length.
func (s *scanner) crlf(i int) (int, status) {
	switch {
	case i+1 < s.end:
		if s.buf[i+1] == '\n' {
			return 2, stOK
		}
		return 0, s.bad(i, "carriage return not followed by a line feed (lines must end in LF or CRLF)")
	case !s.eof:
		return 0, stMore
	}
	return 1, stOK // a final CR at the end of input
}

// quoted scans the quoted field that starts at buf[p] == '"'.
func (s *scanner) quoted(p int) (val []byte, next int, eol bool, st status) {
	buf, end := s.buf[:s.end], s.end
	q := p + 1
	escaped := false
	for {
		k := bytes.IndexByte(buf[q:end], '"')
		if k < 0 {
			if end-p > maxField+2 {
				return nil, 0, false, s.bad(p, "quoted field longer than %d MiB (is its closing quote missing?)", maxField>>20)
			}
			if !s.eof {
				return nil, 0, false, stMore
			}
			return nil, 0, false, s.bad(p, "unterminated quoted field (the quote opened here is never closed)")
		}
		i := q + k
		if i+1 == end && !s.eof {
			return nil, 0, false, stMore // "" or a closing quote: look at the next byte
		}
		if i+1 < end && buf[i+1] == '"' {
			escaped = true
			q = i + 2
			continue
		}
		// buf[i] is the closing quote.
		val = buf[p+1 : i]
		if len(val) > maxField {
			return nil, 0, false, s.bad(p, "field longer than %d MiB", maxField>>20)
		}
		next := i + 1
		switch {
		case next == end: // end of input
			eol = true
		case buf[next] == ',':
			next++
		case buf[next] == '\n':
			next++
			eol = true
		case buf[next] == '\r':
			n, st := s.crlf(next)
			if st != stOK {
				return nil, 0, false, st
			}
			next += n
			eol = true
		default:
			if !utf8.FullRune(buf[next:]) && !s.eof {
				return nil, 0, false, stMore // to quote the whole rune
			}
			return nil, 0, false, s.bad(next, "unexpected %s after the closing quote of a field (write a quote inside a quoted field as \"\")", quoteRune(buf[next:]))
		}
		s.rowLines += bytes.Count(val, []byte{'\n'})
		if escaped {
			s.scratch = s.scratch[:0]
			for {
				k := bytes.IndexByte(val, '"')
				if k < 0 {
					break
				}
				s.scratch = append(s.scratch, val[:k+1]...)
				val = val[k+2:]
			}
			val = append(s.scratch, val...)
			s.scratch = val
		}
		return val, next, eol, stOK
	}
}

// failing is a source that has failed: every Read returns its error.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// quoteRune quotes the first rune of b for a message.
func quoteRune(b []byte) string {
	r, _ := utf8.DecodeRune(b)
	return strconv.QuoteRune(r)
}

// show quotes a field's value for a message, shortening a long one.
func show(val []byte) string {
	if utf8.RuneCount(val) <= maxQuoted {
		return strconv.Quote(string(val))
	}
	n := 0
	for i := range string(val) {
		if n == maxQuoted {
			return strconv.Quote(string(val[:i])) + "..."
		}
		n++
	}
	return strconv.Quote(string(val))
}
