package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/formats/uai"
)

// runUAI runs pbl uai with args as run does: a fresh cli, the command's
// flag set, flags anywhere among the arguments.
func runUAI(args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	c := &cli{stdout: &out, stderr: &errs}
	fs := c.newFlags(lookup("uai"))
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		fmt.Fprintf(&errs, "pbl uai: %v\n", err)
		return exitUsage, out.String(), errs.String()
	}
	code = uaiCmd(c, pos)
	return code, out.String(), errs.String()
}

// pairUAI is a Markov network with Z = 51 (see formats/uai's
// TestReadLayout): P(X0) ∝ (6, 45), P(X1) ∝ (13, 17, 21).
const pairUAI = "MARKOV\n2\n2 3\n2\n1 0\n2 0 1\n2 1 3\n6\n1 2 3\n4 5 6\n"

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestUAITasks(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"pair.uai":      pairUAI,
		"pair.uai.evid": "1 1 2\n", // X1 = 2: Z(e) = 3 + 18 = 21
		"none.evid":     "0\n",
		"old.evid":      "1\n1 0 1\n", // X0 = 1: Z(e) = 45
	})
	model := filepath.Join(dir, "pair.uai")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--task", "PR", model, filepath.Join(dir, "none.evid")}, fmt.Sprintf("PR\n%v\n", math.Log10(51))},
		{[]string{"--task", "PR", model}, fmt.Sprintf("PR\n%v\n", math.Log10(21))},
		{[]string{model, "--task=pr", filepath.Join(dir, "old.evid")}, fmt.Sprintf("PR\n%v\n", math.Log10(45))},
		{[]string{model}, fmt.Sprintf("MAR\n2 2 %v %v 3 0 0 1\n", 3.0/21, 18.0/21)},
		{[]string{"--task", "MAR", model, filepath.Join(dir, "none.evid")}, fmt.Sprintf("MAR\n2 2 %v %v 3 %v %v %v\n", 6.0/51, 45.0/51, 13.0/51, 17.0/51, 21.0/51)},
		{[]string{"--task", "MPE", model, filepath.Join(dir, "none.evid")}, "MPE\n2 1 2\n"},
		{[]string{"--task", "MPE", model, filepath.Join(dir, "old.evid")}, "MPE\n2 1 2\n"},
		{[]string{"--task", "MPE", "--engine", "enum", model}, "MPE\n2 1 2\n"},
		{[]string{"--task", "PR", "--json", model}, fmt.Sprintf(`{"task":"PR","log10":%v}`+"\n", math.Log10(21))},
		{[]string{"--task", "MPE", "--json", model}, `{"task":"MPE","assignment":[1,2]}` + "\n"},
		{[]string{"--json", model}, fmt.Sprintf(`{"task":"MAR","marginals":[[%v,%v],[0,0,1]]}`+"\n", 3.0/21, 18.0/21)},
	} {
		code, stdout, stderr := runUAI(tc.args...)
		if code != exitOK || !sameOutput(stdout, tc.want) {
			t.Errorf("pbl uai %s: exit %d\nstdout %q\nwant   %q\nstderr %s", strings.Join(tc.args, " "), code, stdout, tc.want, stderr)
		}
	}
}

