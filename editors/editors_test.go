package editors_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/grammar"
)

// rule is a TextMate grammar rule, as far as the test reads it.
type rule struct {
	Name       string           `json:"name"`
	Match      string           `json:"match"`
	Begin      string           `json:"begin"`
	End        string           `json:"end"`
	Include    string           `json:"include"`
	Patterns   []rule           `json:"patterns"`
	Captures   map[string]named `json:"captures"`
	Repository map[string]rule  `json:"repository"`
}

type named struct {
	Name string `json:"name"`
}

type tmGrammar struct {
	Name       string          `json:"name"`
	ScopeName  string          `json:"scopeName"`
	FileTypes  []string        `json:"fileTypes"`
	Patterns   []rule          `json:"patterns"`
	Repository map[string]rule `json:"repository"`
}

func readGrammar(t *testing.T) *tmGrammar {
	t.Helper()
	src, err := os.ReadFile("vscode/syntaxes/pbl.tmLanguage.json")
	if err != nil {
		t.Fatal(err)
	}
	var g tmGrammar
	dec := json.NewDecoder(strings.NewReader(string(src)))
	if err := dec.Decode(&g); err != nil {
		t.Fatalf("the TextMate grammar is not valid JSON: %v", err)
	}
	return &g
}

// rules returns every rule of g, nested ones included.
func (g *tmGrammar) rules() []rule {
	var all []rule
	var walk func(r rule)
	walk = func(r rule) {
		all = append(all, r)
		for _, p := range r.Patterns {
			walk(p)
		}
	}
	for _, r := range g.Patterns {
		walk(r)
	}
	for _, r := range g.Repository {
		walk(r)
	}
	return all
}

