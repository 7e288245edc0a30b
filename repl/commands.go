package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pbl-lang/pbl/formats/dot"
	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// A replCommand is one of the colon commands.
type replCommand struct {
	name, args, help string
	run              func(s *Session, c *cmdLine)
}

// cmdLine is a command as typed: the position of its ':' and its
// arguments, the words after its name, with theirs, so that an error in a
// command is positioned at what it is about, as <stdin>:LINE:COL, like the
// errors of statements.
type cmdLine struct {
	pos  ir.Pos
	args []word
	rest word // the text after the command's name, as typed, and where it starts
}

// word is a piece of a command line and its position.
type word struct {
	text string
	pos  ir.Pos
}

// texts returns the arguments' texts.
func (c *cmdLine) texts() []string {
	out := make([]string, len(c.args))
	for i, a := range c.args {
		out[i] = a.text
	}
	return out
}

// extra returns the position of the n-th argument (from 0), or of the
// command when there is none: where to report a wrong number of arguments.
func (c *cmdLine) extra(n int) ir.Pos {
	if n < len(c.args) {
		return c.args[n].pos
	}
	return c.pos
}

// splitLine splits line (the input line number lineNo) into words
// separated by white space, each with its position (columns count runes).
func splitLine(line string, lineNo int) []word {
	var out []word
	col, start, startCol := 1, -1, 0
	for i, r := range line {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, word{line[start:i], ir.Pos{File: InputName, Line: lineNo, Col: startCol}})
				start = -1
			}
		} else if start < 0 {
			start, startCol = i, col
		}
		col++
	}
	if start >= 0 {
		out = append(out, word{line[start:], ir.Pos{File: InputName, Line: lineNo, Col: startCol}})
	}
	return out
}

// errorAt reports an error at pos, in the input line being run.
func (s *Session) errorAt(pos ir.Pos, format string, args ...any) {
	s.report(&ir.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}, s.src)
}

// reportAt reports err, at pos unless it has a position of its own (an
// error in a file names the file).
func (s *Session) reportAt(pos ir.Pos, err error) {
	var pe *os.PathError
	if errors.As(err, &pe) {
		s.report(err, "")
		return
	}
	s.report(ir.Positioned(pos, err), s.src)
}

// commands returns the colon commands, in the order help lists them.
// (A function, not a variable: :help's method refers to the list, and a
// list built at start-up would cost every run of pbl.)
func commands() []*replCommand {
	return []*replCommand{
		{"load", "FILE", "load a model file (.pbl, .bif, .xml, .net, .uai), dropping declarations and evidence", (*Session).cmdLoad},
		{"reload", "", "read the model file again and replay the declarations typed since", (*Session).cmdReload},
		{"vars", "", "list the variables with their states and parents", (*Session).cmdVars},
		{"cpt", "X", "print the conditional probability table of X", (*Session).cmdCPT},
		{"graph", "[FILE.dot]", "show the graph, or write it as Graphviz DOT to FILE.dot", (*Session).cmdGraph},
		{"observe", "X=x ...", "add session evidence, applied to every later query", (*Session).cmdObserve},
		{"unobserve", "[X ...]", "remove the evidence on X (all evidence without arguments)", (*Session).cmdUnobserve},
		{"evidence", "", "show the session evidence", (*Session).cmdEvidence},
		{"engine", "[auto|NAME]", "show or set the inference engine (auto or a registered engine: bnb, enum, jt, ve)", (*Session).cmdEngine},
		{"explain", "", "show how the model compiles (elimination order, cliques) for the last query", (*Session).cmdExplain},
		{"json", "[on|off]", "print results as JSON lines (toggles without an argument)", (*Session).cmdJSON},
		{"help", "[COMMAND]", "show this help, or one command's", (*Session).cmdHelp},
		{"quit", "", "end the session (also Ctrl-D)", (*Session).cmdQuit},
	}
}

// commandNames returns ":load", ":reload", ...
func commandNames() []string {
	cmds := commands()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = ":" + c.name
	}
	return names
}

