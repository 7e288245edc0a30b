package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
	"github.com/pbl-lang/pbl/report"
	"github.com/pbl-lang/pbl/structure"
)

// bootstrapCmd runs pbl structure --bootstrap N: the method on N
// resamples of d, each edge's strength, and with -o the averaged network
// at --threshold with its CPTs learned from d.
func bootstrapCmd(c *cli, in string, d *structure.Data, kind structure.Score, opt structure.Options,
	learnOne func(*structure.Data, structure.Options) (*structure.Result, [][2]int, error),
	lopt learn.Options, write func(*bytes.Buffer, *ir.Model) error, t0 time.Time) int {
	// The resamples are learned in parallel, each on one goroutine.
	workers := stWorkers
	one := opt
	one.Workers = 1
	tick, stop := bootstrapProgress(c, stBootstrap)
	strengths, err := structure.Bootstrap(d, stBootstrap, stSeed, workers0(workers), func(r *structure.Data) (*structure.DAG, [][2]int, error) {
		res, und, err := learnOne(r, one)
		tick()
		if err != nil {
			return nil, nil, err
		}
		return res.DAG, und, nil
	})
	stop()
	if err != nil {
		c.report(fileError(in, err))
		return exitError
	}
	s := structure.NewScorer(d, kind, stESS)
	avg, err := structure.Averaged(s, strengths, stThreshold, opt)
	if err != nil {
		c.report(&ir.Error{Pos: ir.Pos{File: in}, Msg: "the averaged network: " + err.Error(), Err: err})
		return exitError
	}
	if write != nil {
		if st := writeLearned(c, d, avg, lopt, write); st != exitOK {
			return st
		}
	}
	secs := time.Since(t0).Seconds()
	names := d.Names
	if c.json {
		list := []*report.Object{}
		for _, st := range strengths {
			o := &report.Object{}
			o.Set("from", names[st.From])
			o.Set("to", names[st.To])
			o.Set("strength", st.Strength)
			o.Set("forward", st.Forward)
			o.Set("backward", st.Backward)
			list = append(list, o)
		}
		edges := [][2]string{}
		for _, e := range avg.Edges() {
			edges = append(edges, [2]string{names[e[0]], names[e[1]]})
		}
		o := &report.Object{}
		o.Set("method", stMethod)
		o.Set("score", kind.String())
		o.Set("bootstrap", stBootstrap)
		o.Set("threshold", stThreshold)
		o.Set("strengths", list)
		o.Set("edges", edges)
		o.Set("score_value", s.Total(avg))
		return writeStructureJSON(c, o, secs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s: %s of %s, %s joined in some resample, %s at strength >= %s (averaged network score %s), %.3g s\n",
		stMethod, kind, plural(stBootstrap, "resample"), plural(d.N, "row"), plural(len(strengths), "pair"), plural(avg.NumEdges(), "edge"), ir.FormatFloat(stThreshold), ir.FormatFloat(s.Total(avg)), secs)
	fmt.Fprintf(&b, "strength  forward  backward\n")
	for _, st := range strengths {
		mark := "  "
		if avg.HasEdge(st.From, st.To) {
			mark = " *"
		}
		fmt.Fprintf(&b, "   %.3f    %.3f     %.3f%s %s -> %s\n", st.Strength, st.Forward, st.Backward, mark, ir.Quote(names[st.From]), ir.Quote(names[st.To]))
	}
	return c.write([]byte(b.String()))
}

// workers0 returns the number of resamples learned at once: w, or one
// per core when w is 0.
func workers0(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// bootstrapProgress shows on a terminal how many resamples are done.
func bootstrapProgress(c *cli, n int) (tick, stop func()) {
	f, ok := c.stderr.(*os.File)
	if !ok || c.json || !term.IsTerminal(int(f.Fd())) {
		return func() {}, func() {}
	}
	var mu sync.Mutex
	done := 0
	tick = func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		fmt.Fprintf(f, "\rresample %d of %d\x1b[K", done, n)
	}
	return tick, func() { fmt.Fprint(f, "\r\x1b[K") }
}
