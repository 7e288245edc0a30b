// Command pbl-serve is the server of pbl serve: the page of a model (its
// graph, belief bars, live evidence, the source), served on the loopback
// with the random token of the URL it prints first (docs/serve.md). pbl
// serve hands over to it, as pbl --runner beam does to pbl-beam: the pbl
// command must not link package net (cmd/pbl's TestStartupDeps), which
// an HTTP server needs.
//
//	pbl-serve MODEL [--addr HOST:PORT] [--no-open] [--max-memory SIZE] [--time-limit DURATION]
//	pbl-serve --export DIR
//
// With --export it writes the page for the browser alone (WebAssembly) to
// DIR instead (internal/wasmsite: it needs the go command and pbl's
// source).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/pbl-lang/pbl/internal/flagargs"
	"github.com/pbl-lang/pbl/internal/wasmsite"
	"github.com/pbl-lang/pbl/serve"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is pbl-serve with arguments args; it returns the exit status: 0
// after an interrupt, 1 on an error, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pbl serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	noOpen := fs.Bool("no-open", false, "print the URL without opening a browser")
	export := fs.String("export", "", "write the page for the browser alone (WebAssembly) to `DIR` instead of serving a model")
	maxMemory := fs.String("max-memory", "8GiB", "answer approximately, labelled, where an exact plan needs more `memory` than this\n(e.g. 512MiB, 8GiB)")
	timeLimit := fs.Duration("time-limit", 10*time.Second, "bound each answer of the page to this `duration`: beyond, an approximate engine\nanswers, labelled, with its best answer at the limit; 0 for none")
	// Flags may follow the model, as everywhere in pbl.
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		args = fs.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	if *export != "" {
		if len(pos) != 0 {
			fmt.Fprintf(stderr, "pbl serve: --export takes no model file, got %d arguments\n", len(pos))
			return 2
		}
		if err := wasmsite.Export(*export, stderr); err != nil {
			fmt.Fprintf(stderr, "pbl serve: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, *export)
		return 0
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "pbl serve: want one model file, got %d arguments\n", len(pos))
		return 2
	}
	mem, err := flagargs.ParseSize(*maxMemory)
	if err != nil {
		fmt.Fprintf(stderr, "pbl serve: --max-memory: %v\n", err)
		return 2
	}
	if *timeLimit < 0 {
		fmt.Fprintf(stderr, "pbl serve: --time-limit %v: want a duration of at least 0\n", *timeLimit)
		return 2
	}
	s, err := serve.NewSession(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "pbl serve: %v\n", err)
		return 1
	}
	defer s.Close()
	s.SetLimits(serve.Limits{MaxMemory: mem, TimeLimit: *timeLimit})
	if _, err := s.Open(context.Background(), nil, nil); err != nil {
		fmt.Fprintf(stderr, "pbl serve: %v\n", err)
		return 1
	}
	srv, err := serve.Listen(s, *addr)
	if err != nil {
		fmt.Fprintf(stderr, "pbl serve: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, srv.URL())
	if !*noOpen {
		openBrowser(srv.URL())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
	}
	if err != nil {
		fmt.Fprintf(stderr, "pbl serve: %v\n", err)
		return 1
	}
	return 0
}

// openBrowser asks the desktop to open url, silently failing where there
// is none.
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