func lookupCommand(name string) *replCommand {
	switch name {
	case "q", "exit":
		name = "quit"
	case "h", "?":
		name = "help"
	}
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// command runs a line whose first non-blank character is ':'.
func (s *Session) command(line string) {
	s.start, s.src = s.line, line
	defer func() { s.src = "" }()
	words := splitLine(line, s.line)
	c := &cmdLine{pos: words[0].pos}
	name := strings.TrimPrefix(words[0].text, ":")
	if name == "" {
		if len(words) == 1 {
			s.errorAt(c.pos, "empty command: type :help for the list")
			return
		}
		name, words = words[1].text, words[1:] // ": observe X=x"
	}
	cmd := lookupCommand(name)
	if cmd == nil {
		msg := fmt.Sprintf("unknown command :%s", name)
		if near := spell.Nearest(":"+name, commandNames()); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		s.errorAt(c.pos, "%s; type :help for the list", msg)
		return
	}
	c.args = words[1:]
	// rest starts after the name, wherever it ends.
	i := strings.Index(line, name) + len(name)
	c.rest = word{line[i:], ir.Pos{File: InputName, Line: s.line, Col: utf8.RuneCountInString(line[:i]) + 1}}
	cmd.run(s, c)
}

func (s *Session) cmdLoad(c *cmdLine) {
	if len(c.args) != 1 {
		s.errorAt(c.extra(1), ":load takes one model file")
		return
	}
	path := c.args[0].text
	if err := s.Load(path); err != nil {
		s.reportAt(c.args[0].pos, err)
		return
	}
	s.note("loaded %s: %s", path, s.summary())
}

func (s *Session) cmdReload(c *cmdLine) {
	if len(c.args) != 0 {
		s.errorAt(c.args[0].pos, ":reload takes no arguments")
		return
	}
	if err := s.Reload(); err != nil {
		s.reportAt(c.pos, err)
		return
	}
	what := s.path
	if what == "" {
		what = "the session"
	}
	s.note("reloaded %s: %s", what, s.summary())
}

// lookupVar finds the variable a word names, reporting an unknown one
// at the word.
func (s *Session) lookupVar(w word) (*ir.Variable, bool) {
	if v, ok := s.model.Lookup(w.text); ok {
		return v, true
	}
	s.reportAt(w.pos, s.nameError(w, word{}))
	return nil, false
}

// nameError returns the error of a query about name (and state, if its
// text is not empty), P(name=state), on the session model, positioned at
// the words: the words a query would get for an undefined variable or an
// unknown state, with the same hints. It is nil if the query is valid.
func (s *Session) nameError(name, state word) error {
	at := func(p ir.Pos) grammar.Position {
		return grammar.Position{Filename: p.File, Line: p.Line, Column: p.Col}
	}
	t := &grammar.Term{Pos: at(name.pos), Name: &grammar.Name{Pos: at(name.pos), Quoted: name.text}}
	if state.text != "" {
		t.State = &grammar.Name{Pos: at(state.pos), Quoted: state.text}
	}
	_, err := ir.LowerQuery(s.model, &grammar.Query{Pos: at(name.pos), Kind: "P", Targets: []*grammar.Term{t}})
	return err
}

func (s *Session) cmdVars(c *cmdLine) {
	m := s.model
	if len(m.Vars) == 0 {
		s.note("no variables yet: :load a model or declare some, as in var Rain: bool")
		return
	}
	var t report.Table
	for _, v := range m.Vars {
		parents := ""
		if ps := m.Parents[v.ID]; len(ps) > 0 {
			parents = "| " + varNames(m, ps)
		}
		t.Add(ir.Quote(v.Name), v.Domain(), parents)
	}
	t.Write(s.out)
}

func varNames(m *ir.Model, vs []ir.VarID) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = ir.Quote(m.Vars[v].Name)
	}
	return strings.Join(names, ", ")
}

