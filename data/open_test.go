package data

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// openModel returns a model with an open variable Color (states from the
// data), a declared variable Size: {s, m} and an open variable Code.
func openModel(tb testing.TB) *ir.Model {
	tb.Helper()
	b := ir.NewBuilder("model.pbl")
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
	if len(color.States) != 0 || len(code.States) != 0 {
		t.Errorf("the reader wrote to the model: Color %q, Code %q", color.States, code.States)
	}
	if got := strings.Join(b.States[color.ID], ","); got != "red,green,blue" {
		t.Errorf("Color states %q, want red,green,blue", got)
	}
	if st := b.States[code.ID]; len(st) != 12 || st[11] != "c11" {
		t.Errorf("Code states %q", st)
	}
	wantColor := []int32{0, 1, Missing, Missing, Missing, 2}
	for i := range b.N {
		if b.Cols[0][i] != wantColor[i%6] || b.Cols[2][i] != int32(i%12) {
			t.Fatalf("row %d: Color %d, Code %d", i, b.Cols[0][i], b.Cols[2][i])
		}
	}
	// A second read of a model whose open variables were settled by the
	// first sees their states, and adds none.
	settled := m.WithStates(b.States)
	b, err = ReadAll("e.csv", strings.NewReader("Code,Color\nc3,green\nc11,red\n"), settled, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Cols[0][0] != 3 || b.Cols[0][1] != 11 || b.Cols[1][0] != 1 || b.Cols[1][1] != 0 {
		t.Errorf("second read: %v", b.Cols)
	}
	if _, err := ReadAll("e.csv", strings.NewReader("Color\npurple\n"), settled, Options{}); err == nil || !strings.Contains(err.Error(), `unknown state "purple" for Color`) {
		t.Errorf("a settled variable took a new state: %v", err)
	}
	_, err = ReadAll("f.csv", strings.NewReader("Size,Color\nl,red\n"), m, Options{})
	if err == nil || !strings.Contains(err.Error(), `f.csv:2:1: unknown state "l" for Size`) {
		t.Errorf("declared variable: got %v", err)
	}
}

// TestStatesInShards: the states of open variables found by reading the
// data in shards, each scanned on its own and merged in shard order, are
// those of one reader of the whole file, however the data is cut.
func TestStatesInShards(t *testing.T) {
	m := openModel(t)
	header := "Color,Code\n"
	var rows []string
	for i := range 200 {
		rows = append(rows, fmt.Sprintf("%s,c%d\n", []string{"red", "", "green", "blue", "?", "teal"}[(i*7)%6], (i*13)%17))
	}
	whole, err := ReadAll("all.csv", strings.NewReader(header+strings.Join(rows, "")), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cuts := range [][]int{{0, 200}, {0, 1, 200}, {0, 50, 51, 120, 200}, {0, 3, 6, 9, 12, 100, 199, 200}} {
		var merged map[ir.VarID][]string
		for k := 1; k < len(cuts); k++ {
			r, err := NewReader("shard.csv", strings.NewReader(header+strings.Join(rows[cuts[k-1]:cuts[k]], "")), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st, err := ScanStates(r)
			if err != nil {
				t.Fatal(err)
			}
			merged = MergeStates(merged, st)
		}
		for v, want := range whole.States {
			if got := merged[v]; strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("cuts %v: %s states %q, want %q", cuts, m.Vars[v].Name, got, want)
			}
		}
	}
}

// TestOpenDirectory: a path that names a directory is an *os.PathError
// (EISDIR), as a missing file is, so that callers report "cannot read
// PATH: is a directory" rather than a read error at line 1.
func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir, openModel(t), Options{})
	var pe *os.PathError
	if r != nil || !errors.As(err, &pe) || pe.Path != dir || !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("Open(a directory) = %v, %v; want an *os.PathError for %s with EISDIR", r, err, dir)
	}
}
