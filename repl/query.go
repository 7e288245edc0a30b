package repl

import (
	"context"
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
	if s.model.Time != nil {
		// A time-indexed model is unrolled as far as the query names
		// (ir.Unroll shares the numbers of the slices it copies).
		m, err := ir.Unroll(s.model, ir.SliceHorizon(g))
		if err != nil {
			s.report(err, src)
			return
		}
		s.model = m
	}
	q, err := ir.LowerQuery(s.model, g)
	if err != nil {
		s.report(err, src)
		return
	}
	s.ask(q, src)
}

// ask answers a query of the session model with the session evidence
// added to it.
func (s *Session) ask(q ir.Query, src string) {
	if byRoot(q) {
		q, err := s.withDecisionSession(q)
		if err != nil {
			s.report(err, src)
			return
		}
		a, err := s.answerHyp(q)
		if err != nil {
			s.report(err, src)
			return
		}
		s.printAnswer(a)
		return
	}
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
	if byRoot(e.Query) {
		q, err := s.withDecisionSession(e.Query)
		if err != nil {
			s.report(err, src)
			return
		}
		a, err := s.answerHyp(q)
		if err != nil {
			s.report(err, src)
			return
		}
		st := *e // the lowered statement is the model's: check a copy
		st.Query = q
		if fail := pbl.CheckAnswer(s.model, &st, a); fail != nil {
			s.report(fail, src)
			return
		}
		s.note("ok: %s", e.Query.Head().Text)
		return
	}
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
	s.note("ok: %s", q.Head().Text)
}

// answer answers q on the session model. When the session can be
// interrupted, the query runs in a goroutine with a cancel channel: an
// interrupt cancels it (infer stops within about a tenth of a second) and
// answer returns once it has stopped, so that no interrupted query goes on
// working, or holding memory, in the background.
func (s *Session) answer(q ir.Query) (infer.Result, error) {
	m, opt, fn := s.model, s.opt, s.answerFn
	s.last = q
	if s.cfg.Interrupt == nil {
		return fn(m, q, opt)
	}
	type result struct {
		res infer.Result
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
func (s *Session) print(res infer.Result) {
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

// answerHyp answers a query about hypotheses given data: the session's
// evidence does not apply (the data are the evidence). An interrupt
// cancels it.
func (s *Session) answerHyp(q ir.Query) (*pbl.Answer, error) {
	s.last = q
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if s.cfg.Interrupt != nil {
		intr, stop := s.cfg.Interrupt()
		defer stop()
		go func() {
			select {
			case <-intr:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	a, err := pbl.AnswerQuery(s.model, q, pbl.AnswerOptions{Infer: s.opt, Context: ctx})
	if err != nil && ctx.Err() != nil {
		return nil, errInterrupted
	}
	return a, err
}

// printAnswer writes an answer about hypotheses, as print writes a
// result.
func (s *Session) printAnswer(a *pbl.Answer) {
	if s.json {
		if err := a.JSON(s.out, s.model); err != nil {
			s.report(err, "")
		}
		return
	}
	if s.printed {
		fmt.Fprintln(s.out)
	}
	s.printed = true
	a.Text(s.out, s.model)
}

// withDecisionSession returns a query about decisions with the session
// evidence added (a decision observed is set, a chance variable a fact
// known before every decision, as after the query's bar); any other
// query the root package answers (about hypotheses given data) as it
// is, its data being its evidence.
func (s *Session) withDecisionSession(q ir.Query) (ir.Query, error) {
	if _, ok := q.(*ir.DecisionQuery); !ok {
		return q, nil
	}
	return s.withSession(q)
}

// byRoot reports whether q is answered by the root package rather than
// the engines (a query about hypotheses given data, without the session
// evidence; about decisions, with it; or a causal question, without it).
func byRoot(q ir.Query) bool {
	_, decision := q.(*ir.DecisionQuery)
	_, cause := q.(*ir.CausalQuery)
	return decision || cause || ir.HypOf(q) != nil
}
