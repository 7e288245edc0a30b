package structure_test

import (
	"bytes"
	"fmt"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/formats/bif"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/sample"
	"github.com/pbl-lang/pbl/structure"
)

// sprinkler is a small network: cloudy weather makes the sprinkler less
// likely and rain more; either wets the grass.
const sprinkler = `network sprinkler {}
variable cloudy { type discrete [ 2 ] { yes, no }; }
variable sprinkler { type discrete [ 2 ] { on, off }; }
variable rain { type discrete [ 2 ] { yes, no }; }
variable wet { type discrete [ 2 ] { yes, no }; }
probability ( cloudy ) { table 0.5, 0.5; }
probability ( sprinkler | cloudy ) { (yes) 0.1, 0.9; (no) 0.5, 0.5; }
probability ( rain | cloudy ) { (yes) 0.8, 0.2; (no) 0.2, 0.8; }
probability ( wet | sprinkler, rain ) {
  (on, yes) 0.99, 0.01; (off, yes) 0.9, 0.1; (on, no) 0.9, 0.1; (off, no) 0.01, 0.99;
}
`

// sampleSprinkler returns the sprinkler network and n rows sampled from
// it (seed 1, no cell missing), as the data structure learns from.
func sampleSprinkler(n int) (*ir.Model, *structure.Data) {
	truth, err := bif.Read("sprinkler.bif", []byte(sprinkler))
	if err != nil {
		panic(err)
	}
	var csv bytes.Buffer
	if err := sample.WriteCSV(&csv, truth, n, 1, 0); err != nil {
		panic(err)
	}
	rows, err := data.ReadAll("sprinkler.csv", &csv, truth, data.Options{})
	if err != nil {
		panic(err)
	}
	d, err := structure.FromBatch(truth, rows)
	if err != nil {
		panic(err)
	}
	return truth, d
}

// Learn the sprinkler network's graph back from 5,000 rows sampled from
// it, and compare it with the truth.
func ExampleHillClimb() {
	truth, d := sampleSprinkler(5000)
	res, err := structure.HillClimb(structure.NewScorer(d, structure.BIC, 1), nil, structure.Options{Tabu: 10})
	if err != nil {
		panic(err)
	}
	for _, e := range res.DAG.Edges() {
		fmt.Println(d.Names[e[0]], "->", d.Names[e[1]])
	}
	diff := structure.Compare(structure.CPDAGOf(structure.FromModel(truth)), structure.CPDAGOf(res.DAG))
	fmt.Println("SHD to the truth:", diff.SHD)
	// Output:
	// cloudy -> sprinkler
	// cloudy -> rain
	// sprinkler -> wet
	// rain -> wet
	// SHD to the truth: 0
}

// How sure is each edge? Learn from 20 resamples of 500 rows of the
// sprinkler network and count.
func ExampleBootstrap() {
	_, d := sampleSprinkler(500)
	learn := func(r *structure.Data) (*structure.DAG, [][2]int, error) {
		res, err := structure.HillClimb(structure.NewScorer(r, structure.BIC, 1), nil, structure.Options{Tabu: 10, Workers: 1})
		if err != nil {
			return nil, nil, err
		}
		return res.DAG, nil, nil
	}
	strengths, err := structure.Bootstrap(d, 20, 1, 2, learn)
	if err != nil {
		panic(err)
	}
	fmt.Println("strength forward backward")
	for _, st := range strengths {
		fmt.Printf("%.2f     %.2f    %.2f     %s -> %s\n", st.Strength, st.Forward, st.Backward, d.Names[st.From], d.Names[st.To])
	}
	// Output:
	// strength forward backward
	// 1.00     0.95    0.05     cloudy -> sprinkler
	// 1.00     0.85    0.15     cloudy -> rain
	// 1.00     1.00    0.00     sprinkler -> wet
	// 1.00     1.00    0.00     rain -> wet
}
