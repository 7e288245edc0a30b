package batch

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
)

// Evidence returns the observations of row i of b: the state of each
// non-missing discrete cell and the value of each non-missing real cell.
func Evidence(b *data.Batch, i int) ([]ir.Obs, []ir.RealObs) {
	var ev []ir.Obs
	var real []ir.RealObs
	for j, v := range b.Vars {
		switch {
		case b.Cols[j] != nil:
			if s := b.Cols[j][i]; s != data.Missing {
				ev = append(ev, ir.Obs{Var: v, State: int(s)})
			}
		case j < len(b.Reals) && b.Reals[j] != nil:
			if x := b.Reals[j][i]; !math.IsNaN(x) {
				real = append(real, ir.RealObs{Var: v, Value: x})
			}
		}
	}
	return ev, real
}

// AppendAnswers appends the output line of data row i of b, numbered row
// in its file: the answer of each query given the row's cells as
// evidence (see the package doc).
func AppendAnswers(buf []byte, m *ir.Model, queries []ir.Query, b *data.Batch, i, row int, opt pbl.AnswerOptions) []byte {
	ev, real := Evidence(b, i)
	buf = append(buf, `{"row":`...)
	buf = strconv.AppendInt(buf, int64(row), 10)
	buf = append(buf, `,"answers":[`...)
	var out bytes.Buffer
	for k, q := range queries {
		if k > 0 {
			buf = append(buf, ',')
		}
		out.Reset()
		err := answer(&out, m, q, ev, real, opt)
		if err != nil {
			msg, _ := json.Marshal(strings.TrimSpace(err.Error()))
			buf = append(buf, `{"error":`...)
			buf = append(buf, msg...)
			buf = append(buf, '}')
			continue
		}
		buf = append(buf, bytes.TrimSpace(out.Bytes())...)
	}
	return append(buf, "]}\n"...)
}

// answer writes the JSON answer of q given the evidence.
func answer(w *bytes.Buffer, m *ir.Model, q ir.Query, ev []ir.Obs, real []ir.RealObs, opt pbl.AnswerOptions) error {
	q, err := ir.WithRowEvidence(m, q, ev)
	if err != nil {
		return err
	}
	if q, err = ir.WithRowRealEvidence(m, q, real); err != nil {
		return err
	}
	a, err := pbl.AnswerQuery(m, q, opt)
	if err != nil {
		return err
	}
	return a.JSON(w, m)
}