func (s *Session) cmdCPT(c *cmdLine) {
	ws := obsWords(c.rest) // a quoted name may hold blanks
	if len(ws) != 1 {
		p := c.pos
		if len(ws) > 1 {
			p = ws[1].pos
		}
		s.errorAt(p, ":cpt takes one variable name, as in :cpt Campfire")
		return
	}
	arg := ws[0]
	s.unrollTo(arg.text)
	v, ok := s.lookupVar(arg)
	if !ok {
		return
	}
	if g := s.model.Gaussian(v.ID); g != nil {
		writeGaussian(s.out, s.model, g)
		return
	}
	if d := s.model.MultiNormal(v.ID); d != nil {
		writeMultiNormal(s.out, s.model, d)
		return
	}
	cpt := s.model.Table(v.ID)
	switch {
	case cpt != nil:
	case slices.Contains(s.model.Unlearned(), v.ID):
		s.errorAt(arg.pos, "%s has no distribution yet: give it one (P(%s | ...) = ...) or learn it", ir.Quote(v.Name), ir.Quote(v.Name))
		return
	case !s.model.IsBayesNet():
		s.errorAt(arg.pos, "%s has no conditional probability table: the model is a Markov network", ir.Quote(v.Name))
		return
	default:
		s.errorAt(arg.pos, "%s has no conditional probability table", ir.Quote(v.Name))
		return
	}
	writeCPT(s.out, s.model, cpt)
}

// writeGaussian prints a real variable's density: a mean and a standard
// deviation per configuration of its parents; for a linear Gaussian one,
// the intercept and each real parent's coefficient in place of the mean.
func writeGaussian(w io.Writer, m *ir.Model, g *ir.Gaussian) {
	var head []string
	for _, p := range g.Parents {
		head = append(head, m.Vars[p].Name)
	}
	if len(head) > 0 {
		head = append(head, "|")
	}
	k := len(g.Real)
	if k > 0 {
		head = append(head, "intercept")
		for _, p := range g.Real {
			head = append(head, m.Vars[p].Name)
		}
		head = append(head, "sd")
	} else {
		head = append(head, "mean", "sd")
	}
	t := report.Table{}
	t.Add(head...)
	a := make([]int, len(g.Parents))
	for r := range g.Mean {
		var row []string
		for i, p := range g.Parents {
			row = append(row, m.Vars[p].States[a[i]])
		}
		if len(g.Parents) > 0 {
			row = append(row, "|")
		}
		row = append(row, report.Num(g.Mean[r]))
		for _, c := range g.Coef[r*k : (r+1)*k] {
			row = append(row, report.Num(c))
		}
		t.Add(append(row, report.Num(g.SD[r]))...)
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < len(m.Vars[g.Parents[i]].States) {
				break
			}
			a[i] = 0
		}
	}
	if k > 0 {
		terms := []string{"intercept"}
		for _, p := range g.Real {
			terms = append(terms, "c·"+ir.Quote(m.Vars[p].Name))
		}
		fmt.Fprintf(w, "P(%s%s) = normal(%s, sd)\n", ir.Quote(m.Vars[g.Child].Name), parentsText(m, append(append([]ir.VarID(nil), g.Parents...), g.Real...)), strings.Join(terms, " + "))
	} else {
		fmt.Fprintf(w, "P(%s%s) = normal(mean, sd)\n", ir.Quote(m.Vars[g.Child].Name), parentsText(m, g.Parents))
	}
	t.Write(w)
}

// writeMultiNormal writes a joint normal density: per parent
// configuration, the means and the covariance matrix's rows.
func writeMultiNormal(w io.Writer, m *ir.Model, d *ir.MultiNormal) {
	n := len(d.Children)
	names := make([]string, n)
	for i, c := range d.Children {
		names[i] = ir.Quote(m.Vars[c].Name)
	}
	fmt.Fprintf(w, "P(%s%s) = normal(means, covariance)\n", strings.Join(names, ", "), parentsText(m, d.Parents))
	head := []string{}
	for _, p := range d.Parents {
		head = append(head, m.Vars[p].Name)
	}
	if len(head) > 0 {
		head = append(head, "|")
	}
	head = append(head, "variable", "mean")
	for _, c := range d.Children {
		head = append(head, "cov "+m.Vars[c].Name)
	}
	t := report.Table{}
	t.Add(head...)
	a := make([]int, len(d.Parents))
	for r := range d.Mean {
		for i, c := range d.Children {
			var row []string
			for k, p := range d.Parents {
				cell := ""
				if i == 0 {
					cell = m.Vars[p].States[a[k]]
				}
				row = append(row, cell)
			}
			if len(d.Parents) > 0 {
				row = append(row, "|")
			}
			row = append(row, m.Vars[c].Name, report.Num(d.Mean[r][i]))
			for j := range n {
				row = append(row, report.Num(d.Cov[r][i*n+j]))
			}
			t.Add(row...)
		}
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < len(m.Vars[d.Parents[i]].States) {
				break
			}
			a[i] = 0
		}
	}
	t.Write(w)
}

