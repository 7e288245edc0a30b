package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update golden files and scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pbl": main,
	})
}

// corpusDir finds ../shared/corpus (or $PBL_CORPUS), or returns "".
// fileWriter returns a function that writes text to the file name in dir
// and returns its path, failing t if it cannot.
func fileWriter(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func corpusDir() string {
	if d := os.Getenv("PBL_CORPUS"); d != "" {
		return d
	}
	d, _ := filepath.Abs("../../../shared/corpus")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Scripts
// that need the corpus skip themselves when $CORPUS is empty.
func TestScripts(t *testing.T) {
	examples, _ := filepath.Abs("../../examples")
	// Every script, or in the light runs all but the catalogue of bad
	// input (see heavy).
	dir, files := "testdata/script", []string(nil)
	if !heavy() {
		all, err := filepath.Glob("testdata/script/*.txtar")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range all {
			if !strings.HasPrefix(filepath.Base(f), "badinput_") {
				files = append(files, f)
			}
		}
		dir = "" // testscript reads Files only without a Dir
	}
	testscript.Run(t, testscript.Params{
		Dir:           dir,
		Files:         files,
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("EXAMPLES", examples)
			e.Setenv("CORPUS", corpusDir())
			if raceEnabled {
				// A binary built with -race sleeps a second before it
				// exits (GORACE's atexit_sleep_ms, 1000 by default):
				// with hundreds of runs of pbl that was most of the
				// scripts' time under the race detector.
				e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// replace OLD NEW FILE replaces every OLD by NEW in FILE,
			// failing if OLD does not occur.
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: replace OLD NEW FILE")
				}
				file := ts.MkAbs(args[2])
				data := ts.ReadFile(args[2])
				if !strings.Contains(data, args[0]) {
					ts.Fatalf("replace: %q not found in %s", args[0], args[2])
				}
				ts.Check(os.WriteFile(file, []byte(strings.ReplaceAll(data, args[0], args[1])), 0o644))
			},
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				return corpusDir() != "", nil
			case "heavy":
				return heavy(), nil
			}
			return false, nil
		},
	})
}

// TestExamples runs `pbl test` on examples/: every example's expectations
// must hold and its output must match its golden file (pbl test --update
// examples/ rewrites them). Every example must have both.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.pbl")
	if err != nil || len(files) < 5 {
		t.Fatalf("want at least five examples, found %d (%v)", len(files), err)
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "\nexpect ") {
			t.Errorf("%s has no expect statement", path)
		}
		if _, err := os.Stat(goldenPath(path)); err != nil {
			t.Errorf("%s has no golden file: %v", path, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"test", "../../examples"}, &stdout, &stderr); code != 0 {
		t.Errorf("pbl test examples: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), fmt.Sprintf("%d passed, 0 failed", len(files))) {
		t.Errorf("pbl test examples did not test every example:\n%s", stdout.String())
	}
}

// TestBeforeCommand checks that main's set-up (the GC policy) runs once
// for a command that runs, and not at all for help or a usage error.
func TestBeforeCommand(t *testing.T) {
	defer func(f func()) { beforeCommand = f }(beforeCommand)
	campfire := "../../examples/campfire.pbl"
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"help"}, 0},
		{[]string{"help", "query"}, 0},
		{[]string{"query", "--help"}, 0},
		{[]string{}, 0},
		{[]string{"nosuch"}, 0},
		{[]string{"check", "--nope", campfire}, 0},
		{[]string{"check", campfire}, 1},
		{[]string{"query", campfire, "P(Strom)"}, 1}, // runs, then fails
	} {
		calls := 0
		beforeCommand = func() { calls++ }
		var stdout, stderr bytes.Buffer
		run(tc.args, &stdout, &stderr)
		if calls != tc.want {
			t.Errorf("pbl %s: set-up ran %d times, want %d", strings.Join(tc.args, " "), calls, tc.want)
		}
	}
}

// TestExitCodes checks the documented exit statuses: 0 ok, 1 user error,
// 2 bad usage.
func TestExitCodes(t *testing.T) {
	campfire := "../../examples/campfire.pbl"
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"run", campfire}, 0},
		{[]string{"query", campfire, "P(Storm)"}, 0},
		{[]string{"check", campfire}, 0},
		{[]string{"help"}, 0},
		{[]string{"query", "--help"}, 0},
		{[]string{"query", campfire, "P(Strom)"}, 1},
		{[]string{"query", campfire, "P()"}, 1},
		{[]string{"query", campfire, "P(Storm", "P(Storm)"}, 1},
		{[]string{"run", "nosuch.pbl"}, 1},
		{[]string{"check", "nosuch.bif"}, 1},
		{[]string{}, 2},
		{[]string{"nosuch"}, 2},
		{[]string{"help", "nosuch"}, 2},
		{[]string{"run"}, 2},
		{[]string{"run", campfire, campfire}, 2},
		{[]string{"query", campfire}, 2},
		{[]string{"query", "--order", "random", campfire, "P(Storm)"}, 2},
		{[]string{"check"}, 2},
		{[]string{"check", "--nope", campfire}, 2},
		// Conflicting options of a learning method: a usage error on the
		// command line, a model error in a file.
		{[]string{"learn", campfire, "--data", "d.csv", "--method", "bayes", "--alpha", "1", "--ess", "2"}, 2},
		{[]string{"learn", campfire, "--data", "d.csv", "--m", "2"}, 2},
		{[]string{"classify", campfire, "--target", "Storm", "--data", "d.csv", "--cv", "2", "--method", "bayes", "--alpha", "1", "--ess", "2"}, 2},
		{[]string{"check", "testdata/conflict.pbl"}, 1},
		{[]string{"run", "testdata/conflict.pbl"}, 1},
	} {
		var stdout, stderr bytes.Buffer
		if got := run(tc.args, &stdout, &stderr); got != tc.want {
			t.Errorf("pbl %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), got, tc.want, stderr.String())
		}
		if strings.Contains(stdout.String()+stderr.String(), "NaN") {
			t.Errorf("pbl %s printed NaN", strings.Join(tc.args, " "))
		}
	}
}
