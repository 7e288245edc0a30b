package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReplUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if got := run([]string{"repl", "a.pbl", "b.pbl"}, &out, &errOut); got != exitUsage {
		t.Errorf("two models: status %d, want %d", got, exitUsage)
	}
	if !strings.Contains(errOut.String(), "want at most one model file") {
		t.Errorf("stderr = %q", errOut.String())
	}
	out.Reset()
	if got := run([]string{"help", "repl"}, &out, &errOut); got != exitOK || !strings.Contains(out.String(), "Usage: pbl repl [flags] [MODEL]") {
		t.Errorf("help repl: status %d, %q", got, out.String())
	}
}