func parentsText(m *ir.Model, ps []ir.VarID) string {
	if len(ps) == 0 {
		return ""
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = ir.Quote(m.Vars[p].Name)
	}
	return " | " + strings.Join(names, ", ")
}

func (s *Session) cmdGraph(c *cmdLine) {
	switch len(c.args) {
	case 0:
		writeGraph(s.out, s.model)
	case 1:
		var b bytes.Buffer
		if err := dot.Write(&b, s.model); err != nil {
			s.reportAt(c.pos, err)
			return
		}
		path := c.args[0].text
		if in := s.inputFile(path); in != "" {
			s.errorAt(c.args[0].pos, "%s is the model file %s of this session: :graph does not overwrite it; write to another file", path, in)
			return
		}
		write := s.cfg.WriteFile
		if write == nil {
			write = writeFileAtomic
		}
		if err := write(path, b.Bytes()); err != nil {
			s.reportAt(c.args[0].pos, err)
			return
		}
		s.note("wrote %s", path)
	default:
		s.errorAt(c.args[1].pos, ":graph takes at most one file name")
	}
}

// inputFile returns the model file of the session (the loaded file, a
// file it imports, or one imported in the session) that path names,
// whatever the path or link it is named by, or "".
func (s *Session) inputFile(path string) string {
	files := map[string]bool{s.path: true}
	for f := range s.imported {
		files[f] = true
	}
	for _, v := range s.model.Vars {
		files[v.Pos.File] = true
	}
	return input.Which(path, slices.Sorted(maps.Keys(files))...)
}

// writeFileAtomic writes data to path through a temporary file in the
// same folder, renamed over path once complete. Its errors are
// *os.PathError values naming path, never the temporary file.
func writeFileAtomic(path string, data []byte) error {
	fail := func(err error) error {
		var pe *os.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &le):
			err = le.Err
		}
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".pbl-*.tmp")
	if err != nil {
		return fail(err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fail(err)
	}
	return nil
}

// obsWords splits the arguments of :observe and :unobserve into words:
// names and states (bare, or in double quotes, which may hold blanks and
// Go escapes) and "=" signs, separated by blanks or commas, each with its
// position.
func obsWords(rest word) []word {
	var out []word
	src := []rune(rest.text)
	at := func(i int) ir.Pos { p := rest.pos; p.Col += i; return p }
	for i := 0; i < len(src); {
		r := src[i]
		switch {
		case unicode.IsSpace(r) || r == ',':
			i++
		case r == '=':
			out = append(out, word{"=", at(i)})
			i++
		case r == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				j++
			}
			text := string(src[i:min(j+1, len(src))])
			if u, err := strconv.Unquote(text); err == nil {
				text = u
			} else {
				text = strings.Trim(text, `"`)
			}
			out = append(out, word{text, at(i)})
			i = j + 1
		default:
			j := i
			for j < len(src) && !unicode.IsSpace(src[j]) && src[j] != ',' && src[j] != '=' {
				j++
			}
			out = append(out, word{string(src[i:j]), at(i)})
			i = j
		}
	}
	return out
}

// observation is one X=x of :observe.
type observation struct{ name, state word }

// parseObs parses the observations X=x of :observe, also written X = x,
// separated by blanks or commas. An error is positioned at the word that
// is not part of an X=x.
func parseObs(rest word) ([]observation, error) {
	ws := obsWords(rest)
	var out []observation
	for i := 0; i < len(ws); i += 3 {
		switch {
		case ws[i].text == "=":
			return nil, &ir.Error{Pos: ws[i].pos, Msg: `want X=x, but "=" has no variable before it`}
		case i+1 >= len(ws) || ws[i+1].text != "=":
			return nil, &ir.Error{Pos: ws[i].pos, Msg: fmt.Sprintf("want X=x, not %q", ws[i].text)}
		case i+2 >= len(ws) || ws[i+2].text == "=":
			return nil, &ir.Error{Pos: ws[i+1].pos, Msg: fmt.Sprintf("want X=x, but %s= has no state after it", ir.Quote(ws[i].text))}
		}
		out = append(out, observation{ws[i], ws[i+2]})
	}
	return out, nil
}

