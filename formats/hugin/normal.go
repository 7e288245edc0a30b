package hugin

import (
	"math"
	"strings"

	"github.com/pbl-lang/pbl/formats/internal/importer"
	"github.com/pbl-lang/pbl/formats/internal/textscan"
	"github.com/pbl-lang/pbl/ir"
)

// normalItem is one `normal ( MEAN, VARIANCE )` of a continuous node's
// potential, as read: the words of the mean and of the variance, resolved
// once the potential's parents are known.
type normalItem struct {
	kw   textscan.Token   // the word "normal"
	mean []textscan.Token // the words of the mean, between "(" and ","
	vari []textscan.Token // the words of the variance, between "," and ")"
}

// parseNormal parses `normal ( MEAN, VARIANCE )`, the current token being
// "normal", and leaves the token after the ")" current. It reports false,
// having skipped the attribute, after an error that leaves the data
// unreadable; an item without its comma is reported and marks d broken.
func (p *parser) parseNormal(d *potDecl) bool {
	it := normalItem{kw: p.Tok}
	p.Next()
	if p.Tok.Kind != '(' {
		p.Errorf(p.Tok, `expected "(" after "normal", found %s`, p.Found())
		p.skipAttr()
		return false
	}
	open := p.Tok
	p.Next()
	comma := false
	for p.Tok.Kind != ')' {
		switch {
		case p.Tok.Kind == ',' && !comma:
			comma = true
		case p.Tok.Kind == textscan.Word && !p.atElementStart():
			if comma {
				it.vari = append(it.vari, p.Tok)
			} else {
				it.mean = append(it.mean, p.Tok)
			}
		case p.Tok.Kind == textscan.EOF || p.Tok.Kind == '{' || p.Tok.Kind == '}' || p.Tok.Kind == ';' || p.Tok.Kind == textscan.Word:
			p.unclosed(open)
			p.skipAttr()
			return false
		default:
			p.Errorf(p.Tok, "expected the mean and variance of normal ( MEAN, VARIANCE ), found %s", p.Found())
			p.skipAttr()
			return false
		}
		p.Next()
	}
	if !comma || len(it.mean) == 0 || len(it.vari) == 0 {
		p.Errorf(it.kw, "expected normal ( MEAN, VARIANCE ): a mean, a comma and a variance")
		p.Next()
		d.broken = true // reported: the data is read on, not built
		return true
	}
	p.Next()
	d.normals = append(d.normals, it)
	return true
}

// piece is a lexical unit of a mean expression: a number, a name or one of
// + - *. Words are split into pieces, so that 1+2*Y and 1 + 2 * Y read
// alike.
type piece struct {
	off  int    // byte offset in the file
	text string // the piece
	kind byte   // 'n' a number, 'v' a name, or the operator
}

// splitMean cuts the words of a mean into pieces. A word that is the name
// of one of the parents is a name as a whole, whatever it contains.
func splitMean(p *parser, words []textscan.Token, isParent func(string) bool) []piece {
	var out []piece
	for _, t := range words {
		w := p.S.Text(t)
		if isParent(w) {
			out = append(out, piece{t.Off, w, 'v'})
			continue
		}
		for i := 0; i < len(w); {
			c := w[i]
			switch {
			case c == '+' || c == '-' || c == '*':
				out = append(out, piece{t.Off + i, w[i : i+1], c})
				i++
			case c >= '0' && c <= '9' || c == '.':
				j := i
				for j < len(w) && (w[j] >= '0' && w[j] <= '9' || w[j] == '.') {
					j++
				}
				if j < len(w) && (w[j] == 'e' || w[j] == 'E') {
					k := j + 1
					if k < len(w) && (w[k] == '+' || w[k] == '-') {
						k++
					}
					if k < len(w) && w[k] >= '0' && w[k] <= '9' {
						for k < len(w) && w[k] >= '0' && w[k] <= '9' {
							k++
						}
						j = k
					}
				}
				// A number runs into the letters after it (2Y) as one
				// malformed number.
				for j < len(w) && !strings.ContainsRune("+-*", rune(w[j])) {
					j++
				}
				out = append(out, piece{t.Off + i, w[i:j], 'n'})
				i = j
			default:
				j := i
				for j < len(w) && !strings.ContainsRune("+-*", rune(w[j])) {
					j++
				}
				out = append(out, piece{t.Off + i, w[i:j], 'v'})
				i = j
			}
		}
	}
	return out
}