// TestUAIExtremes: PR is log10 of Z(e), the partition function with the
// evidence, computed from its logarithm: right where Z(e) overflows float64
// (a factor of 1e308 printed "inf") or P(e) underflows it (a Bayesian
// network with 500 observations, whose P(e) = 0.5·0.2^499 was an error),
// and the marginals of such models are probabilities.
func TestUAIExtremes(t *testing.T) {
	var chain strings.Builder
	// X0 -> X1 -> ... -> X499, P(Xi = X(i-1)) = 0.2, every Xi observed at
	// 0: P(e) = 0.5·0.2^499, ln P(e) = -803.8, below ln 2.2e-308 = -708.4.
	n := 500
	fmt.Fprintf(&chain, "BAYES\n%d\n%s\n%d\n1 0\n", n, strings.TrimSpace(strings.Repeat("2 ", n)), n)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&chain, "2 %d %d\n", i-1, i)
	}
	chain.WriteString("2\n0.5 0.5\n")
	for i := 1; i < n; i++ {
		chain.WriteString("4\n0.2 0.8 0.8 0.2\n")
	}
	var evid strings.Builder
	fmt.Fprintf(&evid, "%d", n)
	for i := range n {
		fmt.Fprintf(&evid, " %d 0", i)
	}
	dir := writeFiles(t, map[string]string{
		"big.uai":   "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1e308 1e308 1e308 1e308\n",
		"none.evid": "0\n",
		"chain.uai": chain.String(),
		"all.evid":  evid.String() + "\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	log10chain := (math.Log(0.5) + float64(n-1)*math.Log(0.2)) / math.Ln10
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--task", "PR", p("big.uai"), p("none.evid")}, fmt.Sprintf("PR\n%v\n", math.Log10(4)+308)},
		{[]string{"--task", "PR", "--json", p("big.uai"), p("none.evid")}, fmt.Sprintf(`{"task":"PR","log10":%v}`+"\n", math.Log10(4)+308)},
		{[]string{"--task", "MAR", p("big.uai"), p("none.evid")}, "MAR\n2 2 0.5 0.5 2 0.5 0.5\n"},
		{[]string{"--task", "PR", "--engine", "ve", p("big.uai"), p("none.evid")}, fmt.Sprintf("PR\n%v\n", math.Log10(4)+308)},
		{[]string{"--task", "PR", p("chain.uai"), p("all.evid")}, fmt.Sprintf("PR\n%v\n", log10chain)},
		{[]string{"--task", "PR", "--engine", "ve", p("chain.uai"), p("all.evid")}, fmt.Sprintf("PR\n%v\n", log10chain)},
	} {
		code, stdout, stderr := runUAI(tc.args...)
		if code != exitOK || !sameOutput(stdout, tc.want) {
			t.Errorf("pbl uai %s: exit %d\nstdout %q\nwant   %q\nstderr %s", strings.Join(tc.args, " "), code, stdout, tc.want, stderr)
		}
	}
}

// TestUAIExitCodes checks the exit statuses and that errors are positioned.
func TestUAIExitCodes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"pair.uai":   pairUAI,
		"bad.uai":    "MARKOV\n2\n2 3\n1\n2 0 5\n",
		"bad.evid":   "1 0 7\n",
		"zero.uai":   "MARKOV\n1\n2\n1\n1 0\n2 1 0\n",
		"zero.evid":  "1 0 1\n",
		"model.bif":  "variable a { type discrete [ 2 ] { yes, no }; }\nprobability ( a ) { table 0.25, 0.75; }\n",
		"model.evid": "1 0 1\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{[]string{}, exitUsage, "", "want a model file"},
		{[]string{p("pair.uai"), p("bad.evid"), p("bad.evid")}, exitUsage, "", "got 3 arguments"},
		{[]string{"--task", "MAP", p("pair.uai")}, exitUsage, "", `unknown task "MAP"`},
		{[]string{"--engine", "magic", p("pair.uai")}, exitUsage, "", `unknown engine "magic"`},
		{[]string{"--nope", p("pair.uai")}, exitUsage, "", "flag provided but not defined"},
		{[]string{p("nosuch.uai")}, exitError, "", "nosuch.uai: no such file"},
		{[]string{p("bad.uai")}, exitError, "", "bad.uai:5:5: variable index 5 in the scope of factor 0 is out of range"},
		{[]string{p("pair.uai"), p("bad.evid")}, exitError, "", "bad.evid:1:5: state 7 of X0 is out of range"},
		{[]string{p("pair.uai"), p("nosuch.evid")}, exitError, "", "nosuch.evid: no such file"},
		{[]string{"--task", "MAR", p("zero.uai"), p("zero.evid")}, exitError, "", "impossible evidence"},
		{[]string{"--task", "PR", p("zero.uai"), p("zero.evid")}, exitOK, "PR\n-inf\n", ""},
		{[]string{"--task", "PR", "--json", p("zero.uai"), p("zero.evid")}, exitOK, `{"task":"PR","log10":null}`, ""},
		{[]string{"--task", "MAR", "--max-table", "1", p("pair.uai")}, exitError, "", "more than the limit of 1"},
		// Any model pbl reads; evidence by index.
		{[]string{"--task", "PR", p("model.bif"), p("model.evid")}, exitOK, fmt.Sprintf("PR\n%v\n", math.Log10(0.75)), ""},
	} {
		code, stdout, stderr := runUAI(tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("pbl uai %s: exit %d, want %d\nstdout %q (want %q)\nstderr %q (want %q)",
				strings.Join(tc.args, " "), code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
		}
		if strings.Contains(stdout+stderr, "NaN") {
			t.Errorf("pbl uai %s printed NaN", strings.Join(tc.args, " "))
		}
	}
}

