package hugin_test

import (
	"fmt"
	"log"
	"os"

	"github.com/pbl-lang/pbl/formats/hugin"
)

func ExampleRead() {
	src := `net { }
node smoke { states = ( "yes" "no" ); }
node lung { states = ( "yes" "no" ); }
potential ( smoke ) { data = ( 0.5 0.5 ); }
potential ( lung | smoke ) { data = ((0.1 0.9) (0.01 0.99)); }
`
	m, err := hugin.Read("lung.net", []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	lung, _ := m.Lookup("lung")
	fmt.Println(m.Table(lung.ID).Factor.Vals)
	if err := hugin.Write(os.Stdout, m); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [0.1 0.9 0.01 0.99]
	// net
	// {
	// }
	// node smoke
	// {
	//   states = ( "yes" "no" );
	// }
	// node lung
	// {
	//   states = ( "yes" "no" );
	// }
	// potential ( smoke )
	// {
	//   data = ( 0.5 0.5 );
	// }
	// potential ( lung | smoke )
	// {
	//   data = ((0.1 0.9)(0.01 0.99));
	// }
}

func ExampleRead_errors() {
	src := `net { }
node smoke { states = ( "yes" "no" ); }
node lung { states = ( "yes" "no" ); }
potential ( smoke ) { data = ( 0.5 0.5 ); }
potential ( lung | smoker ) { data = ((0.1 0.9) (0.01 0.99)); }
`
	_, err := hugin.Read("lung.net", []byte(src))
	fmt.Println(err)
	// Output:
	// lung.net:5:20: undeclared node "smoker" (did you mean "smoke"?)
}
