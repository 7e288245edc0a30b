package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// maxHoverRows is the most rows of a table a hover shows.
const maxHoverRows = 16

// hoverTimeout bounds the time a hover spends answering a query: the
// server answers one message at a time, so a query of any cost would
// hold up every keystroke's diagnostics behind it. A query that takes
// longer is for pbl run or pbl query.
var hoverTimeout = 2 * time.Second

// hover describes what is at byte offset off: a variable (its states,
// parents and table), or the query or expectation of that line (its
// answer, when the text has no errors). It returns nil over anything else.
func (d *document) hover(off int) *Hover {
	word, start := d.text.wordAt(off)
	m := d.bestModel()
	if m != nil && word != "" {
		if v, ok := m.Lookup(word); ok {
			r := Range{Start: d.text.position(start), End: d.text.position(start + len(word))}
			return &Hover{Contents: MarkupContent{Kind: "markdown", Value: describeVar(m, v)}, Range: &r}
		}
		if text, end := d.describeSlice(m, word, start+len(word)); text != "" {
			r := Range{Start: d.text.position(start), End: d.text.position(end)}
			return &Hover{Contents: MarkupContent{Kind: "markdown", Value: text}, Range: &r}
		}
	}
	if d.model != nil {
		if text := d.answerAt(d.text.position(off).Line + 1); text != "" {
			return &Hover{Contents: MarkupContent{Kind: "markdown", Value: text}}
		}
	}
	return nil
}

// describeSlice is the hover text of a time-indexed variable's name with
// its index, which starts at byte offset at: Rain[3] is that slice's
// variable, Rain[t] (or Rain[t-1]) the template, described by the first
// slice that has the template's numbers. end is the index's end.
func (d *document) describeSlice(m *ir.Model, base string, at int) (text string, end int) {
	if m.Time == nil {
		return "", 0
	}
	tv := m.Time.Var(base)
	src := d.text.src
	if tv == nil || at >= len(src) || src[at] != '[' {
		return "", 0
	}
	close := strings.IndexByte(src[at:], ']')
	if close < 0 {
		return "", 0
	}
	idx := strings.ReplaceAll(src[at+1:at+close], " ", "")
	end = at + close + 1
	if s, err := strconv.Atoi(idx); err == nil {
		if s >= 0 && s < len(tv.Slices) {
			return describeVar(m, m.Vars[tv.Slices[s]]), end
		}
		return fmt.Sprintf("**%s[%d]**: beyond the slices unrolled, 0..%d (a query naming it unrolls further)", base, s, m.Time.Horizon), end
	}
	s := max(tv.First, 0)
	head := fmt.Sprintf("**%s[t]**: time-indexed, slices 0..%d unrolled; ", base, m.Time.Horizon)
	if tv.First >= 0 {
		head += fmt.Sprintf("its template applies from slice %d, shown there:\n\n", tv.First)
	} else {
		head += "no template distribution yet; slice 0:\n\n"
	}
	return head + describeVar(m, m.Vars[tv.Slices[s]]), end
}

// describeVar is a variable's hover text.
func describeVar(m *ir.Model, v *ir.Variable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s", v.Name, v.Domain())
	if ps := m.Parents[v.ID]; len(ps) > 0 {
		fmt.Fprintf(&b, "\n\nparents: %s", m.NameList(ps, len(ps)))
	}
	if ch := m.Children()[v.ID]; len(ch) > 0 {
		fmt.Fprintf(&b, "\n\nchildren: %s", m.NameList(ch, len(ch)))
	}
	if v.Discrete() && m.Dists[v.ID] != nil {
		if t := m.Table(v.ID); t != nil {
			b.WriteString("\n\n```\n")
			writeTable(&b, m, t)
			b.WriteString("```")
		}
	}
	if m.Dists[v.ID] == nil && v.Discrete() {
		b.WriteString("\n\n(no distribution yet: learned from data)")
	}
	return b.String()
}

