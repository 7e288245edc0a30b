package ir

import (
	"strconv"
	"testing"
)

// TestCheckCyclesDeep: a chain as long as a large model (and longer than
// recursion would take lightly) is searched without growing the stack, and
// each cycle is reported once, in the order of the search.
func TestCheckCyclesDeep(t *testing.T) {
	chain := func(n int, back [][2]int) *Model {
		m := &Model{}
		for i := range n {
			m.Vars = append(m.Vars, &Variable{ID: VarID(i), Name: "X" + strconv.Itoa(i), Kind: Bool, States: []string{"true", "false"}})
			var ps []VarID
			if i > 0 {
				ps = []VarID{VarID(i - 1)}
			}
			m.Parents = append(m.Parents, ps)
			m.Dists = append(m.Dists, nil)
		}
		for _, e := range back { // an edge e[0] -> e[1]
			m.Parents[e[1]] = append(m.Parents[e[1]], VarID(e[0]))
		}
		return m
	}
	for _, tc := range []struct {
		name string
		n    int
		back [][2]int
		want []string
	}{
		{"chain", 1_000_000, nil, nil},
		{"one back edge", 1_000_000, [][2]int{{999_999, 999_997}}, []string{"cycle: X999997 -> X999998 -> X999999 -> X999997"}},
		{"two", 10, [][2]int{{3, 1}, {9, 8}}, []string{"cycle: X1 -> X2 -> X3 -> X1", "cycle: X8 -> X9 -> X8"}},
		{"self", 3, [][2]int{{0, 0}}, []string{"cycle: X0 -> X0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs ErrorList
			checkCycles(&errs, chain(tc.n, tc.back))
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors (%v), want %d", len(errs), errs, len(tc.want))
			}
			for i, e := range errs {
				if e.Msg != tc.want[i] {
					t.Errorf("error %d: got %q, want %q", i, e.Msg, tc.want[i])
				}
			}
		})
	}
}
