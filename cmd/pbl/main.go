package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/causal"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/internal/flagargs"
	"github.com/pbl-lang/pbl/internal/input"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

func main() {
	beforeCommand = startGCPolicy
	if status := run(os.Args[1:], os.Stdout, os.Stderr); status != exitOK {
		os.Exit(status)
	}
}

// beforeCommand, when not nil, runs once a command's flags are parsed,
// just before the command itself. main sets it to startGCPolicy, so that
// help and usage errors do not pay for the policy's goroutine (about
// 0.03 ms, docs/performance.md "Start-up"); tests leave the collector
// alone.
var beforeCommand func()

// Exit statuses (docs/cli.md).
const (
	exitOK    = 0
	exitError = 1 // bad model, data or query
	exitUsage = 2 // bad command line
)

const mainUsage = `pbl is a language for probabilistic models and its interpreter.

Usage:
  pbl run FILE.pbl            run a model file's statements and print the results
  pbl query MODEL QUERY...    answer queries on a model (.pbl, .bif, .bif.gz, .xml, .net, .uai)
  pbl check FILE...           parse and validate models; exit 1 on errors
  pbl repl [MODEL]            interactive session: queries, evidence, declarations
  pbl learn MODEL --data CSV  learn a model's CPTs from data [-o OUT]
                              [--method mle|bayes|mestimate|em|gradient]
  pbl classify MODEL --target C --data CSV
                              accuracy, confusion matrix, precision/recall/F1 [--cv K]
  pbl sample MODEL -n N       forward-sample rows as CSV [--seed S] [--missing F] [-o F]
  pbl sequence MODEL --data CSV --task filter|smooth|viterbi|predict
                              a time-indexed model's answers for each sequence of the data
  pbl cluster CSV -k K        Gaussian mixture or k-means clustering of numeric columns
                              [--method gmm|kmeans] [--covariance full|diag|spherical|tied]
  pbl test [PATH...]          check expectations and golden outputs of models
  pbl convert IN OUT          convert a model between formats (by extension)
  pbl fmt [-w] [-d] [-l] [FILE|DIR...]
                              give .pbl files their canonical layout (stdin to stdout)
  pbl uai [--task PR|MAR|MPE] MODEL.uai [EVIDENCE.evid]
                              answer as a UAI competition solver
  pbl sensitivity MODEL 'P(Y=y | e)'
                              derivatives of a query by every CPT entry [--top K] [--reach P]
  pbl voi MODEL (--target X | --decision D)
                              which variable to observe next: I(X; V | e) in bits, or the
                              value of perfect information at decision D
                              [--evidence 'A=a, B=b'] [--candidates A,B] [--top K]
  pbl structure DATA.csv      learn a network's graph from data [--method hc|k2|chow-liu|pc]
                              [--score bic|aic|loglik|bdeu|k2] [--bootstrap N] [-o OUT]
  pbl score MODEL --data CSV  score a network's graph given data [--score S]
  pbl compare A B             structural Hamming distance between two networks' CPDAGs [--dot F]
  pbl lsp                     the language server, for editors (stdin and stdout)
  pbl serve MODEL             a page in the browser: the graph, belief bars, live evidence,
                              the source [--addr HOST:PORT] [--no-open]
  pbl help [COMMAND]          show help

Every command takes --json. Exit status: 0 ok, 1 error in a model, data or
query, 2 bad usage. Run 'pbl help COMMAND' for a command's flags.
Queries (docs/language.md): P(X), P(X | Y=y), P(X, Y | e), P(X | Y, Z),
P(X=x | e), P(e), P(* | e), MPE(e), MAP(X, Y | e), indep(A, B | C),
density(x=1.5 | e), entropy(X | e), MI(X, Y | e), MI({A, B}, C | e); in the
evidence, do(X=x) (an intervention) and X~[0.8, 0.2] (likelihood evidence); about
hypotheses H given data D: P(H | D), MAP(H | D), ML(H | D), MDL(H | D), Gibbs(H | D);
about the decisions of an influence diagram: MEU(| e), policy(D | e), EU(D=d | e); causal
questions: identify(Y | do(X), Z), adjust(X, Y), CF(Y=y | do(X=x), e).
`

