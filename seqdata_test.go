package pbl_test

import (
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
