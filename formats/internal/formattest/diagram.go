package formattest

import "github.com/pbl-lang/pbl/ir"

// InfluenceDiagram builds the test-and-treat influence diagram of
// examples/treat.pbl with ir.Builder, positioned in the file "treat.pbl":
// chance variables Disease and Test, the decision Treat taken knowing
// Test (line 3), and the utility Cost(Treat, Disease) (line 5), for the
// tests of formats that refuse or draw influence diagrams.
func InfluenceDiagram() *ir.Model {
	at := func(line int) ir.Pos { return ir.Pos{File: "treat.pbl", Line: line, Col: 1} }
	b := ir.NewBuilder("treat.pbl")
	disease, _ := b.AddVar(at(1), "Disease", ir.Enum, []string{"present", "absent"}, 0)
	test, _ := b.AddVar(at(2), "Test", ir.Enum, []string{"positive", "negative"}, 0)
	treat, _ := b.AddDecision(at(3), "Treat", ir.Enum, []string{"yes", "no"}, 0)
	b.SetCPT(at(1), disease, nil, []float64{0.1, 0.9}, nil)
	b.SetCPT(at(2), test, []ir.VarID{disease}, []float64{0.9, 0.1, 0.2, 0.8}, nil)
	b.SetInformation(at(4), treat, []ir.VarID{test})
	b.AddUtility(at(5), "Cost", []ir.VarID{treat, disease}, []float64{80, -20, -100, 0})
	m, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return m
}
