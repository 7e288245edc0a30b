package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/pbl-lang/pbl/internal/flagargs"
	"github.com/pbl-lang/pbl/ir"
)

// Exit statuses, as pbl's.
const (
	exitOK    = 0
	exitError = 1 // bad model, data or query
	exitUsage = 2 // bad command line
)

const usage = `pbl-beam runs pbl learn, classify and query --batch as Apache Beam pipelines.

Usage:
  pbl-beam learn MODEL --data SHARDS [--method M ...] [-o OUT]
  pbl-beam classify MODEL --target C --data SHARDS [--predictions PREFIX]
  pbl-beam query MODEL --batch SHARDS QUERY... -o PREFIX

SHARDS is a glob (rows/*.csv) or a Beam filesystem pattern (gs://b/rows-*.csv);
every shard is a whole CSV file with its header. Beam options select the runner:
--runner beam|prism (in-process, the default), flink, spark, dataflow, universal,
with --endpoint, --environment_type, --project, --region, --temp_location, ...
See docs/scale.md. pbl hands over to pbl-beam with pbl learn ... --runner beam.
`

func main() {
	// A worker started by a runner (--worker, and no command) runs the
	// Beam harness, which never returns.
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "-") {
		flag.Parse()
		beam.Init()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(exitUsage)
	}
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// cli is one invocation.
type cli struct {
	cmd            string
	stdout, stderr io.Writer
	fs             *flag.FlagSet
	json           bool
	reported       bool
}

// commands are pbl-beam's commands.
var commands = map[string]struct {
	flags func(c *cli, f *cmdFlags)
	run   func(ctx context.Context, c *cli, f *cmdFlags, args []string) int
}{
	"learn":    {learnFlags, learnCmd},
	"classify": {classifyFlags, classifyCmd},
	"query":    {queryFlags, queryCmd},
}

// run runs the command of args.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pbl-beam: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	c := &cli{cmd: args[0], stdout: stdout, stderr: stderr}
	f := newFlags(c)
	cmd.flags(c, f)
	// Flags stand anywhere, as pbl's do; "--" is skipped (pbl passes the
	// Beam options after it).
	pos, err := flagargs.Parse(c.fs, args[1:], flagargs.DashSkipped)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		c.fs.SetOutput(stdout)
		c.fs.PrintDefaults()
		return exitOK
	}
	if err != nil {
		return c.usageErr("%v", err)
	}
	if err := f.beam(); err != nil {
		return c.usageErr("%v", err)
	}
	initBeam()
	return cmd.run(ctx, c, f, pos)
}

// initOnce initialises Beam once per process.
var initOnce sync.Once

// initBeam initialises Beam, once.
func initBeam() {
	initOnce.Do(func() {
		// The runner's own messages only when they are warnings.
		beamlog.LogLevel = "warn"
		beam.Init()
		quietLogs() // logging.go
	})
}

// usageErr reports a usage error and returns exitUsage.
func (c *cli) usageErr(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "pbl-beam %s: %s\n", c.cmd, fmt.Sprintf(format, args...))
	fmt.Fprintf(c.stderr, "Run 'pbl-beam help' for usage.\n")
	return exitUsage
}

// report prints an error: each positioned error on its own line, as pbl
// does.
func (c *cli) report(err error) {
	c.reported = true
	var list ir.ErrorList
	var pe *pipelineError
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(c.stderr, e.Error())
		}
		return
	}
	if errors.As(err, &pe) {
		fmt.Fprintf(c.stderr, "pbl-beam %s: %v\n", c.cmd, err)
		return
	}
	fmt.Fprintln(c.stderr, strings.TrimSpace(err.Error()))
}
