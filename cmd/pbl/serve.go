package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/pbl-lang/pbl/serve"
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
reads and writes only the model and the files it imports. It runs until
interrupted. docs/serve.md describes the page, its security model and the
build of the same page for the browser alone (WebAssembly).`

func serveFlags(c *cli, fs *flag.FlagSet) {
	fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fs.Bool("no-open", false, "print the URL without opening a browser")
}

// serveCmd serves the model's page until interrupted.
func serveCmd(c *cli, args []string) int {
	if len(args) != 1 {
		return c.usageErr("serve", "want one model file, got %s", plural(len(args), "argument"))
	}
	addr := c.fs.Lookup("addr").Value.String()
	noOpen := c.fs.Lookup("no-open").Value.String() == "true"
	s, err := serve.NewSession(args[0])
	if err != nil {
		c.report(err)
		return exitError
	}
	defer s.Close()
	srv, err := serve.Listen(s, addr)
	if err != nil {
		c.report(err)
		return exitError
	}
	fmt.Fprintln(c.stdout, srv.URL())
	if f, ok := c.stdout.(*os.File); ok {
		f.Sync()
	}
	if !noOpen {
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
		c.report(err)
		return exitError
	}
	return exitOK
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
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
