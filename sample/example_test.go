package sample_test

import (
	"log"
	"os"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/sample"
)

func ExampleWriteCSV() {
	m, err := pbl.Load("coin.pbl", []byte(`
var Coin: {heads, tails}
var "Bet, placed": bool
Coin -> "Bet, placed"
P(Coin) = [0.5, 0.5]
P("Bet, placed" | Coin) = {
    heads: 0.9
    tails: 0.2
}
`))
	if err != nil {
		log.Fatal(err)
	}
	if err := sample.WriteCSV(os.Stdout, m, 5, 1, 0.2); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Coin,"Bet, placed"
	// tails,false
	// ,false
	// tails,false
	// tails,false
	// tails,false
}
