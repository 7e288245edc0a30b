package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCLIDoc checks that docs/cli.md has a section "## pbl NAME" for every
// command `pbl help` lists (help itself may go without), and that every
// such heading names a command that exists.
func TestCLIDoc(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("pbl help: exit %d: %s", code, stderr.String())
	}
	listed := helpCommands(stdout.String())
	if len(listed) == 0 {
		t.Fatalf("pbl help lists no command (want lines \"  pbl NAME ...\"):\n%s", stdout.String())
	}
	src, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := docCommands(string(src))

	for _, name := range listed {
		if !documented[name] && name != "help" {
			t.Errorf("docs/cli.md has no section \"## pbl %s\" for the command %q that pbl help lists", name, name)
		}
	}
	known := map[string]bool{}
	for _, name := range listed {
		known[name] = true
	}
	for name := range documented {
		if !known[name] {
			t.Errorf("docs/cli.md has a section \"## pbl %s\", but pbl has no command %q", name, name)
		}
	}
}

// helpCommands returns the command names of the lines "  pbl NAME ..." of
// pbl help's output, in order.
func helpCommands(help string) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  pbl ([a-z][a-z0-9-]*)\b`).FindAllStringSubmatch(help, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			names = append(names, m[1])
		}
	}
	return names
}

// docCommands returns the commands named by Markdown headings of any level
// that start with "pbl NAME" (optionally in backquotes), outside code
// blocks.
func docCommands(doc string) map[string]bool {
	heading := regexp.MustCompile("^#{1,6}[ \t]+`?pbl[ \t]+([^ \t`]+)")
	names := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			names[m[1]] = true
		}
	}
	return names
}
