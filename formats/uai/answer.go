package uai

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/pbl-lang/pbl/ir"
)

// WritePR writes a PR answer: the line PR, then log10 Z(e) on a line of
// its own, in the shortest form that reads back as the same float64. Z(e)
// = 0 is written as -inf, as C's printf writes it. NaN is an error.
func WritePR(w io.Writer, log10Z float64) error {
	if math.IsNaN(log10Z) {
		return fmt.Errorf("uai: WritePR: log10 Z is NaN")
	}
	_, err := io.WriteString(w, "PR\n"+formatValue(log10Z)+"\n")
	return err
}

// WriteMAR writes a MAR answer: the line MAR, then on one line the number
// of variables and, for each variable, its cardinality and its marginal
// probabilities. A marginal with a NaN or a negative entry is an error.
func WriteMAR(w io.Writer, marginals [][]float64) error {
	for v, p := range marginals {
		for _, x := range p {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("uai: WriteMAR: the marginal of X%d has the entry %s", v, ir.FormatFloat(x))
			}
		}
	}
	bw := bufio.NewWriter(w)
	buf := append([]byte("MAR\n"), strconv.Itoa(len(marginals))...)
	for _, p := range marginals {
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(len(p)), 10)
		for _, x := range p {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
		}
		buf = flush(bw, buf)
	}
	buf = append(buf, '\n')
	bw.Write(buf)
	return bw.Flush()
}

// WriteMPE writes an MPE answer: the line MPE, then on one line the number
// of variables and each variable's state.
func WriteMPE(w io.Writer, assignment []int) error {
	buf := append([]byte("MPE\n"), strconv.Itoa(len(assignment))...)
	for _, s := range assignment {
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(s), 10)
	}
	buf = append(buf, '\n')
	_, err := w.Write(buf)
	return err
}

// formatValue formats x in the shortest form that reads back as x, with
// the infinities as C writes them.
func formatValue(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return ir.FormatFloat(x)
}

// ReadPR parses a PR answer file and returns log10 Z. "-inf" (Z = 0) is
// accepted. Errors are an ir.ErrorList positioned in filename.
func ReadPR(filename string, src []byte) (float64, error) {
	s := newScanner(filename, src)
	if t := s.next(); string(t.text) != "PR" {
		s.errorf(t, "want PR, found %s", describe(t))
		return 0, s.errs.Err()
	}
	t := s.next()
	var x float64
	switch string(t.text) {
	case "-inf", "-Inf", "-INF":
		x = math.Inf(-1)
	default:
		var msg string
		if x, msg = parseNumber(t); msg != "" {
			s.errorf(t, "%s", msg)
			return 0, s.errs.Err()
		}
	}
	if t := s.next(); !t.eof() {
		s.errorf(t, "unexpected %s after the PR value", describe(t))
		return 0, s.errs.Err()
	}
	return x, nil
}

// ReadMAR parses a MAR answer file and returns each variable's marginal.
// Errors are an ir.ErrorList positioned in filename.
func ReadMAR(filename string, src []byte) (marginals [][]float64, err error) {
	s := newScanner(filename, src)
	defer func() {
		if recover() != nil { // bail{} only: nothing else panics here
			marginals, err = nil, s.errs.Err()
		}
	}()
	fail := func(t token, format string, args ...any) {
		s.errorf(t, format, args...)
		panic(bail{})
	}
	count := func(what string) int {
		t := s.next()
		n := parseCount(t, s.remaining())
		switch {
		case t.eof():
			fail(t, "unexpected end of file: want %s", what)
		case n == -1:
			fail(t, "want %s (a non-negative integer), found %s", what, describe(t))
		case n == -2:
			fail(t, "%s is %s, more than the file can hold", what, t.text)
		}
		return n
	}
	if t := s.next(); string(t.text) != "MAR" {
		fail(t, "want MAR, found %s", describe(t))
	}
	n := count("the number of variables")
	marginals = make([][]float64, 0, n)
	for v := 0; v < n; v++ {
		k := count(fmt.Sprintf("the cardinality of X%d", v))
		p := make([]float64, k)
		for i := range p {
			t := s.next()
			if t.eof() {
				fail(t, "unexpected end of file: want P(X%d=%d)", v, i)
			}
			x, msg := parseNumber(t)
			if msg != "" {
				fail(t, "%s", msg)
			}
			if !(x >= 0 && x <= 1) {
				fail(t, "P(X%d=%d) = %s is not a probability", v, i, t.text)
			}
			p[i] = x
		}
		marginals = append(marginals, p)
	}
	if t := s.next(); !t.eof() {
		fail(t, "unexpected %s after the last marginal", describe(t))
	}
	return marginals, nil
}
