package batch

import (
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