// TestUAICorpus runs pbl uai on the corpus instances that variable
// elimination answers in well under a second (see formats/uai's
// corpus_test.go for the others): PR must match the .PR file to its
// printed precision (6 significant digits), MAR the .MAR file to 1e-6
// (its 6 significant digits are within 5e-7), and MPE must keep the
// evidence and have the probability that enumeration-free VE finds with
// the assignment fixed.
func TestUAICorpus(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set PBL_CORPUS")
	}
	for _, name := range []string{"Promedus_24", "Grids_12"} {
		model := filepath.Join(dir, "uai", name+".uai")
		code, stdout, stderr := runUAI("--task", "PR", model)
		if code != exitOK {
			t.Fatalf("%s PR: exit %d: %s", name, code, stderr)
		}
		got, err := uai.ReadPR("stdout", []byte(stdout))
		if err != nil {
			t.Fatal(err)
		}
		wantText := readFields(t, model+".PR")[1]
		want, _ := uai.ReadPR(model+".PR", []byte("PR "+wantText))
		if !(math.Abs(got-want) <= 0.5*printedUnit(wantText)) {
			t.Errorf("%s: PR %v, want %s", name, got, wantText)
		}

		code, stdout, stderr = runUAI("--task", "MAR", model)
		if code != exitOK {
			t.Fatalf("%s MAR: exit %d: %s", name, code, stderr)
		}
		mar, err := uai.ReadMAR("stdout", []byte(stdout))
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(model + ".MAR")
		wantMar, err := uai.ReadMAR(model+".MAR", src)
		if err != nil {
			t.Fatal(err)
		}
		if len(mar) != len(wantMar) {
			t.Fatalf("%s: %d marginals, want %d", name, len(mar), len(wantMar))
		}
		for v := range mar {
			for s := range wantMar[v] {
				if s >= len(mar[v]) || !(math.Abs(mar[v][s]-wantMar[v][s]) <= 1e-6) {
					t.Errorf("%s: marginal of X%d is %v, want %v", name, v, mar[v], wantMar[v])
					break
				}
			}
		}

		code, stdout, stderr = runUAI("--task", "MPE", model)
		if code != exitOK {
			t.Fatalf("%s MPE: exit %d: %s", name, code, stderr)
		}
		f := strings.Fields(stdout)
		if len(f) < 2 || f[0] != "MPE" || f[1] != fmt.Sprint(len(mar)) || len(f) != 2+len(mar) {
			t.Fatalf("%s: MPE output %.80q...", name, stdout)
		}
		ev := readFields(t, model+".evid")
		for i := 1; i+1 < len(ev); i += 2 {
			var v int
			fmt.Sscan(ev[i], &v)
			if f[2+v] != ev[i+1] {
				t.Errorf("%s: MPE gives X%s state %s, but it is observed in state %s", name, ev[i], f[2+v], ev[i+1])
			}
		}
	}
}

// sameOutput reports whether got and want have the same tokens (split at
// white space and JSON punctuation), numbers being equal within 1e-13
// relative: log10 Z is computed as ln Z / ln 10, which may differ from
// math.Log10 in the last bit.
func sameOutput(got, want string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \n\t,:[]{}", r) })
	}
	g, w := split(got), split(want)
	if len(g) != len(w) || strings.Count(got, "\n") != strings.Count(want, "\n") {
		return false
	}
	for i := range g {
		x, errx := strconv.ParseFloat(g[i], 64)
		y, erry := strconv.ParseFloat(w[i], 64)
		if errx == nil && erry == nil {
			if !(math.Abs(x-y) <= 1e-13*math.Abs(y)) {
				return false
			}
		} else if g[i] != w[i] {
			return false
		}
	}
	return true
}

func readFields(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(src))
}

// printedUnit returns a unit in the last digit of a number printed without
// an exponent, as the .PR files print it.
func printedUnit(text string) float64 {
	if i := strings.IndexByte(text, '.'); i >= 0 {
		return math.Pow10(-(len(text) - i - 1))
	}
	return 1
}
