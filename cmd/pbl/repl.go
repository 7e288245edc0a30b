package main

import (
	"bufio"
	"flag"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/repl"
)

const replSummary = `Repl starts an interactive session on MODEL (any format pbl reads), or on an
empty model. Type queries as in model files (P(Campfire | Storm=true)),
declarations, and commands such as :observe Storm=true, :vars, :cpt X, :help.
On a terminal it edits lines, completes names with Tab and keeps history in
$XDG_STATE_HOME/pbl/history. When stdin is not a terminal it reads lines with
no prompt and prints only results, as pbl query does; it then exits 1 if any
input failed. See docs/repl.md.`

func replFlags(c *cli, fs *flag.FlagSet) { engineFlags(c, fs) }

// replCmd runs an interactive session.
func replCmd(c *cli, args []string) int {
	if len(args) > 1 {
		return c.usageErr("repl", "want at most one model file, got %s", plural(len(args), "argument"))
	}
	opt, err := c.options()
	if err != nil {
		return c.usageErr("repl", "%v", err)
	}
	interactive := term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
	cfg := repl.Config{Out: c.stdout, Err: c.stderr, Interactive: interactive, JSON: c.json, Options: opt,
		WriteFile: writeAtomic, // :graph FILE.dot as -o writes: through links, to devices, keeping modes
		Load:      c.loadOptions()}
	if interactive {
		cfg.Interrupt = repl.InterruptOnSignal
	}
	s := repl.New(cfg)
	if len(args) == 1 {
		if err := s.Load(args[0]); err != nil {
			c.report(err)
			return exitError
		}
		if c.explain {
			text, err := infer.Explain(s.Model(), opt)
			if err != nil {
				c.report(err)
				return exitError
			}
			w := c.stdout
			if c.json {
				w = c.stderr
			}
			w.Write([]byte(strings.TrimRight(text, "\n") + "\n"))
		}
	}
	if interactive {
		return repl.RunTerminal(s, repl.HistoryFile())
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	return s.Run(func() (string, error) {
		if sc.Scan() {
			return sc.Text(), nil
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	})
}
