package data

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// openModel returns a model with an open variable Color (states from the
// data), a declared variable Size: {s, m} and an open variable Code.
func openModel(tb testing.TB) *ir.Model {
	tb.Helper()
	b := ir.NewBuilder("model.pbl")
	b.AllowUnlearned = true
	pos := ir.Pos{File: "model.pbl", Line: 1, Col: 1}
	b.AddOpenVar(pos, "Color")
	b.AddVar(pos, "Size", ir.Enum, []string{"s", "m"}, 0)
	b.AddOpenVar(pos, "Code")
	m, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestOpenVariables: an open variable gains states in order of first
// appearance (growing past the linear-lookup size into a map); empty, ?
// and NA stay missing; a declared variable still rejects unknown states;
// unknown columns are still errors unless ignored.
func TestOpenVariables(t *testing.T) {
	m := openModel(t)
	var src strings.Builder
	src.WriteString("Color,Size,Extra,Code\n")
	for i := range 30 {
		fmt.Fprintf(&src, "%s,s,x,c%d\n", []string{"red", "green", "", "?", "NA", "blue"}[i%6], i%12)
	}
	if _, err := ReadAll("d.csv", strings.NewReader(src.String()), m, Options{}); err == nil || !strings.Contains(err.Error(), `column "Extra" names no variable`) {
		t.Fatalf("unknown column: got %v", err)
	}
	b, err := ReadAll("d.csv", strings.NewReader(src.String()), m, Options{IgnoreUnknownColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	color, _ := m.Lookup("Color")
	code, _ := m.Lookup("Code")
	if got := strings.Join(color.States, ","); got != "red,green,blue" {
		t.Errorf("Color states %q, want red,green,blue", got)
	}
	if len(code.States) != 12 || code.States[11] != "c11" {
		t.Errorf("Code states %q", code.States)
	}
	wantColor := []int32{0, 1, Missing, Missing, Missing, 2}
	for i := range b.N {
		if b.Cols[0][i] != wantColor[i%6] || b.Cols[2][i] != int32(i%12) {
			t.Fatalf("row %d: Color %d, Code %d", i, b.Cols[0][i], b.Cols[2][i])
		}
	}
	// A second read sees the states found by the first, and adds more.
	b, err = ReadAll("e.csv", strings.NewReader("Code,Color\nc3,purple\nc12,red\n"), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Cols[0][0] != 3 || b.Cols[0][1] != 12 || b.Cols[1][0] != 3 || b.Cols[1][1] != 0 {
		t.Errorf("second read: %v", b.Cols)
	}
	_, err = ReadAll("f.csv", strings.NewReader("Size,Color\nl,red\n"), m, Options{})
	if err == nil || !strings.Contains(err.Error(), `f.csv:2:1: unknown state "l" for Size`) {
		t.Errorf("declared variable: got %v", err)
	}
}
