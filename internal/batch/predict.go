package batch

import (
	"strconv"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// PredictionHeader appends the header row of a predictions file for the
// class target: row, true, predicted, and P(target=s) for each state s.
func PredictionHeader(buf []byte, m *ir.Model, target ir.VarID) []byte {
	v := m.Vars[target]
	buf = append(buf, "row,true,predicted"...)
	for _, s := range v.States {
		buf = append(buf, ',')
		buf = append(buf, data.Quote("P("+v.Name+"="+s+")")...)
	}
	return append(buf, '\n')
}

// AppendPrediction appends the predictions row of data row i of b, numbered
// row (1-based in its file): the true class (empty if the cell is missing
// or the target has no column), and, if post is not nil, the predicted
// class and the posterior of each class (else empty cells, for a row that
// could not be scored). col is the target's column in b, or -1.
func AppendPrediction(buf []byte, m *ir.Model, target ir.VarID, b *data.Batch, col, i, row int, post []float64) []byte {
	v := m.Vars[target]
	buf = strconv.AppendInt(buf, int64(row), 10)
	buf = append(buf, ',')
	if col >= 0 && b.Cols[col][i] != data.Missing {
		buf = append(buf, data.Quote(v.States[b.Cols[col][i]])...)
	}
	buf = append(buf, ',')
	if post != nil {
		buf = append(buf, data.Quote(v.States[learn.Predicted(post)])...)
	}
	for c := range v.States {
		buf = append(buf, ',')
		if post != nil {
			buf = strconv.AppendFloat(buf, post[c], 'g', -1, 64)
		}
	}
	return append(buf, '\n')
}

// TargetColumn returns the discrete column of target in b, or -1.
func TargetColumn(b *data.Batch, target ir.VarID) int {
	for j, w := range b.Vars {
		if w == target && b.Cols[j] != nil {
			return j
		}
	}
	return -1
}
