package pbl_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pbl-lang/pbl"
)

// TestFreeParams: pbl check's count of free parameters (ir.Model.FreeParams)
// and its distributions to learn (ir.Model.ToLearn), for every kind of
// distribution; each expected count is derived by hand in its comment.
func TestFreeParams(t *testing.T) {
	dir := t.TempDir()
	// Three clusters of (u, v), 20 rows each, for the mixtures learned.
	csv := "u,v\n"
	for i := range 60 {
		c := float64(i % 3)
		csv += strconv.FormatFloat(c*5+float64(i%7)/10, 'g', -1, 64) + "," + strconv.FormatFloat(-c*4+float64(i%5)/10, 'g', -1, 64) + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "uv.csv"), []byte(csv), 0o666); err != nil {
		t.Fatal(err)
	}
	const bools = "var A, B, Y: bool\nP(A) = 0.3\nP(B) = 0.6\n"                                  // 1 + 1
	const three = "var S: {hi, lo, no}\nvar C: {severe, mild, absent}\nP(S) = [0.2, 0.3, 0.5]\n" // 2
	const mix = "var G: {g1, g2, g3}\nvar u, v: real\nP(G) = [0.2, 0.3, 0.5]\n"                  // 2
	tests := []struct {
		name, src string
		want      int
		toLearn   [][]string
	}{
		// 1 (P(A)) + 2 rows × 2 (P(S | A)).
		{"cpt.pbl", "var A: bool\nvar S: {x, y, z}\nP(A) = 0.3\nP(S | A) = { true: [0.1, 0.2, 0.7]  false: [0.3, 0.3, 0.4] }\n", 5, nil},
		// 2 + 2 links + 1 leak.
		{"noisy_or_leak.pbl", bools + "P(Y | A, B) = noisy_or(A: 0.8, B: 0.3, leak: 0.01)\n", 5, nil},
		// 2 + 2 links; no leak (it counted one).
		{"noisy_or.pbl", bools + "P(Y | A, B) = noisy_or(A: 0.8, B: 0.3)\n", 4, nil},
		// 1 (P(A)) + 2 (P(S)) + A's link 1 + S's active states hi, lo 2; S=no inactive.
		{"noisy_or_states.pbl", "var A, Y: bool\nvar S: {hi, lo, no}\nP(A) = 0.3\nP(S) = [0.2, 0.3, 0.5]\nP(Y | A, S) = noisy_or(A: 0.8, S: { hi: 0.5  lo: 0.1 })\n", 6, nil},
		// 1 + 2 + (A's link, S=hi, S=lo, the leak) × (3 states − 1).
		{"noisy_max_leak.pbl", "var A: bool\nP(A) = 0.3\n" + three + "P(C | A, S) = noisy_max(A: [0.1, 0.2, 0.7], S: { hi: [0.2, 0.3, 0.5]  lo: [0, 0.5, 0.5] }, leak: [0, 0.1, 0.9])\n", 11, nil},
		// 1 + 2 + (A's link, S=hi) × 2; no leak (it counted one).
		{"noisy_max.pbl", "var A: bool\nP(A) = 0.3\n" + three + "P(C | A, S) = noisy_max(A: [0.1, 0.2, 0.7], S: { hi: [0.2, 0.3, 0.5] })\n", 7, nil},
		// 2 + a formula and a lookup, 0.
		{"deterministic.pbl", bools + "var Z: {p, q}\nP(Y | A, B) = A and not B\nP(Z | A) = lookup { true: p  else: q }\n", 2, nil},
		// A normal density: mean and SD, 2; given G, 3 × 2; + P(G) 2. (docs/cli.md said Gaussians were not counted.)
		{"gaussian.pbl", mix + "P(u) = normal(0, 1)\nP(v | G) = { g1: normal(0, 1)  g2: normal(1, 2)  g3: normal(2, 3) }\n", 10, nil},
		// 2 + 3 × (2 means + 3 of a full 2×2 covariance).
		{"joint_full.pbl", mix + "P(u, v | G) = { g1: normal([0, 0], [[1, 0.5], [0.5, 2]])  g2: normal([1, 1], [[1, 0], [0, 1]])  g3: normal([2, 2], [[2, 1], [1, 2]]) }\n", 17, nil},
		// 2 + 3 × (2 means + 2 variances).
		{"joint_diag.pbl", mix + "P(u, v | G) = { g1: normal([0, 0], [1, 2])  g2: normal([1, 1], [1, 1])  g3: normal([2, 2], [3, 4]) }\n", 14, nil},
		// 2 + 3 × (2 means + 1 variance).
		{"joint_spherical.pbl", mix + "P(u, v | G) = { g1: normal([0, 0], 1)  g2: normal([1, 1], 2)  g3: normal([2, 2], 3) }\n", 11, nil},
		// 2 + (2 + 3) + (2 + 2) + (2 + 1), each row by its own form (all were counted full: 17).
		{"joint_mixed.pbl", mix + "P(u, v | G) = { g1: normal([0, 0], [[1, 0.5], [0.5, 2]])  g2: normal([1, 1], [1, 2])  g3: normal([2, 2], 3) }\n", 14, nil},
		// No parents: 2 means + 2 variances.
		{"joint_root.pbl", "var u, v: real\nP(u, v) = normal([0, 0], [1, 2])\n", 4, nil},
		// Nothing with numbers; G's table and the joint density of u, v (one distribution, not two) to learn.
		{"mixture_to_learn.pbl", "var G: {g1, g2, g3}\nvar u, v: real\nmixture G of u, v (covariance = diag)\n", 0, [][]string{{"G"}, {"u", "v"}}},
		// Learned: P(G) 2 + 3 × (2 means + 3 of a full matrix).
		{"mixture_full.pbl", "var G: {g1, g2, g3}\nvar u, v: real\nmixture G of u, v\nlearn from \"uv.csv\" with em(seed = 1)\n", 17, nil},
		// Learned: P(G) 2 + 3 × 2 means + one shared 2×2 matrix, 3.
		{"mixture_tied.pbl", "var G: {g1, g2, g3}\nvar u, v: real\nmixture G of u, v (covariance = tied)\nlearn from \"uv.csv\" with em(seed = 1)\n", 11, nil},
		// A known variance: P(G) 2 + 3 × 2 means; the variance is not free (it counted 3 more).
		{"mixture_variance.pbl", "var G: {g1, g2, g3}\nvar u, v: real\nmixture G of u, v (variance = 1)\nlearn from \"uv.csv\" with em(seed = 1)\n", 8, nil},
		// Two variables, 2 and 3 states; potentials over X0 (2 entries) and X0, X1 (6): (2 − 1) + (6 − 1).
		{"markov.uai", "MARKOV\n2\n2 3\n2\n1 0\n2 0 1\n2\n 1 3\n6\n 1 2 3\n 4 5 6\n", 6, nil},
		// A structure without numbers: 0, A and B to learn.
		{"structure.pbl", "var A, B: bool\nA -> B\n", 0, [][]string{{"A"}, {"B"}}},
	}
	for _, test := range tests {
		path := filepath.Join(dir, test.name)
		if err := os.WriteFile(path, []byte(test.src), 0o666); err != nil {
			t.Fatal(err)
		}
		m, err := pbl.LoadFile(path)
		if err != nil {
			t.Errorf("%s: %v", test.name, err)
			continue
		}
		if got := m.FreeParams(); got != test.want {
			t.Errorf("%s: %d free parameters, want %d", test.name, got, test.want)
		}
		var got [][]string
		for _, vs := range m.ToLearn() {
			var names []string
			for _, v := range vs {
				names = append(names, m.Vars[v].Name)
			}
			got = append(got, names)
		}
		if !slices.EqualFunc(got, test.toLearn, slices.Equal[[]string]) {
			t.Errorf("%s: to learn %q, want %q", test.name, got, test.toLearn)
		}
	}
}
