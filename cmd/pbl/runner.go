package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
)

// This file hands a command over to pbl-beam, the Beam runner, which is a
// command of its own (cmd/pbl-beam, a Go module of its own) so that pbl
// never links the Apache Beam SDK. As git finds its subcommands, pbl looks
// for pbl-beam beside its own executable, then on PATH, and runs it with
// the same arguments.

// beamCommand is the name of the Beam runner's executable.
const beamCommand = "pbl-beam"

// runnerName is the value of --runner: local (pbl itself), or beam or the
// name of a Beam runner (prism, direct, flink, spark, dataflow,
// universal), which hands the command over to pbl-beam.
var runnerName string

// runnerFlags registers --runner on fs.
func runnerFlags(fs *flag.FlagSet) {
	fs.StringVar(&runnerName, "runner", "local", "local, or run as an Apache Beam pipeline by pbl-beam: beam (in-process prism),\nor a Beam runner (prism, flink, spark, dataflow, universal); arguments after --\nare the Beam pipeline's options (--endpoint, --project, ...); see docs/scale.md")
}

// handOver runs the command cmd by pbl-beam if --runner asks for it, and
// then reports true and pbl-beam's exit status. args are the command's
// arguments after its flags (with those after "--", the Beam options).
// A pbl-beam that cannot be found is a usage error.
func (c *cli) handOver(cmd string, args []string) (int, bool) {
	if runnerName == "" || runnerName == "local" {
		return exitOK, false
	}
	path, err := findBeam()
	if err != nil {
		return c.usageErr(cmd, "--runner %s needs the %s command, which is neither beside pbl nor on PATH: %v\n"+
			"(install it with: cd cmd/pbl-beam && go install .)", runnerName, beamCommand, err), true
	}
	// The same arguments, as the flags parsed them: each flag given, then
	// the positional arguments and the Beam options.
	argv := []string{cmd}
	c.fs.Visit(func(f *flag.Flag) {
		if v := f.Value.String(); v != "" || f.Name == "runner" {
			argv = append(argv, "--"+f.Name+"="+v)
		}
	})
	argv = append(argv, args...)
	run := exec.Command(path, argv...)
	run.Stdin, run.Stdout, run.Stderr = os.Stdin, c.stdout, c.stderr
	// Ctrl-C reaches pbl-beam too (the same process group): it decides
	// what to do, and pbl waits for it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	err = run.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			return code, true
		}
		return exitInterrupted, true
	case err != nil:
		c.report(fileErrorf(path, "%v", err))
		return exitError, true
	}
	return exitOK, true
}

// findBeam returns the path of pbl-beam: beside the running executable,
// else on PATH.
func findBeam() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), beamCommand)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	return exec.LookPath(beamCommand)
}