// parseMean reads a mean expression, affine in the continuous parents
// real: a sum of terms, each a product of numbers and at most one parent,
// with + and - between them and an optional sign before each. It returns
// the intercept and one coefficient per parent (0 for a parent the mean
// does not name), or false after reporting an error.
func (p *parser) parseMean(it normalItem, child string, real []ir.VarID, discrete map[string]bool) (float64, []float64, bool) {
	m := p.B.Model()
	index := make(map[string]int, len(real))
	for j, v := range real {
		index[m.Vars[v].Name] = j
	}
	isParent := func(s string) bool {
		_, ok := index[s]
		return ok
	}
	ps := splitMean(p, it.mean, isParent)
	at := func(pc piece) ir.Pos { return p.S.Pos(pc.off) }
	coef := make([]float64, len(real))
	icpt := 0.0
	i := 0
	for {
		sign := 1.0
		for i < len(ps) && (ps[i].kind == '+' || ps[i].kind == '-') {
			if ps[i].kind == '-' {
				sign = -sign
			}
			i++
		}
		val, parent := sign, -1
		for {
			if i >= len(ps) {
				pos := p.S.At(it.kw)
				if len(ps) > 0 {
					pos = at(ps[len(ps)-1])
				}
				p.B.Errorf(pos, "the mean of a normal of %q ends early: expected a number or a continuous parent", child)
				return 0, nil, false
			}
			pc := ps[i]
			switch pc.kind {
			case 'n':
				x, ok := importer.ParseNumber([]byte(pc.text))
				if !ok {
					p.B.Errorf(at(pc), "malformed number %q in the mean of a normal of %q", pc.text, child)
					return 0, nil, false
				}
				val *= x
			case 'v':
				j, ok := index[pc.text]
				switch {
				case !ok && discrete[pc.text]:
					p.B.Errorf(at(pc), "%q is a discrete parent of %q: the mean is linear in the continuous parents only (give one normal per state instead)", pc.text, child)
					return 0, nil, false
				case !ok:
					p.B.Errorf(at(pc), "%q in the mean of a normal of %q is not one of its continuous parents", pc.text, child)
					return 0, nil, false
				case parent >= 0:
					p.B.Errorf(at(pc), "the mean of a normal of %q is not linear: a product of two continuous parents", child)
					return 0, nil, false
				}
				parent = j
			default:
				p.B.Errorf(at(pc), "expected a number or a continuous parent in the mean of a normal of %q, found %q", child, pc.text)
				return 0, nil, false
			}
			i++
			if i < len(ps) && ps[i].kind == '*' {
				i++
				continue
			}
			break
		}
		if parent >= 0 {
			coef[parent] += val
		} else {
			icpt += val
		}
		if i >= len(ps) {
			return icpt, coef, true
		}
		if ps[i].kind != '+' && ps[i].kind != '-' {
			p.B.Errorf(at(ps[i]), "expected +, - or * in the mean of a normal of %q, found %q", child, ps[i].text)
			return 0, nil, false
		}
	}
}

// parseVariance reads the variance of a normal, a positive number, and
// returns its square root.
func (p *parser) parseVariance(it normalItem, child string) (float64, bool) {
	if len(it.vari) != 1 {
		p.B.Errorf(p.S.At(it.vari[0]), "the variance of a normal of %q must be one number", child)
		return 0, false
	}
	t := it.vari[0]
	v, ok := importer.ParseNumber(p.S.Bytes(t))
	if !ok {
		p.B.Errorf(p.S.At(t), "malformed number %s", p.S.Describe(t))
		return 0, false
	}
	if !(v > 0) {
		p.B.Errorf(p.S.At(t), "the variance of a normal of %q is %s: it must be positive (deterministic continuous nodes are not supported)", child, ir.FormatFloat(v))
		return 0, false
	}
	return math.Sqrt(v), true
}

// buildGaussian checks the potential d of the continuous node child and
// sets its conditional linear Gaussian density: one normal per
// configuration of the discrete parents (row-major in the order listed,
// the last fastest), the mean affine in the continuous parents.
func (p *parser) buildGaussian(d *potDecl, child ir.VarID, parents []ir.VarID) {
	b := p.B
	m := b.Model()
	at := p.S.At(d.kw)
	name := m.Vars[child].Name
	fallback := func() { b.SetGaussian(at, child, nil, []float64{0}, []float64{1}) }
	var discrete, real []ir.VarID
	isDiscrete := map[string]bool{}
	for _, v := range parents {
		if m.Vars[v].Discrete() {
			discrete = append(discrete, v)
			isDiscrete[m.Vars[v].Name] = true
		} else {
			real = append(real, v)
		}
	}
	if len(d.vals) > 0 {
		p.B.Errorf(p.S.Pos(d.valOff[0]), "the potential of the continuous node %q lists numbers: expected one normal ( MEAN, VARIANCE ) per configuration of its discrete parents", name)
		fallback()
		return
	}
	rows := 1
	for _, v := range discrete {
		rows = satMul(rows, len(m.Vars[v].States))
	}
	if len(d.normals) != rows {
		p.B.Errorf(p.S.At(d.dataTok), "the data of %q has %s, expected %s (one per configuration of its discrete parents)",
			name, ir.Plural(len(d.normals), "normal"), countText(rows))
		fallback()
		return
	}
	levels := max(len(discrete), 1)
	for _, g := range d.groups {
		if g.depth >= levels {
			p.B.Errorf(p.S.At(g.open), "the data of %q is nested %d levels deep, expected at most %d", name, g.depth+1, levels)
			fallback()
			return
		}
	}
	mean := make([]float64, rows)
	sd := make([]float64, rows)
	coef := make([]float64, 0, rows*len(real))
	ok := true
	for r, it := range d.normals {
		mu, c, okm := p.parseMean(it, name, real, isDiscrete)
		s, okv := p.parseVariance(it, name)
		if !okm || !okv {
			ok = false
			continue
		}
		mean[r], sd[r] = mu, s
		coef = append(coef, c...)
	}
	if !ok {
		fallback()
		return
	}
	if len(real) == 0 {
		b.SetGaussian(at, child, discrete, mean, sd)
		return
	}
	b.SetLinearGaussian(at, child, discrete, real, mean, coef, sd)
}
