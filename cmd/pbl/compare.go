package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
	"github.com/pbl-lang/pbl/structure"
)

// compareSummary is the help of pbl compare.
const compareSummary = "Compare computes the structural Hamming distance (SHD) between the graphs of two\n" +
	"networks (any formats pbl reads; their numbers are ignored), A the reference (say the\n" +
	"true network) and B the one compared with it (say a learned one). Both graphs are first\n" +
	"replaced by their CPDAGs, so equivalent graphs are at distance 0. Variables are matched\n" +
	"by name; the two must have the same variables. Each pair of variables counts at most\n" +
	"once, as in bnlearn's shd(): missing (adjacent in A, not in B), extra (in B, not in A)\n" +
	"or reversed (adjacent in both, marked differently: the other way round, or directed in\n" +
	"one and undirected in the other). The skeletons are compared too: precision is the\n" +
	"fraction of B's adjacencies in A, recall the fraction of A's in B, F1 their harmonic\n" +
	"mean. It prints the SHD, the skeletons' figures and the edges one a line, or with --json\n" +
	"{\"shd\", \"missing\": [[\"A\", \"B\"], ...], \"extra\", \"reversed\", \"skeleton_precision\",\n" +
	"\"skeleton_recall\", \"skeleton_f1\"}, each pair written as A marks it (as B marks it for\n" +
	"extra edges). --dot FILE also writes the comparison as a Graphviz graph: agreeing edges\n" +
	"black, extra red, missing grey and dashed, reversed blue (as B marks them, labelled with\n" +
	"A's marking); undirected edges have no arrowhead."

var compareDot string

func compareFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&compareDot, "dot", "", "also write the comparison as a Graphviz `file` (written atomically)")
}

// compareCmd runs pbl compare.
func compareCmd(c *cli, args []string) int {
	if len(args) != 2 {
		return c.usageErr("compare", "want two model files, got %s", plural(len(args), "argument"))
	}
	if err := checkOutput(compareDot, args...); err != nil {
		c.report(err)
		return exitError
	}
	var dags [2]*structure.DAG
	for i, path := range args {
		m, err := loadFile(path)
		if err != nil {
			c.report(err)
			return exitError
		}
		dags[i] = structure.FromModel(m)
	}
	if msg := nameDiff(args, dags[0].Names, dags[1].Names); msg != "" {
		c.report(fmt.Errorf("%s and %s have different variables: %s", args[0], args[1], msg))
		return exitError
	}
	b, err := structure.Reindex(dags[1], dags[0].Names)
	if err != nil {
		c.report(fmt.Errorf("%s and %s: %v", args[0], args[1], err))
		return exitError
	}
	ca, cb := structure.CPDAGOf(dags[0]), structure.CPDAGOf(b)
	d := structure.Compare(ca, cb)
	if compareDot != "" {
		title := fmt.Sprintf("%s against %s: SHD %d", filepath.Base(args[1]), filepath.Base(args[0]), d.SHD)
		if err := writeAtomic(compareDot, []byte(structure.DOT(ca, cb, d, title))); err != nil {
			c.report(err)
			return exitError
		}
	}
	names := ca.Names
	if c.json {
		pairs := func(es [][2]int) [][2]string {
			out := [][2]string{}
			for _, e := range es {
				out = append(out, [2]string{names[e[0]], names[e[1]]})
			}
			return out
		}
		o := &report.Object{}
		o.Set("shd", d.SHD)
		o.Set("missing", pairs(d.Missing))
		o.Set("extra", pairs(d.Extra))
		o.Set("reversed", pairs(d.Reversed))
		prec, rec, f1 := d.Skeleton()
		o.Set("skeleton_precision", prec)
		o.Set("skeleton_recall", rec)
		o.Set("skeleton_f1", f1)
		c.writeJSON(o)
		return exitOK
	}
	var s strings.Builder
	fmt.Fprintf(&s, "shd %d: %d missing, %d extra, %d reversed (CPDAGs: %s in %s, %s in %s)\n",
		d.SHD, len(d.Missing), len(d.Extra), len(d.Reversed),
		plural(ca.NumEdges(), "edge"), args[0], plural(cb.NumEdges(), "edge"), args[1])
	prec, rec, f1 := d.Skeleton()
	fmt.Fprintf(&s, "skeleton: precision %.3f, recall %.3f, F1 %.3f\n", prec, rec, f1)
	for _, e := range d.Missing {
		fmt.Fprintf(&s, "missing   %s\n", ca.EdgeString(e[0], e[1], ir.Quote))
	}
	for _, e := range d.Extra {
		fmt.Fprintf(&s, "extra     %s\n", cb.EdgeString(e[0], e[1], ir.Quote))
	}
	for _, e := range d.Reversed {
		fmt.Fprintf(&s, "reversed  %s; B has %s\n", ca.EdgeString(e[0], e[1], ir.Quote), cb.EdgeString(e[0], e[1], ir.Quote))
	}
	return c.write([]byte(s.String()))
}

// nameDiff says which names are in one list and not the other, or "".
func nameDiff(files []string, a, b []string) string {
	var parts []string
	for i, pair := range [2][2][]string{{a, b}, {b, a}} {
		var only []string
		for _, name := range pair[0] {
			if !slices.Contains(pair[1], name) {
				only = append(only, ir.Quote(name))
			}
		}
		if len(only) > 0 {
			parts = append(parts, fmt.Sprintf("only in %s: %s", files[i], strings.Join(only, ", ")))
		}
	}
	return strings.Join(parts, "; ")
}