type command struct {
	name, args, summary string
	run                 func(c *cli, args []string) int
	flags               func(c *cli, fs *flag.FlagSet)
}

var commands = []*command{
	{name: "run", args: "FILE.pbl", summary: "Run runs a model file's statements (its queries) in order and prints each result.", run: runCmd, flags: engineFlags},
	{name: "query", args: "MODEL QUERY...", summary: "Query answers the queries given on the command line. MODEL is loaded as every command\nloads it (a .pbl file's learn statements run), but none of its query or expect\nstatements run. MODEL is a .pbl, .bif, .bif.gz, .xml (XMLBIF), .net (Hugin) or .uai\nfile. Quote each query for the shell: pbl query m.pbl 'P(Campfire | Storm=true)'.", run: queryCmd, flags: queryFlags},
	{name: "test", args: "[PATH...]", summary: "Test runs every model file (recursively in folders; default .), checks its expect\nstatements, and compares its output with its golden file NAME.golden when there is one.\nLike go test it skips folders named testdata or starting with . or _. It prints ok or\nFAIL per file and a summary, and exits 1 on any failure. --update writes the golden\nfiles instead of comparing (atomically; expect lines are never touched).", run: testCmd, flags: testFlagsFor},
	{name: "convert", args: "IN OUT", summary: "Convert reads the model IN (any format pbl reads) and writes it to OUT in the format\nits extension names. Every number is kept exactly. OUT is written atomically.", run: convertCmd},
	{name: "learn", args: "MODEL --data CSV", summary: learnSummary, run: learnCmd, flags: learnFlags},
	{name: "classify", args: "MODEL --target C --data CSV", summary: classifySummary, run: classifyCmd, flags: classifyFlags},
	{name: "sample", args: "MODEL -n N", summary: sampleSummary, run: sampleCmd, flags: sampleFlags},
	{name: "sequence", args: sequenceArgs, summary: sequenceSummary, run: sequenceCmd, flags: sequenceFlags},
	{name: "cluster", args: "CSV -k K", summary: clusterSummary, run: clusterCmd, flags: clusterFlags},
	{name: "repl", args: "[MODEL]", summary: replSummary, run: replCmd, flags: replFlags},
	{name: "uai", args: uaiArgs, summary: uaiSummary, run: uaiCmd, flags: uaiFlags},
	{name: "sensitivity", args: sensitivityArgs, summary: sensitivitySummary, run: sensitivityCmd, flags: sensitivityFlags},
	{name: "voi", args: voiArgs, summary: voiSummary, run: voiCmd, flags: voiFlags},
	{name: "structure", args: "DATA.csv", summary: structureSummary, run: structureCmd, flags: structureFlags},
	{name: "score", args: "MODEL --data CSV", summary: scoreSummary, run: scoreCmd, flags: scoreFlags},
	{name: "compare", args: "A B", summary: compareSummary, run: compareCmd, flags: compareFlags},
	{name: "lsp", summary: lspSummary, run: lspCmd, flags: lspFlagsFor},
	{name: "serve", args: serveArgs, summary: serveSummary, run: serveCmd, flags: serveFlags},
	{name: "fmt", args: fmtArgs, summary: fmtSummary, run: fmtCmd, flags: fmtFlagsFor},
	{name: "check", args: "FILE...", summary: "Check parses and validates model files and reports every error found, one per line\nas file:line:col: message. It prints a one-line summary per valid file.", run: checkCmd},
}

// cli holds the streams and the common flags of one invocation.
type cli struct {
	stdout, stderr io.Writer
	json           bool
	engine         string
	order          string
	maxTable       int
	maxMemory      string
	explain        bool
	exact          bool          // --exact: refuse rather than answer approximately
	timeLimit      time.Duration // --time-limit: bounds each answer
	fs             *flag.FlagSet
	test           testFlags
	fmt            fmtFlags
	reported       bool // report was called: the exit status is not 0

	// run, query, test: data sets bound to other files (--data NAME=FILE),
	// and the options of queries about hypotheses.
	data     dataFlag
	top      int
	seed     uint64
	hypFlags bool // hypFlags registered --data, --top and --seed
}

