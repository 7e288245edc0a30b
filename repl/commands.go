package repl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/formats/dot"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/spell"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// A replCommand is one of the colon commands.
type replCommand struct {
	name, args, help string
	run              func(s *Session, args []string)
}

var commands []*replCommand

func init() {
	commands = []*replCommand{
		{"load", "FILE", "load a model file (.pbl, .bif, .xml, .net, .uai), dropping declarations and evidence", (*Session).cmdLoad},
		{"reload", "", "read the model file again and replay the declarations typed since", (*Session).cmdReload},
		{"vars", "", "list the variables with their states and parents", (*Session).cmdVars},
		{"cpt", "X", "print the conditional probability table of X", (*Session).cmdCPT},
		{"graph", "[FILE.dot]", "show the graph, or write it as Graphviz DOT to FILE.dot", (*Session).cmdGraph},
		{"observe", "X=x ...", "add session evidence, applied to every later query", (*Session).cmdObserve},
		{"unobserve", "[X ...]", "remove the evidence on X (all evidence without arguments)", (*Session).cmdUnobserve},
		{"evidence", "", "show the session evidence", (*Session).cmdEvidence},
		{"engine", "[auto|enum|ve|jt]", "show or set the inference engine", (*Session).cmdEngine},
		{"explain", "", "show how the model compiles (elimination order, cliques) for the last query", (*Session).cmdExplain},
		{"json", "[on|off]", "print results as JSON lines (toggles without an argument)", (*Session).cmdJSON},
		{"help", "[COMMAND]", "show this help, or one command's", (*Session).cmdHelp},
		{"quit", "", "end the session (also Ctrl-D)", (*Session).cmdQuit},
	}
}

// commandNames returns ":load", ":reload", ...
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
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
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// command runs a line that starts with ':'.
func (s *Session) command(line string) {
	fields := strings.Fields(line[1:])
	if len(fields) == 0 {
		s.errorf("empty command: type :help for the list")
		return
	}
	c := lookupCommand(fields[0])
	if c == nil {
		msg := fmt.Sprintf("unknown command :%s", fields[0])
		if near := spell.Nearest(":"+fields[0], commandNames()); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		s.errorf("%s; type :help for the list", msg)
		return
	}
	c.run(s, fields[1:])
}

func (s *Session) cmdLoad(args []string) {
	if len(args) != 1 {
		s.errorf(":load takes one model file")
		return
	}
	if err := s.Load(args[0]); err != nil {
		s.report(err, "")
		return
	}
	s.note("loaded %s: %s", args[0], s.summary())
}

func (s *Session) cmdReload(args []string) {
	if len(args) != 0 {
		s.errorf(":reload takes no arguments")
		return
	}
	if err := s.Reload(); err != nil {
		s.report(err, "")
		return
	}
	what := s.path
	if what == "" {
		what = "the session"
	}
	s.note("reloaded %s: %s", what, s.summary())
}

// lookupVar finds a variable by name, suggesting a near one.
func (s *Session) lookupVar(name string) (*ir.Variable, bool) {
	if v, ok := s.model.Lookup(name); ok {
		return v, true
	}
	msg := fmt.Sprintf("undefined variable %q", name)
	if near := spell.Nearest(name, s.model.Names()); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	s.errorf("%s", msg)
	return nil, false
}

func (s *Session) cmdVars(args []string) {
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

func (s *Session) cmdCPT(args []string) {
	if len(args) != 1 {
		s.errorf(":cpt takes one variable name, as in :cpt Campfire")
		return
	}
	v, ok := s.lookupVar(strings.Trim(args[0], `"`))
	if !ok {
		return
	}
	if g := s.model.Gaussian(v.ID); g != nil {
		writeGaussian(s.out, s.model, g)
		return
	}
	cpt := s.model.Table(v.ID)
	switch {
	case cpt != nil:
	case slices.Contains(s.model.Unlearned(), v.ID):
		s.errorf("%s has no distribution yet: give it one (P(%s | ...) = ...) or learn it", ir.Quote(v.Name), ir.Quote(v.Name))
		return
	case !s.model.IsBayesNet():
		s.errorf("%s has no conditional probability table: the model is a Markov network", ir.Quote(v.Name))
		return
	default:
		s.errorf("%s has no conditional probability table", ir.Quote(v.Name))
		return
	}
	writeCPT(s.out, s.model, cpt)
}

// writeGaussian prints a real variable's density: a mean and a standard
// deviation per configuration of its parents.
func writeGaussian(w io.Writer, m *ir.Model, g *ir.Gaussian) {
	var head []string
	for _, p := range g.Parents {
		head = append(head, m.Vars[p].Name)
	}
	if len(head) > 0 {
		head = append(head, "|")
	}
	head = append(head, "mean", "sd")
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
		t.Add(append(row, report.Num(g.Mean[r]), report.Num(g.SD[r]))...)
		for i := len(a) - 1; i >= 0; i-- {
			if a[i]++; a[i] < len(m.Vars[g.Parents[i]].States) {
				break
			}
			a[i] = 0
		}
	}
	fmt.Fprintf(w, "P(%s%s) = normal(mean, sd)\n", ir.Quote(m.Vars[g.Child].Name), parentsText(m, g.Parents))
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

func (s *Session) cmdGraph(args []string) {
	switch len(args) {
	case 0:
		writeGraph(s.out, s.model)
	case 1:
		var b bytes.Buffer
		if err := dot.Write(&b, s.model); err != nil {
			s.report(err, "")
			return
		}
		if err := writeFileAtomic(args[0], b.Bytes()); err != nil {
			s.report(err, "")
			return
		}
		s.note("wrote %s", args[0])
	default:
		s.errorf(":graph takes at most one file name")
	}
}

// writeFileAtomic writes data to path through a temporary file in the
// same folder.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".pbl-*.tmp")
	if err != nil {
		return err
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
	}
	return err
}

