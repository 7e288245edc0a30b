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

// Read an influence diagram: a decision taken knowing a test's result, and
// a utility over the decision and the disease.
func ExampleRead_influenceDiagram() {
	src := `net { }
node Disease { states = ( "present" "absent" ); }
node Test { states = ( "positive" "negative" ); }
decision Treat { states = ( "yes" "no" ); }
utility Cost { }
potential ( Disease ) { data = ( 0.1 0.9 ); }
potential ( Test | Disease ) { data = (( 0.9 0.1 ) ( 0.2 0.8 )); }
potential ( Treat | Test ) { }
potential ( Cost | Treat Disease ) { data = (( 80 -20 ) ( -100 0 )); }
`
	m, err := hugin.Read("treat.net", []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range m.Decisions() {
		fmt.Println("decision", m.Vars[d].Name, "knowing", m.NameList(m.Parents[d], 5))
	}
	for _, u := range m.Utilities {
		fmt.Println("utility", u.Name, "over", m.NameList(u.Parents, 5), u.Values)
	}
	// Output:
	// decision Treat knowing Test
	// utility Cost over Treat, Disease [80 -20 -100 0]
}