// dataFlag is the repeatable flag --data NAME=FILE.
type dataFlag map[string]string

func (d *dataFlag) String() string { return "" }

func (d *dataFlag) Set(v string) error {
	name, file, ok := strings.Cut(v, "=")
	if !ok || name == "" || file == "" {
		return fmt.Errorf("want NAME=FILE.csv, as in --data D=points.csv")
	}
	if *d == nil {
		*d = dataFlag{}
	}
	if _, dup := (*d)[name]; dup {
		return fmt.Errorf("data set %s bound twice", name)
	}
	(*d)[name] = file
	return nil
}

// hypFlags are the flags of run, query and test for models that name
// data: --data, and the options of queries about hypotheses.
func hypFlags(c *cli, fs *flag.FlagSet) {
	fs.Var(&c.data, "data", "bind the model's data set `NAME=FILE.csv` (a data table or a CSV it reads) to another file\nwith the same columns; may be repeated")
	fs.IntVar(&c.top, "top", pbl.DefaultTop, "P(H | D) lists at most this many hypotheses, the most probable")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of Gibbs(...) draws and of the approximate engines' samples\n(the same seed, the same answer on any number of cores)")
	c.hypFlags = true
}

// loadOptions are the options of loading a model given on the command
// line.
func (c *cli) loadOptions() pbl.LoadOptions {
	return pbl.LoadOptions{Data: c.data, MemoryBudget: limitMemory}
}

func engineFlags(c *cli, fs *flag.FlagSet) {
	hypFlags(c, fs)
	fs.StringVar(&c.engine, "engine", "auto", infer.EngineHelp())
	fs.StringVar(&c.order, "order", "best", "elimination order for ve: best (the cheapest by estimated cost), min-fill, min-weight,\nweighted-min-fill or input (the order the model declares its variables)")
	fs.IntVar(&c.maxTable, "max-table", infer.DefaultMaxTable, "refuse tables (intermediate or clique) with more `entries` than this")
	fs.StringVar(&c.maxMemory, "max-memory", "8GiB", "refuse junction trees needing more `memory` than this (e.g. 512MiB, 8GiB)")
	fs.BoolVar(&c.exact, "exact", false, "never answer approximately: refuse a query whose exact answer does not fit\n--max-memory, --max-table or --time-limit (without it, auto answers approximately,\nlabelled, with an error per number: docs/approximate.md)")
	fs.DurationVar(&c.timeLimit, "time-limit", 0, "bound each query's answer to this `duration` (e.g. 20s); an approximate engine\nreturns its best answer at the limit; 0 for none")
	fs.BoolVar(&c.explain, "explain", false, "print how each query is answered: the engine chosen and why, what is pruned,\nthe elimination order or the junction tree (heuristic, width, largest clique, size)")
}

// parseSize parses a memory size such as 512MiB or 8GiB.
var parseSize = flagargs.ParseSize

func (c *cli) options() (infer.Options, error) {
	if c.hypFlags && c.top < 1 {
		return infer.Options{}, fmt.Errorf("--top %d: P(H | D) lists at least one hypothesis", c.top)
	}
	eng, err := infer.ParseEngine(c.engine)
	if err != nil {
		return infer.Options{}, err
	}
	order, err := infer.ParseHeuristic(c.order)
	if err != nil {
		return infer.Options{}, err
	}
	mem, err := parseSize(c.maxMemory)
	if err != nil {
		return infer.Options{}, err
	}
	if c.maxTable <= 0 || c.maxTable > ir.MaxTableSize {
		return infer.Options{}, fmt.Errorf("--max-table %d: want a number of entries from 1 to %d", c.maxTable, ir.MaxTableSize)
	}
	if c.timeLimit < 0 {
		return infer.Options{}, fmt.Errorf("--time-limit %v: want a duration of at least 0", c.timeLimit)
	}
	opt := infer.Options{Engine: eng, Order: order, MaxTable: c.maxTable, MaxMemory: mem,
		Exact: c.exact, TimeLimit: c.timeLimit, Seed: c.seed, Workers: runtime.GOMAXPROCS(0)}
	return opt, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	status := runCommand(args, out, stderr)
	if out.err != nil {
		if !out.reported {
			fmt.Fprintf(stderr, "pbl: write error: %v\n", out.err)
		}
		return exitError
	}
	return status
}

