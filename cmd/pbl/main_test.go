package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "update golden files and scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pbl": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// corpusDir finds ../shared/corpus (or $PBL_CORPUS), or returns "".
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
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("EXAMPLES", examples)
			e.Setenv("CORPUS", corpusDir())
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "corpus" {
				return corpusDir() != "", nil
			}
			return false, nil
		},
	})
}

// TestExamples runs every examples/*.pbl with `pbl run` and `pbl run
// --json` and compares the output with testdata/examples/NAME.txtar.
// With -update it rewrites the golden files.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.pbl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".pbl")
		t.Run(name, func(t *testing.T) {
			var got txtar.Archive
			got.Comment = []byte("Golden output of pbl run examples/" + name + ".pbl (go test ./cmd/pbl -run TestExamples -update rewrites it).\n")
			for _, args := range [][]string{{"run", path}, {"run", "--json", path}} {
				var stdout, stderr bytes.Buffer
				if code := run(args, &stdout, &stderr); code != 0 {
					t.Fatalf("pbl %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
				}
				section := "stdout"
				if args[1] == "--json" {
					section = "stdout.json"
				}
				got.Files = append(got.Files, txtar.File{Name: section, Data: stdout.Bytes()})
			}
			golden := filepath.Join("testdata/examples", name+".txtar")
			if *update {
				if err := os.WriteFile(golden, txtar.Format(&got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := txtar.ParseFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			for i, f := range got.Files {
				if i >= len(want.Files) || want.Files[i].Name != f.Name {
					t.Fatalf("%s: section %s missing", golden, f.Name)
				}
				if w := want.Files[i].Data; !bytes.Equal(f.Data, w) {
					t.Errorf("%s: %s differs\ngot:\n%s\nwant:\n%s", golden, f.Name, f.Data, w)
				}
			}
		})
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
