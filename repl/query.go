package repl

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// errInterrupted is the error of a query interrupted by Ctrl-C.
var errInterrupted = errors.New("interrupted (the computation finishes in the background and its result is discarded)")

// query answers a parsed query with the session evidence merged in.
func (s *Session) query(g *grammar.Query, src string) {
	if _, err := s.merge(g); err != nil {
		s.report(err, src)
		return
	}
	q, err := ir.LowerQuery(s.model, g)
	if err != nil {
		s.report(err, src)
		if s.incomplete != nil {
			fmt.Fprintf(s.err, "note: declarations are pending until the model is complete:\n%s", indent(s.incomplete.(ir.ErrorList).Lines()))
		}
		return
	}
	res, err := s.answer(q)
	if err != nil {
		if err == errInterrupted {
			fmt.Fprintln(s.err, err)
			return
		}
		s.report(err, src)
		return
	}
	s.print(res)
}

// expect checks an expectation lowered (with the evidence) in lowered,
// whose variables are numbered as the session model's.
func (s *Session) expect(lowered *ir.Model, e *grammar.Expect, src string) {
	want := ir.Pos{File: InputName, Line: e.Pos.Line, Col: e.Pos.Column}
	var st *ir.ExpectStmt
	for _, x := range lowered.Stmts {
		if x, ok := x.(*ir.ExpectStmt); ok && x.Pos == want {
			st = x
		}
	}
	if st == nil {
		s.errorf("%s: internal error: expectation not found after lowering", want)
		return
	}
	res, err := s.answer(st.Query)
	if err != nil {
		if err == errInterrupted {
			fmt.Fprintln(s.err, err)
			return
		}
		s.report(err, src)
		return
	}
	if err := pbl.Check(s.model, st, res); err != nil {
		s.report(err, src)
		return
	}
	s.note("ok: %s", st.Query.Text)
}

// answer answers q on the session model, in a goroutine when the session
// can be interrupted: Answer cannot be cancelled, so on an interrupt the
// session stops waiting and the computation's result is discarded.
func (s *Session) answer(q *ir.Query) (*infer.Result, error) {
	m, opt, fn := s.model, s.opt, s.answerFn
	s.last = q
	if s.cfg.Interrupt == nil {
		return fn(m, q, opt)
	}
	type result struct {
		res *infer.Result
		err error
	}
	done := make(chan result, 1)
	intr, stop := s.cfg.Interrupt()
	defer stop()
	go func() {
		res, err := fn(m, q, opt)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-intr:
		return nil, errInterrupted
	}
}

// print writes a result: JSON, the table `pbl query` prints, or
// interactively that table with bars.
func (s *Session) print(res *infer.Result) {
	if s.json {
		if err := report.JSON(s.out, s.model, res); err != nil {
			s.report(err, "")
		}
		return
	}
	if s.cfg.Interactive {
		writeBars(s.out, s.model, res)
		return
	}
	if s.printed {
		fmt.Fprintln(s.out)
	}
	s.printed = true
	report.Text(s.out, s.model, res)
}

// addition is an evidence term the session adds to a query.
type addition struct {
	name, state string // state "" for indep's conditioning set
}