// TestTextMateGrammar: the grammar parses, names its scope and file type,
// every include names a rule of the repository, and every regular
// expression compiles (the grammar keeps to what Go's regexp shares with
// Oniguruma: no lookarounds or backreferences).
func TestTextMateGrammar(t *testing.T) {
	g := readGrammar(t)
	if g.ScopeName != "source.pbl" || !slices.Contains(g.FileTypes, "pbl") {
		t.Errorf("scope %q, file types %q: want source.pbl and pbl", g.ScopeName, g.FileTypes)
	}
	for _, r := range g.rules() {
		if r.Include != "" {
			if _, ok := g.Repository[strings.TrimPrefix(r.Include, "#")]; !ok || !strings.HasPrefix(r.Include, "#") {
				t.Errorf("include %q names no rule of the repository", r.Include)
			}
		}
		for _, re := range []string{r.Match, r.Begin, r.End} {
			if re == "" {
				continue
			}
			if _, err := regexp.Compile(re); err != nil {
				t.Errorf("rule %q: %v", r.Name, err)
			}
		}
	}
	// The package manifest names the grammar and the language.
	src, err := os.ReadFile("vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Languages []struct {
				ID         string   `json:"id"`
				Extensions []string `json:"extensions"`
			} `json:"languages"`
			Grammars []struct {
				Language, ScopeName, Path string
			} `json:"grammars"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(src, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	c := pkg.Contributes
	if len(c.Languages) != 1 || c.Languages[0].ID != "pbl" || !slices.Equal(c.Languages[0].Extensions, []string{".pbl"}) ||
		len(c.Grammars) != 1 || c.Grammars[0].ScopeName != "source.pbl" || c.Grammars[0].Path != "./syntaxes/pbl.tmLanguage.json" {
		t.Errorf("package.json contributes %+v, want the language pbl (.pbl) and its grammar source.pbl", c)
	}
}

// TestTextMateKeywords: each keyword is matched, whole, by a rule of the
// TextMate grammar that gives it a scope, where it would stand (query
// forms only before a parenthesis): a rule for keywords, not one that
// matches any name.
func TestTextMateKeywords(t *testing.T) {
	g := readGrammar(t)
	type compiled struct {
		re    *regexp.Regexp
		named bool // the rule or its first capture has a scope
	}
	var res []compiled
	for _, r := range g.rules() {
		for _, s := range []string{r.Match, r.Begin} {
			if s == "" {
				continue
			}
			re, err := regexp.Compile(s)
			if err != nil {
				continue // TestTextMateGrammar reports it
			}
			if loc := re.FindStringIndex("zzqx("); loc != nil && loc[0] == 0 {
				continue // a rule for any name, not for keywords
			}
			res = append(res, compiled{re, r.Name != "" || r.Captures["1"].Name != ""})
		}
	}
	for _, kw := range grammar.Keywords {
		found := false
		for _, c := range res {
			for _, text := range []string{kw + " ", kw + "("} {
				if loc := c.re.FindStringIndex(text); c.named && loc != nil && loc[0] == 0 && loc[1] >= len(kw) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("keyword %q is not coloured by the TextMate grammar", kw)
		}
	}
	// A word that merely starts with a keyword is not one.
	for _, c := range res {
		for _, text := range []string{"variable ", "Pb(", "normalized "} {
			word := strings.TrimRight(text, " (")
			if loc := c.re.FindStringIndex(text); c.named && loc != nil && loc[0] == 0 && loc[1] > 0 && loc[1] < len(word) {
				t.Errorf("%q colours the start of %q", c.re, text)
			}
		}
	}
}

// TestVimKeywords: each keyword is in a syn keyword list of the Vim
// syntax file, or named by a syn match.
func TestVimKeywords(t *testing.T) {
	src, err := os.ReadFile("vim/syntax/pbl.vim")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	var matches []string
	for _, line := range strings.Split(string(src), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "syn" {
			continue
		}
		switch f[1] {
		case "keyword":
			for _, w := range f[3:] {
				if !strings.Contains(w, "=") {
					words[w] = true
				}
			}
		case "match":
			matches = append(matches, line)
		}
	}
	for _, kw := range grammar.Keywords {
		if words[kw] {
			continue
		}
		// In a syn match, a keyword is one alternative of \%(...\|...\).
		alt := regexp.MustCompile(`(\\%\(|\\\|)` + regexp.QuoteMeta(kw) + `(\\\||\\\))`)
		if !slices.ContainsFunc(matches, alt.MatchString) {
			t.Errorf("keyword %q is not in the Vim syntax file", kw)
		}
	}
	for _, file := range []string{"vim/ftdetect/pbl.vim", "vim/ftplugin/pbl.vim"} {
		if _, err := os.Stat(file); err != nil {
			t.Error(err)
		}
	}
}

// TestVimHighlights runs Vim, if it is installed, on a file with every
// keyword where it would stand, and checks that the syntax file gives each
// a highlight group, and the query forms only before a parenthesis.
func TestVimHighlights(t *testing.T) {
	vim, err := exec.LookPath("vim")
	if err != nil {
		t.Skip("vim not found")
	}
	dir := t.TempDir()
	queryForms := map[string]bool{"P": true, "MPE": true, "MAP": true, "ML": true, "MDL": true, "Gibbs": true,
		"indep": true, "density": true, "entropy": true, "MI": true, "MEU": true, "policy": true, "EU": true, "identify": true, "adjust": true, "CF": true, "do": true}
	var lines []string
	for _, kw := range grammar.Keywords {
		if queryForms[kw] {
			lines = append(lines, kw+"(A)", kw+" -> B")
		} else {
			lines = append(lines, kw+" x")
		}
	}
	model := filepath.Join(dir, "m.pbl")
	if err := os.WriteFile(model, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("vim")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "groups.txt")
	script := filepath.Join(dir, "t.vim")
	err = os.WriteFile(script, []byte(`set runtimepath^=`+abs+`
filetype plugin on
syntax on
edit `+model+`
let groups = [&filetype]
for lnum in range(1, line('$'))
  call add(groups, synIDattr(synID(lnum, 1, 1), 'name'))
endfor
call writefile(groups, '`+out+`')
qall!
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(vim, "-Nu", "NONE", "-i", "NONE", "-es", "-S", script)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	groups := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(groups) != len(lines)+1 || groups[0] != "pbl" {
		t.Fatalf("vim gave %q for %d lines (want the filetype pbl first)", groups, len(lines))
	}
	for i, line := range lines {
		g := groups[i+1]
		kw := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '(' })[0]
		switch {
		case strings.HasSuffix(line, " -> B") && g != "":
			t.Errorf("%q: %s is a variable here, highlighted as %s", line, kw, g)
		case !strings.HasSuffix(line, " -> B") && !strings.HasPrefix(g, "pbl"):
			t.Errorf("%q: %s has no pbl highlight group (%q)", line, kw, g)
		}
	}
}