// parseObs parses "X=x" terms, also "X = x" split over fields and
// trailing commas.
func parseObs(args []string) ([][2]string, error) {
	text := strings.Join(args, " ")
	text = strings.ReplaceAll(text, ",", " ")
	text = strings.ReplaceAll(text, " =", "=")
	text = strings.ReplaceAll(text, "= ", "=")
	var out [][2]string
	for _, f := range strings.Fields(text) {
		name, state, ok := strings.Cut(f, "=")
		if !ok || name == "" || state == "" {
			return nil, fmt.Errorf("want X=x, not %q", f)
		}
		out = append(out, [2]string{strings.Trim(name, `"`), strings.Trim(state, `"`)})
	}
	return out, nil
}

func (s *Session) cmdObserve(args []string) {
	if len(args) == 0 {
		s.errorf(":observe takes observations, as in :observe Storm=true")
		return
	}
	pairs, err := parseObs(args)
	if err != nil {
		s.errorf(":observe: %v", err)
		return
	}
	// Validate all before changing anything.
	for i, p := range pairs {
		for _, q := range pairs[:i] {
			if q[0] == p[0] && q[1] != p[1] {
				s.errorf(":observe: %s is given two states, %s=%s and %s=%s; a variable is observed in one state",
					ir.Quote(p[0]), ir.Quote(p[0]), ir.Quote(q[1]), ir.Quote(p[0]), ir.Quote(p[1]))
				return
			}
		}
		v, ok := s.lookupVar(p[0])
		if !ok {
			return
		}
		if !v.Discrete() {
			s.errorf("%s is real-valued; only discrete variables can be observed", ir.Quote(v.Name))
			return
		}
		if v.State(p[1]) < 0 {
			msg := fmt.Sprintf("%s has no state %q", ir.Quote(v.Name), p[1])
			if near := spell.Nearest(p[1], v.States); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			} else {
				msg += fmt.Sprintf(" (its states: %s)", strings.Join(quoteAll(v.States), ", "))
			}
			s.errorf("%s", msg)
			return
		}
	}
	for _, p := range pairs {
		replaced := false
		for i := range s.evid {
			if s.evid[i].name == p[0] {
				s.evid[i].state, replaced = p[1], true
			}
		}
		if !replaced {
			s.evid = append(s.evid, obs{p[0], p[1]})
		}
	}
	s.note("evidence: %s", s.evidenceText())
}

func (s *Session) cmdUnobserve(args []string) {
	if len(args) == 0 {
		s.evid = nil
		s.note("evidence cleared")
		return
	}
	for _, a := range strings.Fields(strings.ReplaceAll(strings.Join(args, " "), ",", " ")) {
		name, _, _ := strings.Cut(a, "=")
		name = strings.Trim(name, `"`)
		i := -1
		for j, o := range s.evid {
			if o.name == name {
				i = j
			}
		}
		if i < 0 {
			s.errorf("%s is not observed (evidence: %s)", ir.Quote(name), s.evidenceOrNone())
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

func (s *Session) cmdEvidence(args []string) {
	fmt.Fprintf(s.out, "evidence: %s\n", s.evidenceOrNone())
}

func (s *Session) cmdEngine(args []string) {
	switch len(args) {
	case 0:
		fmt.Fprintf(s.out, "engine: %s (order %s)\n", s.opt.Engine, s.opt.Order)
	case 1:
		e, err := infer.ParseEngine(args[0])
		if err != nil {
			s.errorf("%v", err)
			return
		}
		s.opt.Engine = e
		s.note("engine: %s", e)
	default:
		s.errorf(":engine takes at most one engine name")
	}
}

func (s *Session) cmdExplain(args []string) {
	if s.last != nil {
		fmt.Fprintf(s.out, "last query: %s (engine %s)\n", s.last.Text, s.opt.Engine)
	}
	if len(s.model.Vars) == 0 {
		s.errorf("the model is empty")
		return
	}
	text, err := infer.Explain(s.model, s.opt)
	if err != nil {
		s.report(err, "")
		return
	}
	fmt.Fprint(s.out, text)
}

func (s *Session) cmdJSON(args []string) {
	switch {
	case len(args) == 0:
		s.json = !s.json
	case len(args) == 1 && (args[0] == "on" || args[0] == "true"):
		s.json = true
	case len(args) == 1 && (args[0] == "off" || args[0] == "false"):
		s.json = false
	default:
		s.errorf(":json takes on or off")
		return
	}
	if s.json {
		s.note("json: on")
	} else {
		s.note("json: off")
	}
}

func (s *Session) cmdQuit(args []string) { s.quit = true }

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

func (s *Session) cmdHelp(args []string) {
	if len(args) > 0 {
		c := lookupCommand(strings.TrimPrefix(args[0], ":"))
		if c == nil {
			s.errorf("unknown command %s", args[0])
			return
		}
		fmt.Fprintf(s.out, ":%s %s\n  %s\n", c.name, c.args, c.help)
		return
	}
	fmt.Fprint(s.out, helpText)
	var t report.Table
	for _, c := range commands {
		t.Add("  :"+c.name+" "+c.args, c.help)
	}
	t.Write(s.out)
	fmt.Fprint(s.out, `
Keys: Tab completes commands, keywords, variables, states after "=" and
learning methods after "with"; up and down arrows recall history; Ctrl-C
cancels the line or a running query; Ctrl-D exits.
`)
}
