package main

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestCLIDoc checks that docs/cli.md has a section "## pbl NAME" for every
// command `pbl help` lists (help itself may go without), and that every
// such heading names a command that exists.
func TestCLIDoc(t *testing.T) {
	listed := helpCommands(helpText(t))
	if len(listed) == 0 {
		t.Fatalf("pbl help lists no command (want lines \"  pbl NAME ...\"):\n%s", helpText(t))
	}
	documented := docCommands(cliDoc(t))

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

// TestCLIDocCommands checks that pbl help, docs/cli.md's opening list and
// the commands table name the same commands, with the arguments each
// command's usage line gives.
func TestCLIDocCommands(t *testing.T) {
	help := helpText(t)
	if _, list, ok := strings.Cut(help, "\nUsage:\n"); ok {
		help = list
	}
	opening := docOpeningList(t, cliDoc(t))
	for _, src := range []struct{ what, text string }{{"pbl help", help}, {"docs/cli.md's opening list", opening}} {
		lines := commandLines(src.text)
		for _, cmd := range commands {
			line, ok := lines[cmd.name]
			if !ok {
				t.Errorf("%s does not list the command %q", src.what, cmd.name)
				continue
			}
			// The line may show some of the flags; their brackets
			// aside, it starts as the command's usage line.
			want := strings.TrimSpace("pbl " + cmd.name + " " + noFlags(cmd.args))
			if !strings.HasPrefix(noFlags(line), want) {
				t.Errorf("%s lists %q, want it to start as the usage line, %q (flags in brackets aside)", src.what, line, want)
			}
		}
		for name := range lines {
			if name != "help" && lookup(name) == nil {
				t.Errorf("%s lists %q, which is not a command", src.what, name)
			}
		}
		if _, ok := lines["help"]; !ok {
			t.Errorf("%s does not list pbl help", src.what)
		}
	}
}

// noFlags returns a usage line without its flags in brackets
// ([--task PR|MAR|MPE], [-w]), spaces collapsed.
func noFlags(line string) string {
	line = regexp.MustCompile(`\[-[^\]]*\]`).ReplaceAllString(line, "")
	return strings.Join(strings.Fields(line), " ")
}

// TestCLIDocFlags checks that every flag of every command's --help is
// documented in docs/cli.md: in the command's section, in a section it
// links to (the inference flags, the learning methods), or in the opening
// (the flags every command takes); and that the flags a section's synopsis
// shows exist.
func TestCLIDocFlags(t *testing.T) {
	doc := cliDoc(t)
	sections := docSections(doc)
	opening := doc[:strings.Index(doc, "\n## ")]
	link := regexp.MustCompile(`\]\(#([a-z0-9-]+)\)`)
	synopsisFlag := regexp.MustCompile(`(?:^|[\s\[])--?([a-z][a-z0-9-]*)`)
	for _, cmd := range commands {
		usage := commandHelp(t, cmd.name)
		flags := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(usage, -1)
		sec, ok := sections["pbl-"+cmd.name]
		if !ok {
			continue // TestCLIDoc reports it
		}
		where := sec + opening
		for _, m := range link.FindAllStringSubmatch(sec, -1) {
			where += sections[m[1]]
		}
		have := map[string]bool{}
		for _, f := range flags {
			have[f[1]] = true
			if !regexp.MustCompile("(^|[\\s\\[`])--?" + regexp.QuoteMeta(f[1]) + "([\\s\\]`=]|$)").MatchString(where) {
				t.Errorf("pbl %s --help lists the flag -%s, which docs/cli.md's section \"## pbl %s\" (or a section it links to) does not show as --%s", cmd.name, f[1], cmd.name, f[1])
			}
		}
		for _, m := range synopsisFlag.FindAllStringSubmatch(firstCodeBlock(sec), -1) {
			if !have[m[1]] {
				t.Errorf("docs/cli.md's synopsis of pbl %s shows the flag -%s, which pbl %s --help does not list", cmd.name, m[1], cmd.name)
			}
		}
	}
}

// TestCLIDocQueries checks that pbl help's list of query forms and the
// section "## pbl query" of docs/cli.md show every kind of query the
// language knows (ir.QueryKind) and every form of a query's terms the
// grammar knows (grammar.Term: *, {A, B}, do(X=x), X=x, X~[...]).
func TestCLIDocQueries(t *testing.T) {
	help := helpText(t)
	i := strings.Index(help, "\nQueries")
	if i < 0 {
		t.Fatalf("pbl help has no paragraph \"Queries ...\":\n%s", help)
	}
	queries := help[i:]
	sec := docSections(cliDoc(t))["pbl-query"]
	forms := queryForms(t)
	for _, f := range forms {
		if !strings.Contains(queries, f) {
			t.Errorf("pbl help's list of queries shows no %q:\n%s", f, queries)
		}
		if !strings.Contains(sec, f) {
			t.Errorf("docs/cli.md's section \"## pbl query\" shows no %q", f)
		}
	}
	// pbl query loads a model as every command does: its learn
	// statements run (docs/cli.md "One meaning for a file").
	if q := commandHelp(t, "query"); !strings.Contains(q, "learn statements run") {
		t.Errorf("pbl query --help does not say that a model's learn statements run:\n%s", q)
	}
}

// queryForms returns what a list of queries must show: "KIND(" for every
// keyword of ir.QueryKeywords, and for every alternative of grammar.Term the literal
// tokens it starts with ("do(", "~[", "*", ...).
func queryForms(t *testing.T) []string {
	var forms []string
	for _, k := range ir.QueryKeywords() {
		forms = append(forms, k+"(")
	}
	if len(forms) < 10 {
		t.Fatalf("ir.QueryKeywords has %d keywords, want at least 10: %v", len(forms), forms)
	}
	// A field's tag is a participle rule; its leading literals, before
	// the first capture, are what a user types to start the form.
	lit := regexp.MustCompile(`^'([^']*)'(?::[A-Za-z]+)?`)
	typ := reflect.TypeOf(grammar.Term{})
	for i := 0; i < typ.NumField(); i++ {
		tag := typ.Field(i).Tag.Get("parser")
		rule := strings.TrimLeft(tag, "|( ")
		var start string
		for {
			m := lit.FindStringSubmatch(rule)
			if m == nil {
				break
			}
			start += m[1]
			rule = strings.TrimLeft(rule[len(m[0]):], " ")
		}
		if start != "" {
			forms = append(forms, start)
		}
	}
	for _, want := range []string{"do(", "~["} {
		if !contains(forms, want) {
			t.Fatalf("query forms %q derived from grammar.Term lack %q: has the grammar changed?", forms, want)
		}
	}
	return forms
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCLIDocMethods checks that every learning method of learn.Methods is
// named by pbl learn --help, by pbl help's and docs/cli.md's lines for pbl
// learn, and by the synopsis of docs/cli.md's section "## pbl learn".
func TestCLIDocMethods(t *testing.T) {
	doc := cliDoc(t)
	texts := []struct{ what, text string }{
		{"pbl learn --help", commandHelp(t, "learn")},
		{"pbl help's lines for pbl learn", commandEntry(helpText(t), "learn")},
		{"docs/cli.md's opening list's lines for pbl learn", commandEntry(docOpeningList(t, doc), "learn")},
		{"the synopsis of docs/cli.md's \"## pbl learn\"", firstCodeBlock(docSections(doc)["pbl-learn"])},
	}
	for _, s := range learn.Methods {
		word := regexp.MustCompile(`(^|[^a-z])` + regexp.QuoteMeta(s.Name) + `($|[^a-z])`)
		for _, x := range texts {
			if !word.MatchString(x.text) {
				t.Errorf("%s does not name the learning method %q:\n%s", x.what, s.Name, x.text)
			}
		}
	}
}

func helpText(t *testing.T) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("pbl help: exit %d: %s", code, stderr.String())
	}
	return stdout.String()
}

