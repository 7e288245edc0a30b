package repl

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/peterh/liner"
)

// This file is the only one that knows about the terminal: it adapts
// github.com/peterh/liner to the session's readline function.

// HistoryFile returns the file that keeps the history of interactive
// sessions: $XDG_STATE_HOME/pbl/history, or ~/.local/state/pbl/history.
func HistoryFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "pbl", "history")
}

// InterruptOnSignal is a Config.Interrupt that reports SIGINT (Ctrl-C)
// while a query runs. Outside queries the signal is not caught; at the
// prompt liner reads Ctrl-C as a key.
func InterruptOnSignal() (<-chan struct{}, func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-sig:
			close(done)
		case <-stopped:
		}
	}()
	return done, func() {
		signal.Stop(sig)
		close(stopped)
	}
}

// RunTerminal runs s on the terminal with line editing, completion and
// the history kept in history (none if ""), and returns the exit status.
func RunTerminal(s *Session, history string) int {
	l := liner.NewLiner()
	defer l.Close()
	l.SetCtrlCAborts(true)
	l.SetMultiLineMode(true)
	l.SetTabCompletionStyle(liner.TabPrints)
	l.SetWordCompleter(s.Complete)
	if history != "" {
		if f, err := os.Open(history); err == nil {
			l.ReadHistory(f)
			f.Close()
		}
	}
	save := func() {
		if history == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(history), 0o700); err != nil {
			return
		}
		if f, err := os.OpenFile(history, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
			l.WriteHistory(f)
			f.Close()
		}
	}
	readline := func() (string, error) {
		line, err := l.Prompt(s.Prompt())
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			return "", ErrInterrupt
		case errors.Is(err, io.EOF):
			return "", io.EOF
		case err != nil:
			return "", err
		}
		if line != "" {
			l.AppendHistory(line)
			save()
		}
		return line, nil
	}
	return s.Run(readline)
}
