package infer_test

import (
	"errors"
	"fmt"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// rainModel builds Rain -> Wet: P(Rain) = 0.2, P(Wet | Rain) = 0.9,
// P(Wet | not Rain) = 0.1.
func rainModel() *ir.Model {
	b := ir.NewBuilder("rain.pbl")
	rain, _ := b.AddVar(ir.Pos{}, "Rain", ir.Bool, nil, 0)
	wet, _ := b.AddVar(ir.Pos{}, "Wet", ir.Bool, nil, 0)
	b.SetCPT(ir.Pos{}, rain, nil, []float64{0.2, 0.8}, nil)
	b.SetCPT(ir.Pos{}, wet, []ir.VarID{rain}, []float64{0.9, 0.1, 0.1, 0.9}, nil)
	m, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return m
}

func ExamplePosterior() {
	m := rainModel()
	p, err := infer.Posterior(m, 0, []ir.Obs{{Var: 1, State: 0}}, infer.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(Rain | Wet=true) = %.4f\n", p)
	// Output: P(Rain | Wet=true) = [0.6923 0.3077]
}

func ExampleLogPE() {
	m := rainModel()
	lp, err := infer.LogPE(m, []ir.Obs{{Var: 1, State: 0}}, infer.Options{})
	fmt.Printf("ln P(Wet=true) = %.4f, %v\n", lp, err)
	// Impossible evidence is an error that programs test for by kind.
	b := ir.NewBuilder("sure.pbl")
	x, _ := b.AddVar(ir.Pos{}, "X", ir.Bool, nil, 0)
	b.SetCPT(ir.Pos{}, x, nil, []float64{1, 0}, nil)
	sure, _ := b.Finish()
	lp, err = infer.LogPE(sure, []ir.Obs{{Var: x, State: 1}}, infer.Options{})
	fmt.Println(lp, errors.Is(err, infer.ErrImpossible), err)
	// Output:
	// ln P(Wet=true) = -1.3471, <nil>
	// -Inf true sure.pbl: impossible evidence: P(X=false) = 0
}

func ExampleJTree_Expect() {
	m := rainModel()
	jt, err := infer.Compile(m, infer.Options{})
	if err != nil {
		panic(err)
	}
	// Four rows of (Rain, Wet); -1 is a missing cell. Rows 1 and 3 have
	// the same evidence and are calibrated once.
	rows := [][]int{{-1, 0}, {0, 0}, {-1, 0}, {1, -1}}
	acc := make([][]float64, len(m.Vars))
	for v := range acc {
		acc[v] = make([]float64, len(m.Factor(ir.VarID(v)).Vals))
	}
	st, err := jt.Expect(rows, nil, acc)
	if err != nil {
		panic(err)
	}
	fmt.Printf("expected counts of Rain: %.4f\n", acc[0])
	fmt.Printf("expected counts of (Rain, Wet): %.4f\n", acc[1])
	fmt.Printf("%d rows, %d impossible, log-likelihood %.4f\n", st.Rows, st.Impossible, st.LogLik)
	// Output:
	// expected counts of Rain: [2.3846 1.6154]
	// expected counts of (Rain, Wet): [2.3846 0.0000 0.7154 0.9000]
	// 4 rows, 0 impossible, log-likelihood -4.6321
}
