package causal

import (
	"errors"
	"strings"
	"testing"
)

// graph parses "A->B, B<->C" into an ADMG over the given names.
func graph(t *testing.T, names string, edges string) *ADMG {
	t.Helper()
	var dir, bi []Edge
	for _, e := range strings.Split(edges, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if a, b, ok := strings.Cut(e, "<->"); ok {
			bi = append(bi, Edge{strings.TrimSpace(a), strings.TrimSpace(b)})
		} else if a, b, ok := strings.Cut(e, "->"); ok {
			dir = append(dir, Edge{strings.TrimSpace(a), strings.TrimSpace(b)})
		} else {
			t.Fatalf("bad edge %q", e)
		}
	}
	g, err := Build(strings.Fields(names), dir, bi)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func split(s string) []string { return strings.Fields(s) }

// The verdicts of textbook diagrams: Pearl's Causality (2009) ch. 3,
// Shpitser and Pearl (2006), Tian and Pearl (2002).
func TestTextbook(t *testing.T) {
	tests := []struct {
		name, vars, edges string
		y, x, z           string
		method            string // "" when not identifiable
		formula           string // if not empty, the estimand's String
	}{
		{"backdoor", "Z X Y", "Z->X, Z->Y, X->Y", "Y", "X", "", "backdoor", "Σ_{Z} P(Y | Z, X) P(Z)"},
		{"no-confounding", "X Y", "X->Y", "Y", "X", "", "backdoor", "P(Y | X)"},
		{"front-door smoking", "X M Y", "X->M, M->Y, X<->Y", "Y", "X", "", "front-door", "Σ_{M} P(M | X) [Σ_{X'} P(Y | X', M) P(X')]"},
		{"bow arc", "X Y", "X->Y, X<->Y", "Y", "X", "", "", ""},
		{"instrument", "Z X Y", "Z->X, X->Y, X<->Y", "Y", "X", "", "", ""},
		{"confounded mediator", "X Z Y", "X->Z, Z->Y, X<->Z", "Y", "X", "", "", ""},
		{"two arcs", "X Z Y", "X->Z, Z->Y, X<->Y, Z<->Y", "Y", "X", "", "", ""},
		{"mediator confounded with Y", "X Z Y", "X->Z, Z->Y, Z<->Y", "Y", "X", "", "backdoor", "P(Y | X)"},
		{"arcs through Z", "X Z Y", "X->Y, Z->Y, X<->Z, Z<->Y", "Y", "X", "", "", ""},
		{"arcs through Z, mediated", "X Z Y", "X->Z, Z->Y, X->Y, X<->Z, Z<->Y", "Y", "X", "", "", ""},
		{"napkin", "W1 W2 X Y", "W1->W2, W2->X, X->Y, W1<->X, W1<->Y", "Y", "X", "", "ID", "[Σ_{W1} P(W1) P(X | W1, W2) P(Y | W1, W2, X)] / [Σ_{W1} P(W1) P(X | W1, W2)], for any W2"},
		{"Verma", "A B C D", "A->B, B->C, C->D, B<->D", "D", "A", "", "backdoor", "P(D | A)"},
		{"Verma effect of B", "A B C D", "A->B, B->C, C->D, B<->D", "D", "B", "", "front-door", ""},
		{"Verma effect of C", "A B C D", "A->B, B->C, C->D, B<->D", "D", "C", "", "backdoor", ""},
		{"backdoor through arc", "Z X Y", "Z->X, X->Y, Z<->Y", "Y", "X", "", "backdoor", ""},
		{"front-door with arcs through Z2", "X Z1 Z2 Y", "X->Z1, Z1->Y, Z2->Y, X<->Z2, Z2<->Y", "Y", "X", "", "front-door", ""},
		{"IDC rule 2 after a bow", "X Y Z", "X->Y, Y->Z, X<->Y", "Z", "X", "Y", "IDC", "P(Z | X, Y)"},
		{"IDC bow", "X Y Z", "X->Y, Z->X, X<->Y", "Y", "X", "Z", "", ""},
		{"IDC front-door given Z", "X M Y Z", "X->M, M->Y, X<->Y, Z->X", "Y", "X", "Z", "IDC", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, tt.vars, tt.edges)
			q := Query{Y: split(tt.y), X: split(tt.x), Z: split(tt.z)}
			est, err := g.Identify(q)
			if tt.method == "" {
				var ne *NotIdentifiableError
				if !errors.As(err, &ne) || !errors.Is(err, ErrNotIdentifiable) {
					t.Fatalf("got %v, %v; want not identifiable", est, err)
				}
				if msg := checkHedge(g, q, ne.Hedge); msg != "" {
					t.Errorf("hedge %v: %s", ne.Hedge, msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("not identified: %v", err)
			}
			if tt.method != "ID" || est.Method != "IDC" { // IDC wraps ID
				if est.Method != tt.method {
					t.Errorf("method %s (%s), want %s", est.Method, est, tt.method)
				}
			}
			if tt.formula != "" && est.String() != tt.formula {
				t.Errorf("formula %s, want %s", est, tt.formula)
			}
		})
	}
}
