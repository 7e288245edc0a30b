package repl

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// Complete returns the completions of the word before the cursor, in the
// form of liner's WordCompleter: line is the line being edited and pos
// the cursor's position in runes; the line becomes head + c + tail for a
// chosen completion c. It completes command names after ":", variable
// names and keywords, states after "X=", learning methods and their
// options after "with" in a learn statement, file names after :load and
// :graph, and the arguments of :engine, :json and :help.
func (s *Session) Complete(line string, pos int) (head string, completions []string, tail string) {
	r := []rune(line)
	pos = min(max(pos, 0), len(r))
	before, tail := string(r[:pos]), string(r[pos:])
	trimmed := strings.TrimLeft(before, " \t")
	if strings.HasPrefix(trimmed, ":") && len(s.pending) == 0 {
		return s.completeCommand(before, trimmed, tail)
	}
	start := wordStart(before)
	head, word := before[:start], before[start:]
	if v := s.varBeforeEquals(head); v != nil {
		return head, prefixed(quoteAll(v.States), word), tail
	}
	if cands, ok := s.learnCompletions(head); ok {
		return head, prefixed(cands, word), tail
	}
	cands := quoteAll(s.model.Names())
	cands = append(cands, grammar.Keywords...)
	return head, prefixed(cands, word), tail
}

func (s *Session) completeCommand(before, trimmed, tail string) (string, []string, string) {
	if !strings.ContainsAny(trimmed, " \t") {
		start := len(before) - len(trimmed)
		names := prefixed(commandNames(), trimmed)
		if len(names) == 1 && lookupCommand(names[0][1:]).args != "" {
			names[0] += " " // on to its arguments
		}
		return before[:start], names, tail
	}
	name := strings.Fields(trimmed)[0][1:]
	c := lookupCommand(name)
	if c == nil {
		return before, nil, tail
	}
	// The argument being typed runs from the last blank.
	argStart := strings.LastIndexAny(before, " \t") + 1
	arg := before[argStart:]
	switch c.name {
	case "load", "graph":
		return before[:argStart], completeFile(arg, c.name == "load"), tail
	case "engine":
		names := []string{infer.Auto} // and the registered engines
		for _, e := range infer.Engines() {
			names = append(names, e.Name())
		}
		return before[:argStart], prefixed(names, arg), tail
	case "json":
		return before[:argStart], prefixed([]string{"on", "off"}, arg), tail
	case "help":
		cmds := commands()
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.name
		}
		return before[:argStart], prefixed(names, arg), tail
	case "cpt":
		return before[:argStart], prefixed(quoteAll(s.model.Names()), arg), tail
	case "unobserve":
		var names []string
		for _, o := range s.evid {
			names = append(names, ir.Quote(o.name))
		}
		return before[:argStart], prefixed(names, arg), tail
	case "observe":
		start := wordStart(before)
		head, word := before[:start], before[start:]
		if v := s.varBeforeEquals(head); v != nil {
			return head, prefixed(quoteAll(v.States), word), tail
		}
		var names []string
		for _, v := range s.model.Vars {
			if v.Discrete() {
				names = append(names, ir.Quote(v.Name)+"=")
			}
		}
		return head, prefixed(names, word), tail
	}
	return before, nil, tail
}

// learnCompletions completes a learn statement's method: after "with",
// the names of the learning methods; inside "with NAME(", the options of
// that method not given yet. head is the text of the line before the word
// being completed; a statement in progress on earlier lines counts too.
// It reports false anywhere else.
func (s *Session) learnCompletions(head string) ([]string, bool) {
	text := head
	if len(s.pending) > 0 {
		text = strings.Join(s.pending, "\n") + "\n" + head
	}
	var toks []grammar.Token
	sc := grammar.NewScanner(InputName, text)
	for {
		t, err := sc.Next()
		if err != nil {
			return nil, false
		}
		if t.Type == grammar.EOF {
			break
		}
		toks = append(toks, t)
	}
	isWith := func(t grammar.Token) bool { return t.Type == grammar.Ident && t.Value == "with" }
	n := len(toks)
	if n > 0 && isWith(toks[n-1]) {
		return learn.MethodNames(), true
	}
	// Back from the end over the options written so far, to "with NAME (".
	i := n
	for i > 0 && (toks[i-1].Type == grammar.Ident || toks[i-1].Type == grammar.Number ||
		toks[i-1].Type == grammar.Punct && (toks[i-1].Value == "=" || toks[i-1].Value == ",")) {
		i--
	}
	if i >= 3 && toks[i-1].Type == grammar.Punct && toks[i-1].Value == "(" && toks[i-2].Type == grammar.Ident && isWith(toks[i-3]) {
		spec, err := learn.LookupMethod(toks[i-2].Value)
		if err != nil {
			return nil, true
		}
		given := map[string]bool{} // and those excluded by an option given
		for _, t := range toks[i:] {
			if t.Type != grammar.Ident {
				continue
			}
			given[t.Value] = true
			for _, group := range spec.Exclusive {
				if slices.Contains(group, t.Value) {
					for _, o := range group {
						given[o] = true
					}
				}
			}
		}
		var names []string
		for _, o := range spec.Options {
			if !given[o.Name] {
				names = append(names, o.Name)
			}
		}
		return names, true
	}
	return nil, false
}

// wordStart returns the byte offset where the name before the end of s
// starts.
func wordStart(s string) int {
	r := []rune(s)
	i := len(r)
	for i > 0 && isNameRune(r[i-1]) {
		i--
	}
	return len(string(r[:i]))
}

func isNameRune(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }

// varBeforeEquals returns the variable named just before a trailing "="
// in head ("P(X | Storm=" gives Storm), or nil.
func (s *Session) varBeforeEquals(head string) *ir.Variable {
	name, ok := grammar.NameBeforeEquals(head)
	if !ok {
		return nil
	}
	v, ok := s.model.Lookup(name)
	if !ok || !v.Discrete() {
		return nil
	}
	return v
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ir.Quote(n)
	}
	return out
}

// prefixed returns the candidates that start with prefix, sorted, without
// repeats.
func prefixed(cands []string, prefix string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// completeFile completes a file name; with models, only folders and model
// files are offered.
func completeFile(arg string, models bool) []string {
	dir, base := filepath.Split(arg)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			out = append(out, dir+name+"/")
			continue
		}
		if models && !isModelFile(name) {
			continue
		}
		out = append(out, dir+name)
	}
	sort.Strings(out)
	return out
}

func isModelFile(name string) bool {
	lower := strings.ToLower(name)
	for _, ext := range []string{".pbl", ".bif", ".bif.gz", ".xml", ".xmlbif", ".net", ".uai"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}
