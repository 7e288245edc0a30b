package pbl

import (
	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// LearnCSV learns m's numbers from the CSV file at path by the named
// method with its default options, as `pbl learn MODEL --data CSV --method
// METHOD` does, and returns the learned model (m is not changed). The
// methods are those of learn.Methods: "mle", "bayes", "mestimate", "em",
// "gradient"; the CSV's header names the model's variables, and an empty
// cell is a missing value. Programs that set a method's options call
// learn.ParseOptions and learn.Learn.
func LearnCSV(m *ir.Model, path, method string) (*ir.Model, error) {
	// The method is an argument, not a place in a model file: its errors
	// are LearnCSV's ("pbl.LearnCSV: unknown learning method …").
	opt, err := learn.ParseOptions(method, ir.Pos{File: "pbl.LearnCSV"}, nil)
	if err != nil {
		return nil, err
	}
	out, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) { return data.Open(path, m, data.Options{}) }, opt)
	return out, err
}
