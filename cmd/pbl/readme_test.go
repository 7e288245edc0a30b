package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADME runs the README's opening example and compares the output it
// shows, and checks that the commands it gives exist and work.
func TestREADME(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```\n(.*?)```").FindAllStringSubmatch(string(src), -1)
	if len(blocks) < 3 {
		t.Fatalf("README has %d code blocks, want the model, its output and the commands", len(blocks))
	}
	model, shown := blocks[0][1], blocks[1][1]
	first, rest, _ := strings.Cut(shown, "\n")
	name, ok := strings.CutPrefix(first, "$ pbl run ")
	if !ok {
		t.Fatalf("README output block starts %q, want $ pbl run examples/...", first)
	}
	file, err := os.ReadFile(filepath.Join("../..", name))
	if err != nil {
		t.Fatalf("README runs %s: %v", name, err)
	}
	// expect lines print nothing; the README leaves them out.
	var shownFile []string
	for _, line := range strings.SplitAfter(string(file), "\n") {
		if !strings.HasPrefix(line, "expect ") {
			shownFile = append(shownFile, line)
		}
	}
	if strings.Join(shownFile, "") != model {
		t.Errorf("README's model block is not %s as it is (less its expect lines)", name)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", filepath.Join("../..", name)}, &stdout, &stderr); code != 0 {
		t.Fatalf("README example: exit %d: %s", code, stderr.String())
	}
	if stdout.String() != rest {
		t.Errorf("README shows:\n%s\npbl prints:\n%s", rest, stdout.String())
	}

	// The two commands of a fresh machine, and the others shown.
	cmds := blocks[2][1]
	for _, want := range []string{"go run ./cmd/pbl run examples/campfire.pbl", "go test ./..."} {
		if !strings.Contains(cmds, want) {
			t.Errorf("README does not show %q", want)
		}
	}
	for _, line := range strings.Split(string(src), "\n") {
		args, ok := strings.CutPrefix(line, "go run ./cmd/pbl ")
		if !ok {
			continue
		}
		argv := shellWords(args)
		for i, a := range argv {
			if strings.HasPrefix(a, "examples/") || strings.HasPrefix(a, "../shared/") {
				argv[i] = "../../" + a
			}
		}
		if strings.Contains(args, "../shared/") && corpusDir() == "" {
			continue
		}
		// The light runs (see heavy) give the commands over every
		// example (check examples/*.pbl, test examples/) one: the learn
		// statements of latent_class.pbl alone take half a minute under
		// -race, and TestExamples runs every example in every run.
		if strings.Contains(args, "examples/*.pbl") {
			files, _ := filepath.Glob("../../examples/*.pbl")
			if !heavy() && len(files) > 1 {
				files = files[:1]
			}
			argv = append(argv[:len(argv)-1], files...)
		}
		if i := len(argv) - 1; !heavy() && i > 0 && (argv[i] == "../../examples/" || argv[i] == "../../examples") {
			argv[i] = "../../examples/campfire.pbl"
		}
		stdout.Reset()
		stderr.Reset()
		if code := run(argv, &stdout, &stderr); code != 0 {
			t.Errorf("README command %q: exit %d: %s", line, code, stderr.String())
		}
	}
}

// shellWords splits a command line on spaces, honouring single quotes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, have = !quoted, true
		case r == ' ' && !quoted:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}