// writeTable writes a conditional table, a row per parent configuration
// (the first parent slowest), at most maxHoverRows rows.
func writeTable(b *strings.Builder, m *ir.Model, t *ir.CPT) {
	f := t.Factor
	child := m.Vars[t.Child]
	stride := func(v ir.VarID) int {
		for i, x := range f.Vars {
			if x == v {
				return f.Stride[i]
			}
		}
		return 0
	}
	var tab report.Table
	head := make([]string, 0, len(t.Parents)+child.Card())
	for _, p := range t.Parents {
		head = append(head, m.Vars[p].Name)
	}
	for _, s := range child.States {
		head = append(head, child.Name+"="+s)
	}
	tab.Add(head...)
	conf := make([]int, len(t.Parents))
	rows := 0
	for {
		if rows == maxHoverRows {
			tab.Add("…")
			break
		}
		base := 0
		cells := make([]string, 0, len(head))
		for i, p := range t.Parents {
			base += conf[i] * stride(p)
			cells = append(cells, m.Vars[p].States[conf[i]])
		}
		for s := range child.States {
			cells = append(cells, report.Num(f.Vals[base+s*stride(t.Child)]))
		}
		tab.Add(cells...)
		rows++
		// the next configuration, the last parent fastest
		i := len(conf) - 1
		for ; i >= 0; i-- {
			conf[i]++
			if conf[i] < m.Vars[t.Parents[i]].Card() {
				break
			}
			conf[i] = 0
		}
		if i < 0 {
			break
		}
	}
	tab.Write(b)
}

// answering counts the answers under way (answerWithin's goroutines),
// those whose hover has had its reply included: the tests check that the
// work stops.
var answering atomic.Int32

// answerWithin answers q on m within limit: the answer, or timedOut
// when the limit passed first. The answer is computed on another
// goroutine, cancelled at the limit (pbl.AnswerOptions.Context,
// infer.Options.Cancel): the reply comes at the limit whatever the
// answer is doing, and the work stops soon after (it checks the context
// every few thousand rows, hypotheses or inferences). One answer of the
// document runs at a time: a new one waits for the one before to stop,
// within the limit.
func (d *document) answerWithin(m *ir.Model, q ir.Query, limit time.Duration) (a *pbl.Answer, timedOut bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if d.answered != nil {
		select {
		case <-d.answered:
		case <-ctx.Done():
			return nil, true, ctx.Err() // the one before has not stopped yet
		}
	}
	type result struct {
		a   *pbl.Answer
		err error
	}
	ch, done := make(chan result, 1), make(chan struct{})
	d.answered = done
	answering.Add(1)
	go func() {
		defer close(done)
		defer answering.Add(-1)
		a, err := pbl.AnswerQuery(m, q, pbl.AnswerOptions{Context: ctx, Infer: infer.Options{Cancel: ctx.Done()}, RegularFilesOnly: true})
		ch <- result{a, err}
	}()
	select {
	case r := <-ch:
		return r.a, r.err != nil && ctx.Err() != nil, r.err
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// answerAt answers the query or expectation statement on a line (from
// one) of this document, as `pbl run` prints it, or returns "".
func (d *document) answerAt(line int) string {
	for _, s := range d.model.Stmts {
		var q ir.Query
		var pos ir.Pos
		switch s := s.(type) {
		case *ir.QueryStmt:
			q, pos = s.Query, s.Pos
		case *ir.ExpectStmt:
			q, pos = s.Query, s.Pos
		default:
			continue
		}
		if pos.Line != line || pos.File != "" && filepath.Clean(pos.File) != filepath.Clean(d.path) {
			continue
		}
		a, timedOut, err := d.answerWithin(d.model, q, hoverTimeout)
		if timedOut || err != nil && (errors.Is(err, infer.ErrCanceled) || errors.Is(err, context.DeadlineExceeded)) {
			return fmt.Sprintf("`%s` takes longer than %v to answer: run it with `pbl run` or `pbl query`", q.Head().Text, hoverTimeout)
		}
		if err != nil {
			return fmt.Sprintf("`%s`: %v", q.Head().Text, errorList(err)[0].Msg)
		}
		var buf bytes.Buffer
		a.Text(&buf, d.model)
		return "```\n" + strings.TrimRight(buf.String(), "\n") + "\n```"
	}
	return ""
}
