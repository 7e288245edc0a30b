package pbl_test

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// TestExpectPrintsNothing: every example prints exactly the same with its
// expect lines removed, and its expectations all hold.
func TestExpectPrintsNothing(t *testing.T) {
	for _, path := range examples(t) {
		if heavyExample(path) {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var without []string
		for _, line := range strings.SplitAfter(string(src), "\n") {
			if !strings.HasPrefix(line, "expect ") {
				without = append(without, line)
			}
		}
		run := func(src string) (string, ir.ErrorList) {
			m, err := pbl.Load(path, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			fails := pbl.Run(m, &out, pbl.RunOptions{})
			return out.String(), fails
		}
		with, fails := run(string(src))
		if len(fails) > 0 {
			t.Errorf("%s: %v", path, fails)
		}
		if plain, _ := run(strings.Join(without, "")); plain != with {
			t.Errorf("%s: expect lines change the output", path)
		}
	}
}

// TestCheckNaN: an expectation never holds against NaN.
func TestCheckNaN(t *testing.T) {
	m, err := pbl.Load("m.pbl", []byte("var A: bool\nP(A) = 0.5\nexpect P(A=true) == 0.5 within 1\nexpect P(A) == [0.5, 0.5] within 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	num := m.Stmts[0].(*ir.ExpectStmt)
	vec := m.Stmts[1].(*ir.ExpectStmt)
	if err := pbl.Check(m, num, &infer.Number{Header: infer.Header{Query: num.Query}, P: math.NaN()}); err == nil {
		t.Error("a NaN answer passes a number expectation")
	}
	rows := []infer.Row{{Values: []int{0}, P: math.NaN()}, {Values: []int{1}, P: 0.5}}
	if err := pbl.Check(m, vec, &infer.Table{Header: infer.Header{Query: vec.Query}, Rows: rows}); err == nil {
		t.Error("a NaN answer passes a vector expectation")
	}
	rows[0].P = 0.5
	if err := pbl.Check(m, vec, &infer.Table{Header: infer.Header{Query: vec.Query}, Rows: rows}); err != nil {
		t.Errorf("the right answer fails: %v", err)
	}
}