// merge adds the session evidence to g, returning what it added. It
// refuses a query that gives an observed variable another state, asks
// about it, or conditions on each of its states.
func (s *Session) merge(g *grammar.Query) ([]addition, error) {
	if len(s.evid) == 0 {
		return nil, nil
	}
	var errs ir.ErrorList
	var adds []addition
	for _, o := range s.evid {
		fix := fmt.Sprintf("(:unobserve %s first)", ir.Quote(o.name))
		found := false
		check := func(t *grammar.Term, evidence bool) {
			if t.Name != nil && t.Name.Text() == o.name {
				found = true
				switch {
				case evidence && t.State != nil && t.State.Text() == o.state:
					// the same observation: harmless
				case evidence && t.State != nil:
					errs.Add(pos(t.Pos), "%s is given %s=%s here but observed as %s=%s in this session %s",
						ir.Quote(o.name), ir.Quote(o.name), ir.Quote(t.State.Text()), ir.Quote(o.name), ir.Quote(o.state), fix)
				default:
					errs.Add(pos(t.Pos), "%s is observed as %s=%s in this session %s", ir.Quote(o.name), ir.Quote(o.name), ir.Quote(o.state), fix)
				}
			}
			for _, n := range t.Group {
				if n.Text() == o.name {
					found = true
					errs.Add(pos(n.Pos), "%s is observed as %s=%s in this session %s", ir.Quote(o.name), ir.Quote(o.name), ir.Quote(o.state), fix)
				}
			}
		}
		switch g.Kind {
		case "indep":
			for _, t := range g.Targets {
				check(t, false)
			}
			for _, t := range g.Given {
				if t.Name != nil && t.Name.Text() == o.name && t.State == nil {
					found = true
					continue
				}
				for _, n := range t.Group {
					if n.Text() == o.name {
						found = true
					}
				}
			}
		case "MPE":
			for _, t := range g.Targets {
				check(t, true)
			}
		default:
			for _, t := range g.Targets {
				check(t, false)
			}
			for _, t := range g.Given {
				check(t, true)
			}
		}
		if found {
			continue
		}
		a := addition{name: o.name, state: o.state}
		if g.Kind == "indep" {
			a.state = ""
		}
		adds = append(adds, a)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	for _, a := range adds {
		t := &grammar.Term{Pos: g.Pos, Name: &grammar.Name{Pos: g.Pos, Quoted: a.name}}
		if a.state != "" {
			t.State = &grammar.Name{Pos: g.Pos, Quoted: a.state}
		}
		if g.Kind == "MPE" {
			g.Targets = append(g.Targets, t)
		} else {
			g.Bar = true
			g.Given = append(g.Given, t)
		}
	}
	return adds, nil
}

func pos(p lexer.Position) ir.Pos { return ir.Pos{File: p.Filename, Line: p.Line, Col: p.Column} }

// textInsert is text to insert at a byte offset of a chunk.
type textInsert struct {
	off  int
	text string
}

// evidenceInserts checks the session evidence against the queries of f's
// expectations and returns the text that writes it into them: ", X=x"
// (or " | X=x") before each query's closing parenthesis. src is the
// chunk's text, whose first line is the input line s.start.
func (s *Session) evidenceInserts(f *grammar.File, src string) ([]textInsert, error) {
	if len(s.evid) == 0 {
		return nil, nil
	}
	pad := s.start - 1 // the parsed text began with this many newlines
	var ins []textInsert
	var errs ir.ErrorList
	for _, st := range f.Stmts {
		e, ok := st.(*grammar.Expect)
		if !ok {
			continue
		}
		g := e.Query
		hadTerms := len(g.Targets) > 0
		bar := g.Bar
		adds, err := s.merge(g)
		if err != nil {
			errs = append(errs, err.(ir.ErrorList)...)
			continue
		}
		if len(adds) == 0 {
			continue
		}
		off := closeParen(src, g.Pos.Offset-pad)
		if off < 0 {
			continue
		}
		var parts []string
		for _, a := range adds {
			p := ir.Quote(a.name)
			if a.state != "" {
				p += "=" + ir.Quote(a.state)
			}
			parts = append(parts, p)
		}
		text := strings.Join(parts, ", ")
		switch {
		case g.Kind == "MPE" && hadTerms, g.Kind != "MPE" && bar:
			text = ", " + text
		case g.Kind != "MPE":
			if hadTerms {
				text = " | " + text
			} else {
				text = "| " + text
			}
		}
		ins = append(ins, textInsert{off, text})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return ins, nil
}

// closeParen returns the offset in src of the ")" that closes the query
// starting at offset from, or -1.
func closeParen(src string, from int) int {
	if from < 0 || from > len(src) {
		return -1
	}
	sc := grammar.NewScanner(InputName, src[from:])
	for {
		t, err := sc.Next()
		if err != nil || t.Type == grammar.EOF {
			return -1
		}
		if t.Type == grammar.Punct && t.Value == ")" {
			return from + t.Pos.Offset
		}
	}
}

// insert applies inserts to src.
func insert(src string, ins []textInsert) string {
	sort.Slice(ins, func(i, j int) bool { return ins[i].off > ins[j].off })
	for _, in := range ins {
		src = src[:in.off] + in.text + src[in.off:]
	}
	return src
}
