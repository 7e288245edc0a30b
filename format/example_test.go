package format_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/pbl-lang/pbl/format"
	"github.com/pbl-lang/pbl/loc"
)

func ExampleSource() {
	src := `var Rain,Sprinkler:bool   // two causes
P(Rain)=0.2
P(Sprinkler|Rain)={true:0.01 false:0.4}
P(Sprinkler | Rain) = {
  true: 0.01 ,  // rarely when it rains
  false : 0.4
}
`
	out, err := format.Source("garden.pbl", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(out)
	// Output:
	// var Rain, Sprinkler: bool  // two causes
	// P(Rain) = 0.2
	// P(Sprinkler | Rain) = { true: 0.01  false: 0.4 }
	// P(Sprinkler | Rain) = {
	//     true:  0.01  // rarely when it rains
	//     false: 0.4
	// }
}

func ExampleSource_syntaxError() {
	_, err := format.Source("garden.pbl", []byte("var Rain: bool\nP(Rain) = \n"))
	var e *loc.Error
	if errors.As(err, &e) {
		fmt.Printf("line %d, column %d: %s\n", e.Pos.Line, e.Pos.Col, e.Msg)
	}
	// Output:
	// line 3, column 1: expected a probability, a vector [p1, p2, ...] or normal(MEAN, SD), found end of file
}
