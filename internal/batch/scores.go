package batch

import (
	"fmt"
	"io"
	"strconv"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/report"
)

// ScoresJSON returns the JSON object of a classifier's scores on the
// target, as pbl classify --json prints it (without cross-validation's
// folds, which the command adds): the counts of rows, accuracy, log loss,
// macro F1, the confusion matrix and each class's precision, recall, F1
// and support.
func ScoresJSON(m *ir.Model, target ir.VarID, mt *learn.Metrics) *report.Object {
	o := &report.Object{}
	o.Set("target", m.Vars[target].Name)
	o.Set("rows", mt.N+mt.Skipped+mt.Unlabelled)
	o.Set("scored", mt.N)
	o.Set("skipped", mt.Skipped)
	o.Set("unlabelled", mt.Unlabelled)
	o.Set("accuracy", report.Float(mt.Accuracy))
	o.Set("log_loss", report.Float(mt.LogLoss))
	o.Set("macro_f1", report.Float(mt.MacroF1))
	conf := &report.Object{}
	conf.Set("classes", mt.Classes)
	conf.Set("matrix", mt.Confusion)
	o.Set("confusion", conf)
	per := &report.Object{}
	for c, name := range mt.Classes {
		pc := &report.Object{}
		pc.Set("precision", report.Float(mt.Precision[c]))
		pc.Set("recall", report.Float(mt.Recall[c]))
		pc.Set("f1", report.Float(mt.F1[c]))
		pc.Set("support", mt.Support[c])
		per.Set(name, pc)
	}
	o.Set("per_class", per)
	return o
}

// ScoresText prints a classifier's scores on the target for people, as
// pbl classify does: with folds (cross-validation with the seed), each
// metric as its mean ± sd over them. hint, if not empty, is printed under
// the metrics.
func ScoresText(w io.Writer, m *ir.Model, target ir.VarID, mt *learn.Metrics, folds []*learn.Metrics, seed uint64, hint string) {
	v := m.Vars[target]
	var s *learn.Summary
	if folds != nil {
		s = learn.Summarize(folds)
		fmt.Fprintf(w, "%d-fold stratified cross-validation of %s (seed %d)\n", len(folds), v.Name, seed)
	} else {
		fmt.Fprintf(w, "classification of %s\n", v.Name)
	}
	rows := fmt.Sprintf("%d scored", mt.N)
	if mt.Skipped > 0 {
		rows += fmt.Sprintf(", %d skipped (impossible under the model)", mt.Skipped)
	}
	if mt.Unlabelled > 0 {
		rows += fmt.Sprintf(", %d without a %s", mt.Unlabelled, v.Name)
	}
	var t report.Table
	t.Add("  rows", rows)
	metric := func(name string, x float64, fold func(*learn.Summary) learn.Stat) {
		if s == nil {
			t.Add("  "+name, report.Num(x))
			return
		}
		st := fold(s)
		t.Add("  "+name, report.Num(st.Mean)+" ± "+report.Num(st.SD))
	}
	metric("accuracy", mt.Accuracy, func(s *learn.Summary) learn.Stat { return s.Accuracy })
	metric("log loss", mt.LogLoss, func(s *learn.Summary) learn.Stat { return s.LogLoss })
	metric("macro F1", mt.MacroF1, func(s *learn.Summary) learn.Stat { return s.MacroF1 })
	t.Write(w)
	if hint != "" {
		fmt.Fprintln(w, "  "+hint)
	}

	fmt.Fprintln(w)
	if folds != nil {
		fmt.Fprintln(w, "confusion matrix of the out-of-fold predictions (rows: true, columns: predicted)")
	} else {
		fmt.Fprintln(w, "confusion matrix (rows: true, columns: predicted)")
	}
	t = report.Table{Right: true}
	head := []string{"  " + v.Name}
	head = append(head, mt.Classes...)
	t.Add(head...)
	for i, row := range mt.Confusion {
		cells := []string{"  " + mt.Classes[i]}
		for _, x := range row {
			cells = append(cells, strconv.Itoa(x))
		}
		t.Add(cells...)
	}
	t.Write(w)

	fmt.Fprintln(w)
	if folds != nil {
		fmt.Fprintln(w, "per class (mean ± sd over the folds; support: rows in all folds)")
	} else {
		fmt.Fprintln(w, "per class")
	}
	t = report.Table{}
	t.Add("  "+v.Name, "precision", "recall", "F1", "support")
	for c, name := range mt.Classes {
		cell := func(x float64, st []learn.Stat) string {
			if s == nil {
				return report.Num(x)
			}
			return report.Num(st[c].Mean) + " ± " + report.Num(st[c].SD)
		}
		var ps, rs, fs []learn.Stat
		if s != nil {
			ps, rs, fs = s.Precision, s.Recall, s.F1
		}
		t.Add("  "+name, cell(mt.Precision[c], ps), cell(mt.Recall[c], rs), cell(mt.F1[c], fs), strconv.Itoa(mt.Support[c]))
	}
	t.Write(w)
}
