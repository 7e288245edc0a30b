package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/report"
)

// The entry of pbl sensitivity in the command table.
const (
	sensitivityArgs    = "MODEL 'P(Y=y | e)'"
	sensitivitySummary = "Sensitivity lists the derivative of the query P(Y=y | e) with respect to every entry θ\n" +
		"of the model's tables that can change it, the other entries of θ's row co-varied in\n" +
		"proportion (as SamIam does), ranked by absolute value. The derivatives are exact, from\n" +
		"the junction tree's family posteriors. --reach P adds the value each entry would need\n" +
		"for the query to equal P, or says that no value in [0, 1] gives it. MODEL is a\n" +
		"Bayesian network in any format pbl reads."
)

// The flags of pbl sensitivity. The cli struct belongs to main.go, so they
// live here; sensitivityFlags binds them afresh for each invocation,
// resetting them to their defaults.
var (
	sensitivityTop   int
	sensitivityReach *float64
)

func sensitivityFlags(c *cli, fs *flag.FlagSet) {
	sensitivityReach = nil
	c.engine, c.order = "auto", "min-fill"
	fs.IntVar(&sensitivityTop, "top", 0, "list only the `K` entries of largest absolute derivative (0: all)")
	fs.Func("reach", "for each entry, the value it would need for the query to equal this `probability`", func(s string) error {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x >= 0 && x <= 1) {
			return fmt.Errorf("want a probability in [0, 1]")
		}
		sensitivityReach = &x
		return nil
	})
	fs.Var(&c.data, "data", "bind the model's data set `NAME=FILE.csv` to another file with the same columns; may be repeated")
	fs.IntVar(&c.maxTable, "max-table", infer.DefaultMaxTable, "refuse cliques with more `entries` than this")
	fs.StringVar(&c.maxMemory, "max-memory", "8GiB", "refuse junction trees needing more `memory` than this (e.g. 512MiB, 8GiB)")
}

// sensitivityCmd runs pbl sensitivity.
func sensitivityCmd(c *cli, args []string) int {
	if len(args) != 2 {
		return c.usageErr("sensitivity", "want a model file and one query P(Y=y | e), got %s", plural(len(args), "argument"))
	}
	if sensitivityTop < 0 {
		return c.usageErr("sensitivity", "--top %d: want a number of entries, at least 1 (or 0 for all)", sensitivityTop)
	}
	m, opt, status := c.load("sensitivity", args[0])
	if m == nil {
		return status
	}
	q, err := pbl.ParseQuery(m, args[1])
	if err != nil {
		c.report(err)
		return exitError
	}
	params, p, err := infer.Sensitivity(m, q, infer.SensitivityOptions{Options: opt, Reach: sensitivityReach})
	if err != nil {
		c.report(err)
		return exitError
	}
	more := 0
	if sensitivityTop > 0 && len(params) > sensitivityTop {
		more = len(params) - sensitivityTop
		params = params[:sensitivityTop]
	}
	if c.json {
		return c.sensitivityJSON(m, q, p, params)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %s\n", q.Head().Text, report.Num(p))
	t := &report.Table{}
	head := []string{"  variable", "given", "state", "value", "derivative"}
	if sensitivityReach != nil {
		head = append(head, "to reach "+report.Num(*sensitivityReach))
	}
	t.Add(head...)
	for _, prm := range params {
		given := "-"
		if len(prm.Given) > 0 {
			parts := make([]string, len(prm.Given))
			for i, g := range prm.Given {
				parts[i] = m.Vars[g.Var].Name + "=" + m.Vars[g.Var].States[g.State]
			}
			given = strings.Join(parts, ", ")
		}
		row := []string{"  " + m.Vars[prm.Var].Name, given, m.Vars[prm.Var].States[prm.State], report.Num(prm.Value), report.Num(prm.Derivative)}
		if sensitivityReach != nil {
			need := "none"
			if prm.Reachable {
				need = report.Num(prm.Needed)
			}
			row = append(row, need)
		}
		t.Add(row...)
	}
	if len(params) > 0 {
		t.Write(&b)
	} else {
		b.WriteString("  no entry of the model's tables changes it\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "  (and %d more)\n", more)
	}
	return c.write([]byte(b.String()))
}

// sensitivityJSON writes the result of pbl sensitivity --json:
// {"query", "p", "reach" (with --reach), "parameters": [{"variable",
// "given": {parent: state}, "state", "value", "derivative", "needed" (with
// --reach; null when no value in [0, 1] reaches it)}]}.
func (c *cli) sensitivityJSON(m *ir.Model, q ir.Query, p float64, params []infer.Param) int {
	o := &report.Object{}
	o.Set("query", q.Head().Text)
	o.Set("p", report.Float(p))
	if sensitivityReach != nil {
		o.Set("reach", report.Float(*sensitivityReach))
	}
	list := make([]*report.Object, len(params))
	for i, prm := range params {
		e := &report.Object{}
		e.Set("variable", m.Vars[prm.Var].Name)
		given := &report.Object{}
		for _, g := range prm.Given {
			given.Set(m.Vars[g.Var].Name, m.Vars[g.Var].States[g.State])
		}
		e.Set("given", given)
		e.Set("state", m.Vars[prm.Var].States[prm.State])
		e.Set("value", report.Float(prm.Value))
		e.Set("derivative", report.Float(prm.Derivative))
		if sensitivityReach != nil {
			if prm.Reachable {
				e.Set("needed", report.Float(prm.Needed))
			} else {
				e.Set("needed", nil)
			}
		}
		list[i] = e
	}
	o.Set("parameters", list)
	c.writeJSON(o)
	return exitOK
}
