package xmlbif_test

import (
	"fmt"
	"log"
	"os"

	"github.com/pbl-lang/pbl/formats/xmlbif"
)

func ExampleRead() {
	src := []byte(`<?xml version="1.0"?>
<BIF VERSION="0.3">
<NETWORK>
  <NAME>lawn</NAME>
  <VARIABLE TYPE="nature">
    <NAME>Rain</NAME>
    <OUTCOME>yes</OUTCOME>
    <OUTCOME>no</OUTCOME>
  </VARIABLE>
  <VARIABLE TYPE="nature">
    <NAME>Wet</NAME>
    <OUTCOME>yes</OUTCOME>
    <OUTCOME>no</OUTCOME>
  </VARIABLE>
  <DEFINITION>
    <FOR>Rain</FOR>
    <TABLE>0.2 0.8</TABLE>
  </DEFINITION>
  <DEFINITION>
    <FOR>Wet</FOR>
    <GIVEN>Rain</GIVEN>
    <TABLE>0.9 0.1 0.05 0.95</TABLE>
  </DEFINITION>
</NETWORK>
</BIF>`)
	m, err := xmlbif.Read("lawn.xml", src)
	if err != nil {
		log.Fatal(err)
	}
	wet, _ := m.Lookup("Wet")
	fmt.Println(m.Table(wet.ID).Factor.Vals) // (Rain, Wet), Wet fastest
	if err := xmlbif.Write(os.Stdout, m); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [0.9 0.1 0.05 0.95]
	// <?xml version="1.0" encoding="UTF-8"?>
	// <!-- Bayesian network in XMLBIF v0.3, written by pbl -->
	// <BIF VERSION="0.3">
	// <NETWORK>
	//   <NAME>lawn</NAME>
	//
	//   <VARIABLE TYPE="nature">
	//     <NAME>Rain</NAME>
	//     <OUTCOME>yes</OUTCOME>
	//     <OUTCOME>no</OUTCOME>
	//   </VARIABLE>
	//
	//   <VARIABLE TYPE="nature">
	//     <NAME>Wet</NAME>
	//     <OUTCOME>yes</OUTCOME>
	//     <OUTCOME>no</OUTCOME>
	//   </VARIABLE>
	//
	//   <DEFINITION>
	//     <FOR>Rain</FOR>
	//     <TABLE>0.2 0.8</TABLE>
	//   </DEFINITION>
	//
	//   <DEFINITION>
	//     <FOR>Wet</FOR>
	//     <GIVEN>Rain</GIVEN>
	//     <TABLE>
	//       0.9 0.1
	//       0.05 0.95
	//     </TABLE>
	//   </DEFINITION>
	//
	// </NETWORK>
	// </BIF>
}
