package uai

import (
	"math"
	"os"

	"github.com/pbl-lang/pbl/ir"
)

// ReadEvidenceFile reads the evidence file at path against m. An error
// reading the file is returned as is; errors in its contents are an
// ir.ErrorList, as for [ReadEvidence].
func ReadEvidenceFile(path string, m *ir.Model) ([]ir.Obs, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadEvidence(path, src, m)
}

// ReadEvidence parses a UAI evidence file for the model m: the number of
// observations N, then N pairs of a variable index (a VarID of m) and a
// state index; `0` alone is no evidence. The older form with a leading
// sample count, `1` then that list, is also accepted; it is recognised by
// its even number of tokens. The observations are returned in file order.
// Errors (malformed or out-of-range numbers, a count that does not match
// the pairs, a variable observed twice) are an
// ir.ErrorList of *ir.Error positioned in filename.
func ReadEvidence(filename string, src []byte, m *ir.Model) ([]ir.Obs, error) {
	s := newScanner(filename, src)
	var toks []token
	for {
		t := s.next()
		if t.eof() {
			toks = append(toks, t) // keep the end, for its position
			break
		}
		toks = append(toks, t)
	}
	end := toks[len(toks)-1]
	toks = toks[:len(toks)-1]
	if len(toks) == 0 {
		s.errorf(end, "empty evidence file: want the number of observations (0 for none)")
		return nil, s.errs.Err()
	}
	ints := make([]int, len(toks))
	for i, t := range toks {
		switch ints[i] = parseCount(t, math.MaxInt); ints[i] {
		case -1:
			s.errorf(t, "want a non-negative integer, found %s", describe(t))
			return nil, s.errs.Err()
		case -2:
			s.errorf(t, "number %s is too large", t.text)
			return nil, s.errs.Err()
		}
	}
	// The forms: "N v s ..." has 1+2N tokens, an odd number; "1 N v s ..."
	// (one sample) has 2+2N.
	nTok := toks[0]
	if len(toks)%2 == 0 && ints[0] == 1 {
		toks, ints = toks[1:], ints[1:]
		nTok = toks[0]
	}
	n := ints[0]
	toks, ints = toks[1:], ints[1:]
	switch {
	case n > len(toks) || len(toks) < 2*n: // n > len(toks) first: 2*n may overflow
		s.errorf(end, "unexpected end of file: %s declares %s, found %s", nTok.text, ir.Plural(n, "observation"), pairs(len(toks)))
		return nil, s.errs.Err()
	case len(toks) > 2*n:
		s.errorf(toks[2*n], "unexpected %s: the file declares %s", describe(toks[2*n]), ir.Plural(n, "observation"))
		return nil, s.errs.Err()
	}
	obs := make([]ir.Obs, 0, n)
	first := make(map[int]token, n)
	for i := 0; i < len(toks); i += 2 {
		v, st := ints[i], ints[i+1]
		if v >= len(m.Vars) {
			s.errorf(toks[i], "variable index %s is out of range: the model has %s", toks[i].text, ir.Plural(len(m.Vars), "variable"))
			continue
		}
		x := m.Vars[v]
		if st >= len(x.States) {
			s.errorf(toks[i+1], "state %s of %s is out of range: it has %s", toks[i+1].text, ir.Quote(x.Name), ir.Plural(len(x.States), "state"))
			continue
		}
		if prev, dup := first[v]; dup {
			s.errorf(toks[i], "%s is observed twice (first at %s)", ir.Quote(x.Name), s.pos(prev))
			continue
		}
		first[v] = toks[i]
		obs = append(obs, ir.Obs{Var: ir.VarID(v), State: st})
	}
	if err := s.errs.Err(); err != nil {
		return nil, err
	}
	return obs, nil
}

// pairs describes k tokens as complete pairs and a leftover.
func pairs(k int) string {
	s := ir.Plural(k/2, "pair")
	if k%2 == 1 {
		s += " and a lone index"
	}
	return s
}