// errWriter remembers the first error writing to w, and writes nothing
// after it: a command whose output is lost must not exit 0.
type errWriter struct {
	w        io.Writer
	err      error
	reported bool // a command reported err itself
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// runCommand runs the command args names, writing to stdout and stderr.
func runCommand(args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return exitUsage
	}
	name := args[0]
	// --json before the command is known: its errors are JSON too, and
	// help, whose text has no JSON form, ignores it.
	var rest []string
	for i, a := range args[1:] {
		if a == "--" {
			rest = append(rest, args[1+i:]...)
			break
		}
		if a == "--json" || a == "-json" || a == "--json=true" || a == "-json=true" {
			c.json = true
			continue
		}
		rest = append(rest, a)
	}
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && name == "help" {
			if cmd := lookup(rest[0]); cmd != nil {
				c.newFlags(cmd).SetOutput(stdout)
				c.usage(cmd, stdout)
				return exitOK
			}
			if c.json {
				c.report(fmt.Errorf("pbl help: unknown command %q", rest[0]))
				return exitUsage
			}
			fmt.Fprintf(stderr, "pbl help: unknown command %q\n", rest[0])
			return exitUsage
		}
		io.WriteString(stdout, mainUsage)
		return exitOK
	}
	cmd := lookup(name)
	if cmd == nil {
		if c.json {
			c.report(fmt.Errorf("pbl: unknown command %q", name))
			return exitUsage
		}
		fmt.Fprintf(stderr, "pbl: unknown command %q\n\n%s", name, mainUsage)
		return exitUsage
	}
	wantJSON := c.json
	fs := c.newFlags(cmd)
	c.json = wantJSON // newFlags set the flag's default; an error in the flags is JSON too
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		c.usage(cmd, stdout)
		return exitOK
	}
	if err != nil && c.json {
		return c.usageErr(cmd.name, "%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pbl %s: %v\n", cmd.name, err)
		c.usage(cmd, stderr)
		return exitUsage
	}
	if beforeCommand != nil {
		beforeCommand()
	}
	status := cmd.run(c, pos)
	if status == exitOK && c.reported {
		// Whatever a command reported is an error: it never exits 0
		// after one (a result that could not be written as JSON, say).
		status = exitError
	}
	return status
}

func lookup(name string) *command {
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd
		}
	}
	return nil
}

func (c *cli) newFlags(cmd *command) *flag.FlagSet {
	fs := flag.NewFlagSet("pbl "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&c.json, "json", false, "print results as JSON (one object per line)")
	fs.Func("max-input", "refuse model files larger than this `size` (default 256MiB), after decompression", func(s string) error {
		n, err := parseSize(s)
		if err == nil {
			input.SetMaxSize(n)
		}
		return err
	})
	input.SetMaxSize(0)
	if cmd.flags != nil {
		cmd.flags(c, fs)
	}
	c.fs = fs
	return fs
}

func (c *cli) usage(cmd *command, w io.Writer) {
	fmt.Fprintf(w, "Usage: pbl %s [flags] %s\n\n%s\n\nFlags:\n", cmd.name, cmd.args, cmd.summary)
	c.fs.SetOutput(w)
	c.fs.PrintDefaults()
}

// parseInterspersed parses flags appearing anywhere among the arguments
// (pbl query m.pbl 'P(X)' --json); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	return flagargs.Parse(fs, args, flagargs.DashEnds)
}

// fileErrorf returns an error about the file path (no line): printed as
// path: message, and with --json as {"file": path, "message": ...}.
func fileErrorf(path, format string, args ...any) error {
	return &ir.Error{Pos: ir.Pos{File: path}, Msg: fmt.Sprintf(format, args...)}
}