// commandHelp returns the output of pbl NAME --help.
func commandHelp(t *testing.T, name string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{name, "--help"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("pbl %s --help: exit %d: %s", name, code, stderr.String())
	}
	return stdout.String()
}

func cliDoc(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// docOpeningList returns the code block that opens docs/cli.md: its list
// of commands.
func docOpeningList(t *testing.T, doc string) string {
	t.Helper()
	end := strings.Index(doc, "\n## ")
	if end < 0 {
		end = len(doc)
	}
	block := firstCodeBlock(doc[:end])
	if block == "" {
		t.Fatal("docs/cli.md does not open with a code block listing the commands")
	}
	return block
}

// firstCodeBlock returns the contents of text's first ``` block, or "".
func firstCodeBlock(text string) string {
	_, rest, ok := strings.Cut(text, "```")
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, "\n") // the fence's info string
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// commandLines returns, for each command a list of commands names, its
// first line from "pbl NAME" on, spaces collapsed.
func commandLines(list string) map[string]string {
	lines := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^[ \t]*(pbl ([a-z][a-z0-9-]*)\b.*)$`).FindAllStringSubmatch(list, -1) {
		if _, dup := lines[m[2]]; !dup {
			lines[m[2]] = strings.Join(strings.Fields(m[1]), " ")
		}
	}
	return lines
}

// commandEntry returns the lines of a list of commands about pbl name:
// its line and the indented lines that continue it.
func commandEntry(list, name string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(list, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "pbl ") {
			in = strings.HasPrefix(trimmed, "pbl "+name+" ") || trimmed == "pbl "+name
		} else if trimmed == "" || !strings.HasPrefix(line, "   ") {
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// docSections returns docs/cli.md's sections by their anchors (GitHub's:
// "## pbl query" is #pbl-query), each from its heading to the next heading
// of the same or a higher level, subsections included.
func docSections(doc string) map[string]string {
	type heading struct {
		level, at int
		anchor    string
	}
	var hs []heading
	fenced := false
	at := 0
	for _, line := range strings.SplitAfter(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			level := len(line) - len(strings.TrimLeft(line, "#"))
			hs = append(hs, heading{level, at, anchor(strings.TrimSpace(line[level:]))})
		}
		at += len(line)
	}
	sections := map[string]string{}
	for i, h := range hs {
		end := len(doc)
		for _, next := range hs[i+1:] {
			if next.level <= h.level {
				end = next.at
				break
			}
		}
		sections[h.anchor] = doc[h.at:end]
	}
	return sections
}

// anchor returns GitHub's anchor of a heading: lower case, punctuation
// dropped, spaces as hyphens.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
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
