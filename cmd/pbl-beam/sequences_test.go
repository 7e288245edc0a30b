package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/learn"
)

// TestLearnSequenceShards learns time-indexed models from shards of the
// 200 sequences of examples/data/weather_seq.csv (30 rows each: the
// shards cut between sequences), one pipeline per EM iteration, and
// compares the trace and the parameters with pbl's LearnSequences on the
// whole file (to 1e-12 relative): a hidden Markov model (package hmm's
// E-step on each shard) and a model with a hidden static variable (the
// junction tree's).
func TestLearnSequenceShards(t *testing.T) {
	dir := t.TempDir()
	hmmModel := filepath.Join(dir, "w.pbl")
	os.WriteFile(hmmModel, []byte(`var Weather[t]: {sunny, rainy}
var Activity[t]: {walk, shop, clean}
Weather[t-1] -> Weather[t]
Weather[t] -> Activity[t]
P(Weather[0]) = [0.5, 0.5]
P(Weather[t] | Weather[t-1]) = { sunny: [0.5, 0.5]  rainy: [0.5, 0.5] }
P(Activity[t] | Weather[t]) = { sunny: [0.4, 0.3, 0.3]  rainy: [0.3, 0.3, 0.4] }
`), 0o644)
	general := filepath.Join(dir, "g.pbl")
	os.WriteFile(general, []byte(`var Weather[t]: {sunny, rainy}
var Activity[t]: {walk, shop, clean}
var Kind: {a, b}
Weather[t-1] -> Weather[t]
Weather[t] -> Activity[t]
Activity[t-1] -> Activity[t]
Kind -> Weather[t]
`), 0o644)
	csv := "../../examples/data/weather_seq.csv"
	tests := []struct {
		name  string
		model string
		sizes []int
		args  []string
		opt   learn.Options
	}{
		{"hmm", hmmModel, []int{900, 2100, 600}, []string{"--init", "model", "--max-iter", "8"}, learn.Options{Method: learn.EM, Init: learn.InitModel, MaxIter: 8}},
		{"general", general, []int{3000}, []string{"--seed", "2", "--max-iter", "4", "--alpha", "1", "--restarts", "2"}, learn.Options{Method: learn.EM, Seed: 2, MaxIter: 4, Alpha: 1, Restarts: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustLoad(t, tc.model)
			opt := tc.opt
			opt.VarSmoothing = learn.DefaultVarSmoothing
			want, wrep, err := pbl.LearnSequences(m, csv, pbl.SequenceOptions{}, learn.SeqOptions{Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.pbl")
			args := append([]string{"learn", tc.model, "--data", shard(t, csv, tc.sizes...), "-o", out, "--json", "--method", "em"}, tc.args...)
			var rep learnJSON
			if err := json.Unmarshal([]byte(pblBeam(t, args...)), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Rows != 6000 {
				t.Errorf("%d rows, want 6000", rep.Rows)
			}
			sameTrace(t, rep.Trace, wrep.Trace)
			sameModel(t, mustLoad(t, out), want)
		})
	}

	// A sequence in two shards is an error naming both; so is the
	// sequence column on a model without time.
	os.WriteFile(filepath.Join(dir, "dup-a.csv"), []byte("sequence,Activity\ns1,walk\ns2,shop\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dup-b.csv"), []byte("sequence,Activity\ns3,walk\ns2,clean\n"), 0o644)
	for _, tc := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"learn", hmmModel, "--data", filepath.Join(dir, "dup-*.csv"), "--method", "em"}, exitError, `dup-b.csv:3: sequence "s2" is also in ` + filepath.Join(dir, "dup-a.csv") + ` (from line 3): a sequence's rows must all be in one shard`},
		{[]string{"learn", "../../examples/asia.pbl", "--data", filepath.Join(dir, "dup-*.csv"), "--sequence-column", "id"}, exitUsage, "--sequence-column applies to a time-indexed model"},
	} {
		var stdout, stderr bytes.Buffer
		st := run(context.Background(), tc.args, &stdout, &stderr)
		if st != tc.status || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("pbl-beam %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), st, stderr.String(), tc.status, tc.stderr)
		}
	}
}
