package data

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

func TestWrite(t *testing.T) {
	m := testModel(t)
	vars := []ir.VarID{0, 1, 2, 4}
	b := &Batch{
		N: 3,
		Cols: [][]int32{
			{0, Missing, 3},
			{1, 0, Missing},
			nil,
			{0, 1, 2},
		},
		Reals: [][]float64{nil, nil, {1.5, math.NaN(), -1e-300}, nil},
	}
	var out bytes.Buffer
	if err := Write(&out, m, vars, b); err != nil {
		t.Fatal(err)
	}
	want := "Outlook,Windy,Temp,Path\nsunny,false,1.5,a b\n,true,,\"x,y\"\nmaybe,,-1e-300,\"q\"\"uote\"\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	b.Cols[0][1] = 9
	if err := Write(&bytes.Buffer{}, m, vars, b); err == nil {
		t.Error("Write of an out-of-range state: no error")
	}
	if err := Write(&bytes.Buffer{}, m, []ir.VarID{2}, &Batch{N: 1, Cols: [][]int32{{0}}}); err == nil {
		t.Error("Write of a real variable without values: no error")
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"},
		{"", ""},
		{"a b", "a b"},
		{" a", `" a"`},
		{"a\t", "\"a\t\""},
		{"a,b", `"a,b"`},
		{`a"b`, `"a""b"`},
		{"a\nb", "\"a\nb\""},
		{"a\rb", "\"a\rb\""},
		{"ünï", "ünï"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRoundTrip writes every state of every variable, awkward names
// included, and reads it back.
func TestRoundTrip(t *testing.T) {
	m := testModel(t)
	for _, src := range [][]byte{genCSV(m, 500, 1), []byte("Path,Temp\n\" pad \",0.1\n\"q\"\"uote\",1e300\n,-0\n")} {
		b, err := ReadAll("in.csv", bytes.NewReader(src), m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Write(&out, m, b.Vars, b); err != nil {
			t.Fatal(err)
		}
		back, err := ReadAll("out.csv", bytes.NewReader(out.Bytes()), m, Options{})
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, out.String())
		}
		if !sameCells(b, back) {
			t.Errorf("round trip changed the data:\n%s\nread back as\n%s", dump(m, b), dump(m, back))
		}
	}
}

// sameCells reports whether a and b hold the same cells (NaN equal to NaN);
// line numbers are not compared.
func sameCells(a, b *Batch) bool {
	if a.N != b.N || len(a.Vars) != len(b.Vars) {
		return false
	}
	for j := range a.Vars {
		if a.Vars[j] != b.Vars[j] || (a.Reals[j] == nil) != (b.Reals[j] == nil) {
			return false
		}
		for i := 0; i < a.N; i++ {
			if a.Reals[j] != nil {
				x, y := a.Reals[j][i], b.Reals[j][i]
				if !(x == y || math.IsNaN(x) && math.IsNaN(y)) || math.Signbit(x) != math.Signbit(y) {
					return false
				}
			} else if a.Cols[j][i] != b.Cols[j][i] {
				return false
			}
		}
	}
	return true
}

func ExampleReadAll() {
	b := ir.NewBuilder("m.pbl")
	outlook, _ := b.AddVar(ir.Pos{}, "Outlook", ir.Enum, []string{"sunny", "rain"}, 0)
	b.SetCPT(ir.Pos{}, outlook, nil, []float64{0.5, 0.5}, nil)
	b.AddVar(ir.Pos{}, "Temp", ir.Real, nil, 0)
	m, _ := b.Finish()

	batch, err := ReadAll("data.csv", strings.NewReader("Temp,Outlook\n21.5,sunny\n,rain\n18,?\n"), m, Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(batch.N, "rows; Temp:", batch.Reals[0], "Outlook:", batch.Cols[1])
	if err := Write(os.Stdout, m, batch.Vars, batch); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 3 rows; Temp: [21.5 NaN 18] Outlook: [0 1 -1]
	// Temp,Outlook
	// 21.5,sunny
	// ,rain
	// 18,
}
