package uai_test

import (
	"fmt"
	"math"
	"os"

	"github.com/pbl-lang/pbl/formats/uai"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// Read a Markov network and its evidence, and print log10 Z(e) and the
// marginals in the competition's formats.
func Example() {
	m, err := uai.Read("chain.uai", []byte(`MARKOV
3
2 2 2
2
2 0 1
2 1 2
4 1 2 2 1
4 3 1 1 3
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ev, err := uai.ReadEvidence("chain.uai.evid", []byte("1 2 0"), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	pr, err := infer.Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}}, infer.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	uai.WritePR(os.Stdout, pr.(*infer.Evidence).LogZ/math.Ln10) // log10 Z(X2=0) = log10 12
	mar, err := infer.Answer(m, &ir.ProbQuery{Conditions: ir.Conditions{Evidence: ev}, Star: true}, infer.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := [][]float64{mar.(*infer.Marginals).Marginals[0].P, mar.(*infer.Marginals).Marginals[1].P, {1, 0}}
	uai.WriteMAR(os.Stdout, out)
	// Output:
	// PR
	// 1.0791812460476247
	// MAR
	// 3 2 0.4166666666666667 0.5833333333333334 2 0.75 0.25 2 1 0
}