// fileError returns err as an error about the file path: err itself if it
// says where it is (ir.Located: report prints it as it is), else an error
// at path with err's message that errors.Is and As still see through.
func fileError(path string, err error) error {
	if ir.Located(err) {
		return err
	}
	return &ir.Error{Pos: ir.Pos{File: path}, Msg: err.Error(), Err: err}
}

// report prints an error on stderr: each positioned error on its own line
// as file:line:col: message, or with --json as one JSON object per line,
// {"file", "line", "col", "message"} (file, line and col left out when
// unknown), and for a causal effect that is not identifiable
// "identifiable": false and its "hedge".
func (c *cli) report(err error) {
	c.reported = true
	if ew, ok := c.stdout.(*errWriter); ok && ew.err != nil && errors.Is(err, ew.err) {
		if ew.reported {
			return
		}
		ew.reported = true
		err = &ir.Error{Msg: "pbl: write error: " + ew.err.Error()}
	}
	var list ir.ErrorList
	var e *ir.Error
	var pe *os.PathError
	switch {
	case errors.As(err, &list):
	case errors.As(err, &e):
		list = ir.ErrorList{e}
	case errors.As(err, &pe):
		list = ir.ErrorList{{Pos: ir.Pos{File: pe.Path}, Msg: pe.Err.Error(), Err: pe.Err}}
	default:
		list = ir.ErrorList{{Msg: strings.TrimSpace(err.Error()), Err: err}}
	}
	list = slices.Clone(list)
	for i, e := range list {
		list[i] = phrase(e)
	}
	if len(list) > maxReported {
		more := len(list) - maxReported
		list = append(list[:maxReported:maxReported], &ir.Error{Msg: "(and " + ir.Plural(more, "more error") + ")"})
	}
	for _, e := range list {
		if c.json {
			o := &report.Object{}
			if e.Pos.File != "" {
				o.Set("file", e.Pos.File)
			}
			if e.Pos.Line > 0 {
				o.Set("line", e.Pos.Line)
			}
			if e.Pos.Col > 0 {
				o.Set("col", e.Pos.Col)
			}
			o.Set("message", e.Msg)
			var ni *causal.NotIdentifiableError
			if errors.As(e, &ni) {
				// A causal effect that is not identifiable: the proof as data.
				o.Set("identifiable", false)
				o.Set("hedge", report.HedgeJSONValue(ni.Hedge.F, ni.Hedge.FPrime, ni.Hedge.Roots))
			}
			b, _ := json.Marshal(o)
			c.stderr.Write(append(b, '\n'))
			continue
		}
		if e.Pos == (ir.Pos{}) {
			fmt.Fprintln(c.stderr, e.Msg)
			continue
		}
		fmt.Fprintln(c.stderr, e.Error())
	}
}

// maxReported is the largest number of errors printed for one failure.
const maxReported = 100

// warn prints a warning about file on stderr (with --json, as an object
// with "warning" in place of "message").
func (c *cli) warn(file, msg string) {
	if c.json {
		o := &report.Object{}
		o.Set("file", file)
		o.Set("warning", msg)
		b, _ := json.Marshal(o)
		c.stderr.Write(append(b, '\n'))
		return
	}
	fmt.Fprintf(c.stderr, "%s: warning: %s\n", file, msg)
}

// write writes b to stdout and returns the exit status: 1, with a
// message, if it could not be written.
func (c *cli) write(b []byte) int {
	if _, err := c.stdout.Write(b); err != nil {
		// Wrapped, so that report recognises the error of stdout and
		// says it once, as run would.
		c.report(fmt.Errorf("write error: %w", err))
		return exitError
	}
	return exitOK
}

func (c *cli) usageErr(cmd string, format string, args ...any) int {
	msg := fmt.Sprintf("pbl %s: %s", cmd, fmt.Sprintf(format, args...))
	if c.json {
		c.report(errors.New(msg))
		return exitUsage
	}
	fmt.Fprintln(c.stderr, msg)
	fmt.Fprintf(c.stderr, "Run 'pbl help %s' for usage.\n", cmd)
	return exitUsage
}
