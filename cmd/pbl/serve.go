package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const serveArgs = "MODEL"

const serveSummary = `Serve opens a page in the browser with the model's graph: a belief bar per
state of every discrete variable, updated by pbl's engines when you click a
state to observe it (click again to clear it; do() sets it by intervention
instead), P(e), the evidence as a query line to copy, MPE on request, the
model's query and expect statements with their answers, and the source in an
editor with pbl's highlighting, the language server's diagnostics and pbl
fmt's formatting; an edit that loads redraws the graph, keeping the evidence
that still applies, and save writes the file atomically. The first line
printed is the page's URL, with a random token that every request must
carry; the server listens on 127.0.0.1 unless --addr says otherwise, and
reads and writes only the model and the files it imports. Each answer is
bounded by --max-memory and --time-limit: beyond either, an approximate engine
answers and the page labels it, with an error per number. It runs until
interrupted. The server is the command pbl-serve, beside pbl or on PATH
(go install ./cmd/pbl-serve), or run from source by the go command in pbl's
source tree: pbl itself links no network code. --export DIR
writes the same page for the browser alone (WebAssembly) to DIR instead, for
any static file server; it builds the module with the go command from pbl's
source.
docs/serve.md describes the page, its security model and the same page for
the browser alone (WebAssembly).`

// serveCommand is the name of the server's executable: the pbl command
// must not link package net (TestStartupDeps), so pbl serve hands over
// to it as --runner beam hands over to pbl-beam (runner.go).
const serveCommand = "pbl-serve"

func serveFlags(c *cli, fs *flag.FlagSet) {
	fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fs.Bool("no-open", false, "print the URL without opening a browser")
	fs.String("export", "", "write the page for the browser alone (WebAssembly) to `DIR` instead of serving a model")
	fs.String("max-memory", "8GiB", "answer approximately, labelled, where an exact plan needs more `memory` than this\n(e.g. 512MiB, 8GiB)")
	fs.Duration("time-limit", 10*time.Second, "bound each answer of the page to this `duration`: beyond, an approximate engine\nanswers, labelled, with its best answer at the limit; 0 for none")
}

// serveCmd runs pbl-serve with the model and the flags given.
func serveCmd(c *cli, args []string) int {
	export := c.fs.Lookup("export").Value.String()
	switch {
	case export != "" && len(args) != 0:
		return c.usageErr("serve", "--export takes no model file, got %s", plural(len(args), "argument"))
	case export == "" && len(args) != 1:
		return c.usageErr("serve", "want one model file, got %s", plural(len(args), "argument"))
	}
	argv := []string{"--export=" + export}
	if export == "" {
		argv = []string{"--addr=" + c.fs.Lookup("addr").Value.String(), "--no-open=" + c.fs.Lookup("no-open").Value.String(),
			"--max-memory=" + c.fs.Lookup("max-memory").Value.String(), "--time-limit=" + c.fs.Lookup("time-limit").Value.String(), args[0]}
	}
	path, err := findCommand(serveCommand)
	if err != nil {
		gobin, ok := inPBLSource()
		if !ok {
			return c.usageErr("serve", "needs the %s command, which is neither beside pbl nor on PATH: %v\n"+
				"(install it with: go install ./cmd/pbl-serve, or run go run ./cmd/pbl-serve MODEL)", serveCommand, err)
		}
		// In pbl's source tree (go run ./cmd/pbl serve …), the server is
		// run from source too.
		fmt.Fprintf(c.stderr, "pbl serve: %s is not installed; running it from source (go run ./cmd/%s)\n", serveCommand, serveCommand)
		path, argv = gobin, append([]string{"run", servePackage}, argv...)
	}
	run := exec.Command(path, argv...)
	run.Stdin, run.Stdout, run.Stderr = os.Stdin, c.stdout, c.stderr
	// An interrupt or a termination is passed on to pbl-serve, which stops
	// (Ctrl-C reaches it anyway, in the same process group); pbl waits.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err = run.Start(); err == nil {
		done := make(chan struct{})
		go func() {
			for {
				select {
				case s := <-sig:
					run.Process.Signal(s)
				case <-done:
					return
				}
			}
		}()
		err = run.Wait()
		close(done)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			return code
		}
		return exitInterrupted
	case err != nil:
		c.report(fileErrorf(path, "%v", err))
		return exitError
	}
	return exitOK
}

// servePackage is the import path of pbl-serve's main package.
const servePackage = "github.com/pbl-lang/pbl/cmd/pbl-serve"

// inPBLSource reports whether the current directory lies in pbl's own
// module with the go command on PATH (go run ./cmd/pbl from a clone), and
// returns the go command's path: then pbl-serve can be run from source.
func inPBLSource() (string, bool) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", false
	}
	out, err := exec.Command(gobin, "env", "GOMOD").Output()
	if err != nil {
		return "", false
	}
	mod, err := os.ReadFile(strings.TrimSpace(string(out)))
	if err != nil {
		return "", false
	}
	for line := range strings.Lines(string(mod)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return gobin, f[1] == "github.com/pbl-lang/pbl"
		}
	}
	return "", false
}

// findCommand returns the path of the executable name: beside the
// running executable, else on PATH.
func findCommand(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	return exec.LookPath(name)
}
