package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initAllocBudget is the most allocations the package initialisation of
// pbl's own packages (main and github.com/pbl-lang/pbl/...) may make
// together, by GODEBUG=inittrace=1. Issue 16 asks that pbl help start
// within 0.5 ms of an empty Go program, and every map literal, slice built
// by a call or func init allocates and touches fresh pages on every run:
// a lookup table is a switch or an array of constants (which the compiler
// lays out), and what only some commands need is built on first use. The
// packages made 79 allocations before issue 16's work, and none after.
const initAllocBudget = 0

// initLine is a line of GODEBUG=inittrace=1:
// init PKG @T ms, C ms clock, B bytes, A allocs.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestInitAllocs builds pbl, runs pbl help with GODEBUG=inittrace=1, and
// fails if the initialisation of pbl's own packages allocates more than
// initAllocBudget times, listing each package's cost.
func TestInitAllocs(t *testing.T) {
	if !heavy() {
		// Under -race it would build and run the same plain binary as
		// the plain run does: the race detector sees none of it.
		t.Skip("builds the pbl command (see heavy)")
	}
	bin := filepath.Join(t.TempDir(), "pbl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pbl help: %v\n%s", err, stderr.Bytes())
	}
	total, lines := initCost(t, stderr.String())
	if lines == 0 {
		t.Fatalf("no inittrace line in pbl help's stderr:\n%s", stderr.Bytes())
	}
	t.Logf("pbl's packages allocate %d times, %d bytes at start-up (budget %d allocations)", total.allocs, total.bytes, initAllocBudget)
	if total.allocs > initAllocBudget {
		t.Errorf("pbl's packages allocate %d times at start-up, more than the budget of %d (issue 16); by package:\n%s",
			total.allocs, initAllocBudget, total.detail)
	}
	// Even an init that allocates nothing runs code far from the rest
	// of start-up (a page fault each, in a binary of 10 MB): a value such
	// as reflect.TypeFor[T]() is computed where it is used.
	if len(total.pkgs) > 0 {
		t.Errorf("pbl's packages %v run code at initialisation; none should (issue 16)", total.pkgs)
	}
}

// initTotal sums the init costs of pbl's own packages.
type initTotal struct {
	allocs, bytes int
	detail        string   // one line per package that allocates
	pkgs          []string // the packages that run any code at init
}

// initCost parses inittrace output: the costs of pbl's own packages, and
// the number of inittrace lines of any package.
func initCost(t *testing.T, trace string) (initTotal, int) {
	var total initTotal
	lines := 0
	for _, line := range strings.Split(trace, "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines++
		pkg := m[1]
		if pkg != "main" && pkg != "github.com/pbl-lang/pbl" && !strings.HasPrefix(pkg, "github.com/pbl-lang/pbl/") {
			continue
		}
		b, err1 := strconv.Atoi(m[2])
		a, err2 := strconv.Atoi(m[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad inittrace line %q", line)
		}
		total.allocs += a
		total.bytes += b
		total.pkgs = append(total.pkgs, pkg)
		if a > 0 {
			total.detail += fmt.Sprintf("  %s: %d bytes, %d allocs\n", pkg, b, a)
		}
	}
	return total, lines
}
