package repl

import (
	"errors"
	"fmt"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// errInterrupted is the error of a query interrupted by Ctrl-C.
var errInterrupted = errors.New("interrupted")

// query lowers a parsed query against the session model and answers it
// with the session evidence.
func (s *Session) query(g *grammar.Query, src string) {
	q, err := ir.LowerQuery(s.model, g)
	if err != nil {
		s.report(err, src)
		return
	}
	s.ask(q, src)
}

// ask answers a query of the session model with the session evidence
// added to it.
func (s *Session) ask(q *ir.Query, src string) {
	q, err := s.withSession(q)
	if err != nil {
		s.report(err, src)
		return
	}
	res, err := s.answer(q)
	if err != nil {
		s.report(err, src)
		return
	}
	s.print(res)
}

// expect checks an expectation of the session model, its query asked
// with the session evidence.
func (s *Session) expect(e *ir.ExpectStmt, src string) {
	q, err := s.withSession(e.Query)
	if err != nil {
		s.report(err, src)
		return
	}
	st := *e // the lowered statement is the model's: check a copy
	st.Query = q
	res, err := s.answer(q)
	if err != nil {
		s.report(err, src)
		return
	}
	if err := pbl.Check(s.model, &st, res); err != nil {
		s.report(err, src)
		return
	}
	s.note("ok: %s", q.Text)
}

// answer answers q on the session model. When the session can be
// interrupted, the query runs in a goroutine with a cancel channel: an
// interrupt cancels it (infer stops within about a tenth of a second) and
// answer returns once it has stopped, so that no interrupted query goes on
// working, or holding memory, in the background.
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
	cancel := make(chan struct{})
	opt.Cancel = cancel
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
		close(cancel)
		<-done
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