// unrollTo unrolls the session's time-indexed model as far as the
// slices names name (Umbrella[50]); a name that is no such slice, or one
// past the most a model is unrolled to, is left to the lookup to report.
func (s *Session) unrollTo(names ...string) {
	if s.model.Time == nil {
		return
	}
	h := -1
	for _, name := range names {
		if n, ok := sliceOf(s.model, name); ok && n <= ir.MaxHorizon {
			h = max(h, n)
		}
	}
	if m, err := ir.Unroll(s.model, h); err == nil {
		s.model = m
	}
}

// sliceOf returns the slice number of name if it names a slice of a
// time-indexed variable of m, Base[N].
func sliceOf(m *ir.Model, name string) (int, bool) {
	i := strings.LastIndexByte(name, '[')
	if i <= 0 || !strings.HasSuffix(name, "]") || m.Time.Var(name[:i]) == nil {
		return 0, false
	}
	n, err := strconv.Atoi(name[i+1 : len(name)-1])
	return n, err == nil && n >= 0
}

func (s *Session) cmdObserve(c *cmdLine) {
	if len(c.args) == 0 {
		s.errorAt(c.pos, ":observe takes observations, as in :observe Storm=true")
		return
	}
	pairs, err := parseObs(c.rest)
	if err != nil {
		s.reportAt(c.pos, err)
		return
	}
	// A slice beyond those unrolled is unrolled to, as a query naming
	// it would be (:observe Umbrella[50]=true).
	names := make([]string, len(pairs))
	for i, p := range pairs {
		names[i] = p.name.text
	}
	s.unrollTo(names...)
	// Validate all before changing anything.
	for i, p := range pairs {
		name, state := p.name.text, p.state.text
		for _, q := range pairs[:i] {
			if q.name.text == name && q.state.text != state {
				s.errorAt(p.name.pos, "%s is given two states, %s=%s and %s=%s; a variable is observed in one state",
					ir.Quote(name), ir.Quote(name), ir.Quote(q.state.text), ir.Quote(name), ir.Quote(state))
				return
			}
		}
		v, ok := s.model.Lookup(name)
		if ok && !v.Discrete() {
			if _, good := realValue(s.model, v, state); !good {
				s.errorAt(p.state.pos, "%s is real-valued: observe it at a finite number, as in %s=1.5 (it needs a density: P(%s | ...) = ...)", ir.Quote(v.Name), ir.Quote(v.Name), ir.Quote(v.Name))
				return
			}
			continue
		}
		if i := strings.LastIndexByte(name, '['); !ok && i > 0 && s.model.Time != nil && s.model.Time.Var(name[:i]) != nil {
			s.errorAt(p.name.pos, "%s: a slice is a whole number from 0 to %d, the last a model is unrolled to", name, ir.MaxHorizon)
			return
		}
		if !ok || v.State(state) < 0 {
			// The error a query would give, P(X=x): an undefined
			// variable or an unknown state, with the same hints.
			s.reportAt(p.name.pos, s.nameError(p.name, p.state))
			return
		}
	}
	for _, p := range pairs {
		replaced := false
		for i := range s.evid {
			if s.evid[i].name == p.name.text {
				s.evid[i].state, replaced = p.state.text, true
			}
		}
		if !replaced {
			s.evid = append(s.evid, obs{p.name.text, p.state.text})
		}
	}
	s.note("evidence: %s", s.evidenceText())
}

func (s *Session) cmdUnobserve(c *cmdLine) {
	if len(c.args) == 0 {
		s.evid = nil
		s.note("evidence cleared")
		return
	}
	ws := obsWords(c.rest)
	for k := 0; k < len(ws); k++ {
		w := ws[k]
		if w.text == "=" {
			k++ // X=x: skip the state
			continue
		}
		i := -1
		for j, o := range s.evid {
			if o.name == w.text {
				i = j
			}
		}
		if i < 0 {
			s.errorAt(w.pos, "%s is not observed (evidence: %s)", ir.Quote(w.text), s.evidenceOrNone())
			continue
		}
		s.evid = append(s.evid[:i], s.evid[i+1:]...)
	}
	s.note("evidence: %s", s.evidenceOrNone())
}

