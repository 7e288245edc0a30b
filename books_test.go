package pbl_test

import (
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// answer runs one query on an example.
func answer(t *testing.T, path, text string) *infer.Result {
	t.Helper()
	m, err := pbl.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	q, err := pbl.ParseQuery(m, text)
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Answer(m, q, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTextbookNumbers checks the examples against the numbers their source
// texts print, to the printed precision.
func TestTextbookNumbers(t *testing.T) {
	for _, tc := range []struct {
		file, query string
		want, tol   float64
		source      string
	}{
		{"campfire.pbl", "P(Campfire=true | Storm=true, BusTourGroup=true)", 0.4, 1e-12, "Mitchell Fig. 6.3"},
		{"cancer_test.pbl", "P(Cancer=true, Test=pos)", 0.0078, 0.00005, "Mitchell §6.2: P(+|cancer)P(cancer) = .0078"},
		{"cancer_test.pbl", "P(Cancer=false, Test=pos)", 0.0298, 0.00005, "Mitchell §6.2: P(+|¬cancer)P(¬cancer) = .0298"},
		{"cancer_test.pbl", "P(Cancer=true | Test=pos)", 0.21, 0.005, "Mitchell §6.2: ≈ .21"},
		{"cancer_test.pbl", "P(Cancer=true | Test=pos)", 0.98 * 0.008 / (0.98*0.008 + 0.03*0.992), 1e-12, "Bayes rule by hand"},
		{"smoking_cancer.pbl", "P(Cancer=malignant | Smoking=heavy)", 0.15, 1e-12, "the seed's table"},
		{"smoking_cancer.pbl", "P(Cancer=none)", 0.80*0.96 + 0.15*0.88 + 0.05*0.60, 1e-12, "the seed's tables, summed by hand"},
		{"student.pbl", "P(Letter=strong)", 0.502, 0.0005, "Koller & Friedman §3.2.1.2"},
		{"student.pbl", "P(Letter=strong | Intelligence=low)", 0.389, 0.0005, "Koller & Friedman"},
		{"student.pbl", "P(Intelligence=high | Grade=3)", 0.079, 0.0005, "Koller & Friedman"},
		{"student.pbl", "P(Intelligence=high | Grade=3, Difficulty=hard)", 0.11, 0.005, "Koller & Friedman"},
		{"student.pbl", "P(Intelligence=high | Grade=3, SAT=high)", 0.578, 0.0005, "Koller & Friedman"},
		{"asia.pbl", "P(either=yes | lung=no, tub=no)", 0, 0, "either is lung OR tub"},
	} {
		res := answer(t, "examples/"+tc.file, tc.query)
		if !close(res.P, tc.want, tc.tol) {
			t.Errorf("%s: %s = %v, want %v ± %v (%s)", tc.file, tc.query, res.P, tc.want, tc.tol, tc.source)
		}
	}

	// Mitchell: the MAP hypothesis after a positive test is ¬cancer.
	res := answer(t, "examples/cancer_test.pbl", "MAP(Cancer | Test=pos)")
	if len(res.Assignment) != 1 || res.Assignment[0].State != 1 {
		t.Errorf("MAP(Cancer | Test=pos) = %v, want Cancer=false", res.Assignment)
	}

	// The seed's explaining away: P(E=heavy | C=malignant) > P(E=heavy | C=malignant, S=heavy).
	a := answer(t, "examples/smoking.pbl", "P(Exposure=heavy | Cancer=malignant)").P
	b := answer(t, "examples/smoking.pbl", "P(Exposure=heavy | Cancer=malignant, Smoking=heavy)").P
	if !(a > b) {
		t.Errorf("explaining away: P(E=heavy | C=malignant) = %v, not > P(E=heavy | C=malignant, S=heavy) = %v", a, b)
	}

	// The seed's independence statements in the full network (issue 2).
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{"indep(Age, Gender)", true},
		{"indep(Exposure, Smoking)", false},
		{"indep(Exposure, Smoking | Age)", true},
		{"indep(Cancer, {Age, Gender} | Smoking)", false},
		{"indep(SerumCalcium, LungTumor | Cancer)", true},
	} {
		res := answer(t, "examples/smoking.pbl", tc.query)
		if res.Query.Kind != ir.Indep || res.Independent != tc.want {
			t.Errorf("%s = %v, want %v", tc.query, res.Independent, tc.want)
		}
	}
}
