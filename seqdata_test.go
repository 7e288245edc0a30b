package pbl_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pbl-lang/pbl"
)

const umbrellaSrc = `
var Rain[t]: bool
var Umbrella[t]: bool
var Season: {wet, dry}
Rain[t-1] -> Rain[t]
Rain[t] -> Umbrella[t]
Season -> Rain[t]
P(Season) = [0.5, 0.5]
P(Rain[0] | Season) = { wet: 0.7  dry: 0.3 }
P(Rain[t] | Rain[t-1], Season) = { true, wet: 0.8  true, dry: 0.6  false, wet: 0.4  false, dry: 0.2 }
P(Umbrella[t] | Rain[t]) = { true: 0.9  false: 0.2 }
`

func TestReadSequences(t *testing.T) {
	m, err := pbl.Load("u.pbl", []byte(umbrellaSrc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, csv string
		want      []*pbl.Sequence
		err       string
	}{
		{"one sequence", "Umbrella,Rain\ntrue,\nfalse,true\n", []*pbl.Sequence{
			{Line: 2, Steps: [][]float64{{-1, 0}, {0, 1}}, Static: []float64{-1}}}, ""},
		{"interleaved, a static", "sequence,Umbrella,Season\na,true,dry\nb,false,\na,,dry\n", []*pbl.Sequence{
			{ID: "a", Line: 2, Steps: [][]float64{{-1, 0}, {-1, -1}}, Static: []float64{1}},
			{ID: "b", Line: 3, Steps: [][]float64{{-1, 1}}, Static: []float64{-1}}}, ""},
		{"a static that changes", "sequence,Season\na,dry\na,wet\n", nil, "x.csv:3: the static variable Season changes within the sequence that starts on line 2"},
		{"an unknown column", "Umbrela\ntrue\n", nil, `Umbrella`},
		{"a row without its sequence", "Umbrella,sequence\ntrue,a\nfalse,\ntrue,b\n", nil, "x.csv:3:2: the sequence column has no value here"},
		{"a row whose sequence is NA", "sequence,Umbrella\na,true\nNA,false\n", nil, "x.csv:3:1: the sequence column has no value here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.csv")
			if err := os.WriteFile(path, []byte(tt.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := pbl.ReadSequences(m, path, pbl.SequenceOptions{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// FuzzReadSequences: no CSV makes ReadSequences panic, and what it reads
// fits the model: a step per row, each value a state of its variable or
// missing.
func FuzzReadSequences(f *testing.F) {
	for _, s := range []string{
		"sequence,Umbrella,Season\na,true,dry\nb,false,\na,,dry\n",
		"Umbrella,Rain\ntrue,\nfalse,true\n",
		"sequence,Season\na,dry\na,wet\n",
		"\ufeffsequence,Umbrella\n\"a\",\"true\"\n",
		"Umbrella\n\n\n",
	} {
		f.Add(s)
	}
	m, err := pbl.Load("u.pbl", []byte(umbrellaSrc))
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(dir, "x.csv")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		seqs, err := pbl.ReadSequences(m, path, pbl.SequenceOptions{})
		if err != nil {
			return
		}
		for _, s := range seqs {
			for _, step := range s.Steps {
				if len(step) != len(m.Time.Vars) {
					t.Fatalf("a step of %d values", len(step))
				}
				for k, x := range step {
					if n := len(m.Vars[m.Time.Vars[k].Slices[0]].States); !(x >= -1 && x < float64(n)) {
						t.Fatalf("value %v of %s", x, m.Time.Vars[k].Name)
					}
				}
			}
		}
	})
}

// TestSequenceColumnIsAVariable: a sequence column named as a variable of
// the model (time-indexed or static) is refused, not read as sequence ids
// with the variable hidden.
func TestSequenceColumnIsAVariable(t *testing.T) {
	m, err := pbl.Load("u.pbl", []byte(umbrellaSrc))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(path, []byte("Umbrella,Season\ntrue,wet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"Umbrella", "Season", "Rain"} {
		if _, err := pbl.ReadSequences(m, path, pbl.SequenceOptions{Column: col}); !errors.Is(err, pbl.ErrSequenceColumn) {
			t.Errorf("--sequence-column %s: got %v, want ErrSequenceColumn", col, err)
		}
	}
	if _, err := pbl.ReadSequences(m, path, pbl.SequenceOptions{Column: "id"}); err != nil {
		t.Errorf("--sequence-column id: %v", err)
	}
}