func (s *Session) evidenceOrNone() string {
	if len(s.evid) == 0 {
		return "none"
	}
	return s.evidenceText()
}

func (s *Session) cmdEvidence(c *cmdLine) {
	fmt.Fprintf(s.out, "evidence: %s\n", s.evidenceOrNone())
}

// engineName is the name of opt's engine, "auto" for the default.
func engineName(opt infer.Options) string {
	if opt.Engine == "" {
		return infer.Auto
	}
	return opt.Engine
}

func (s *Session) cmdEngine(c *cmdLine) {
	switch len(c.args) {
	case 0:
		fmt.Fprintf(s.out, "engine: %s (order %s)\n", engineName(s.opt), s.opt.Order)
	case 1:
		e, err := infer.ParseEngine(c.args[0].text)
		if err != nil {
			s.reportAt(c.args[0].pos, err)
			return
		}
		s.opt.Engine = e
		s.note("engine: %s", e)
	default:
		s.errorAt(c.args[1].pos, ":engine takes at most one engine name")
	}
}

func (s *Session) cmdExplain(c *cmdLine) {
	if s.last != nil {
		fmt.Fprintf(s.out, "last query: %s (engine %s)\n", s.last.Head().Text, engineName(s.opt))
	}
	if len(s.model.Vars) == 0 {
		s.errorAt(c.pos, "the model is empty")
		return
	}
	text, err := infer.Explain(s.model, s.opt)
	if err != nil {
		s.reportAt(c.pos, err)
		return
	}
	fmt.Fprint(s.out, text)
}

func (s *Session) cmdJSON(c *cmdLine) {
	args := c.texts()
	switch {
	case len(args) == 0:
		s.json = !s.json
	case len(args) == 1 && (args[0] == "on" || args[0] == "true"):
		s.json = true
	case len(args) == 1 && (args[0] == "off" || args[0] == "false"):
		s.json = false
	default:
		s.errorAt(c.args[0].pos, ":json takes on or off")
		return
	}
	if s.json {
		s.note("json: on")
	} else {
		s.note("json: off")
	}
}

func (s *Session) cmdQuit(c *cmdLine) { s.quit = true }

const helpText = `Type a query, a declaration, or a command.

Queries (the same syntax as in model files; "query" is optional):
  P(Campfire | Storm=true, BusTourGroup=true)   a distribution
  P(Campfire | Storm, BusTourGroup)             a table, one row group per parent state
  P(Campfire=true | Storm=true)                 one number
  P(* | Thunder=true)                           every variable's marginal
  MPE(ForestFire=true)   MAP(Storm | ForestFire=true)   indep(Thunder, Campfire | Storm)
  expect P(Storm) == [0.3, 0.7]                 check a value

Declarations extend the model (a statement may span several lines):
  var Smoke: bool                               a variable still without a distribution
  Campfire -> Smoke
  P(Smoke | Campfire) = {
      true:  0.9
      false: 0.01
  }
  import "more.pbl"                             relative to the current directory
Learn distributions from data, a CSV file or an inline table:
  data t = { Campfire, Smoke   true, true   false, false }
  learn Smoke from t with bayes(alpha = 1)
  learn from "data.csv" with mle                every variable

Evidence set with :observe applies to every later query and shows in the prompt.

Commands:
`

func (s *Session) cmdHelp(cl *cmdLine) {
	if len(cl.args) > 0 {
		arg := cl.args[0]
		c := lookupCommand(strings.TrimPrefix(arg.text, ":"))
		if c == nil {
			s.errorAt(arg.pos, "unknown command %s; type :help for the list", arg.text)
			return
		}
		fmt.Fprintf(s.out, ":%s %s\n  %s\n", c.name, c.args, c.help)
		return
	}
	fmt.Fprint(s.out, helpText)
	var t report.Table
	for _, c := range commands() {
		t.Add("  :"+c.name+" "+c.args, c.help)
	}
	t.Write(s.out)
	fmt.Fprint(s.out, `
Keys: Tab completes commands, keywords, variables, states after "=" and
learning methods after "with"; up and down arrows recall history; Ctrl-C
cancels the line or a running query; Ctrl-D exits.
`)
}
