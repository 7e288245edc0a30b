package pbl_test

import (
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
)

// answer runs one query on an example.
func answer(t *testing.T, path, text string) infer.Result {
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

// TestExplainingAway checks the seed's inequality, which an expect line
// cannot state: P(E=heavy | C=malignant) > P(E=heavy | C=malignant,
// S=heavy). (The examples' printed numbers are checked by their expect
// lines, run by pbl test in cmd/pbl's TestExamples.)
func TestExplainingAway(t *testing.T) {
	a := answer(t, "examples/smoking.pbl", "P(Exposure=heavy | Cancer=malignant)").(*infer.Number).P
	b := answer(t, "examples/smoking.pbl", "P(Exposure=heavy | Cancer=malignant, Smoking=heavy)").(*infer.Number).P
	if !(a > b) {
		t.Errorf("explaining away: P(E=heavy | C=malignant) = %v, not > P(E=heavy | C=malignant, S=heavy) = %v", a, b)
	}
}
