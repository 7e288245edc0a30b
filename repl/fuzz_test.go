package repl

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl/infer"
)

// FuzzFeed feeds lines to a session on the campfire model, as a person or
// a pipe would: commands, queries, declarations over several lines,
// evidence. Whatever the lines, the session must not panic, and nothing
// it prints may be NaN or a Go error value. The limits are small so that
// no input takes long.
func FuzzFeed(f *testing.F) {
	for _, seed := range []string{
		"P(Campfire | Storm=true)",
		":observe Storm=true\nP(Thunder)\n:unobserve\nMPE()",
		"var Smoke: bool\nCampfire -> Smoke\nP(Smoke | Campfire) = {\n true: 0.9\n false: 0.1\n}\nP(Smoke)",
		"/* a comment\nP(Storm)\n*/ indep(Thunder, Campfire | Storm)",
		"data t = { Storm, Lightning\n true, true\n false, ? }\nlearn Lightning from t with bayes(alpha = 1)\nP(Lightning)",
		"expect P(Storm=true) == 0.3\n:evidence\n:vars\n:cpt Campfire\n:graph\n:json on\nP(*)",
		":observe Storm=true Storm=false\nP(Strom)\nMAP(Storm | Thunder=true)",
		"var X: 0..99999999999999999999\nP(Campfire = {",
	} {
		f.Add(seed)
	}
	model, err := filepath.Abs("../examples/campfire.pbl")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input string) {
		// Commands that read or write files, or change the limits, are
		// not for fuzzing.
		for _, cmd := range []string{":load", ":reload", ":graph ", ":engine", "import"} {
			if strings.Contains(input, cmd) {
				t.Skip()
			}
		}
		var out bytes.Buffer
		s := New(Config{Out: &out, Err: &out, Options: infer.Options{MaxTable: 1 << 16, MaxMemory: 1 << 24}})
		if err := s.Load(model); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(input, "\n")
		i := 0
		s.Run(func() (string, error) {
			if i == len(lines) {
				return "", io.EOF
			}
			i++
			return lines[i-1], nil
		})
		// What the session prints may quote the input (an unknown
		// command, a bad name): a word the input holds is not a finding.
		text := out.String()
		for _, bad := range []string{"NaN", "panic", "runtime error", "%!(", "(MISSING)", "(EXTRA "} {
			if strings.Contains(text, bad) && !strings.Contains(input, bad) {
				t.Fatalf("input %q printed %q:\n%s", input, bad, text)
			}
		}
		if badVerb.MatchString(text) && !badVerb.MatchString(input) {
			t.Fatalf("input %q printed a formatting error:\n%s", input, text)
		}
	})
}

// badVerb matches what fmt prints for a verb given the wrong argument.
var badVerb = regexp.MustCompile(`%![a-zA-Z]\(`)
