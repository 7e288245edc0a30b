package report

import (
	"fmt"
	"io"
	"math"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
)

// normalsText writes the posterior of real variables: each variable's
// mean and standard deviation (with their errors when approximate: the
// moments of a posterior that is not normal, Normals.Moments) and, for a mixture, each component's
// weight, the discrete states it is given, and its means and standard
// deviations.
func normalsText(w io.Writer, m *ir.Model, text string, r *infer.Normals) {
	fmt.Fprintln(w, text)
	n := len(r.Vars)
	mean, cov := r.Mean(), r.Cov()
	var t Table
	for i, v := range r.Vars {
		t.Add("  "+m.Vars[v].Name, "mean "+Num(mean[i])+pm(r, 2*i), "sd "+Num(math.Sqrt(cov[i*n+i]))+pm(r, 2*i+1))
	}
	t.Write(w)
	if r.Moments {
		fmt.Fprintln(w, "  (the posterior's mean and standard deviation: it is not a normal)")
	}
	if n > 1 {
		fmt.Fprintln(w, "  correlation")
		var c Table
		for i, v := range r.Vars {
			cells := []string{"    " + m.Vars[v].Name}
			for j := range n {
				cells = append(cells, Num(cov[i*n+j]/math.Sqrt(cov[i*n+i]*cov[j*n+j])))
			}
			c.Add(cells...)
		}
		c.Right = true
		c.Write(w)
	}
	if len(r.Components) == 1 && r.Components[0].Given == nil {
		return
	}
	fmt.Fprintf(w, "  a mixture of %s:\n", ir.Plural(len(r.Components), "normal"))
	var c Table
	head := []string{"    weight"}
	for _, o := range r.Components[0].Given {
		head = append(head, m.Vars[o.Var].Name)
	}
	for _, v := range r.Vars {
		head = append(head, m.Vars[v].Name+" mean", "sd")
	}
	c.Add(head...)
	for _, comp := range r.Components {
		cells := []string{"    " + Num(comp.Weight)}
		for _, o := range comp.Given {
			cells = append(cells, m.Vars[o.Var].States[o.State])
		}
		for i := range r.Vars {
			cells = append(cells, Num(comp.Mean[i]), Num(math.Sqrt(comp.Cov[i*n+i])))
		}
		c.Add(cells...)
	}
	c.Write(w)
}

// normalsJSON sets the posterior of real variables: "normal": {"vars",
// "mean", "cov"} for a single normal, else "mixture": [{"weight",
// "given", "mean", "cov"}, ...]; and "mean" and "sd", each variable's,
// with "mean_error" and "sd_error" when approximate. The moments of a
// posterior that is not normal (Normals.Moments) are "mean", "sd" and
// "cov" alone.
func normalsJSON(o *Object, m *ir.Model, r *infer.Normals) {
	n := len(r.Vars)
	names := make([]string, n)
	for i, v := range r.Vars {
		names[i] = m.Vars[v].Name
	}
	floats := func(xs []float64) []Float {
		out := make([]Float, len(xs))
		for i, x := range xs {
			out[i] = Float(x)
		}
		return out
	}
	matrix := func(c []float64) [][]Float {
		out := make([][]Float, n)
		for i := range n {
			out[i] = floats(c[i*n : (i+1)*n])
		}
		return out
	}
	mean, cov := r.Mean(), r.Cov()
	sd := make([]float64, n)
	for i := range n {
		sd[i] = math.Sqrt(cov[i*n+i])
	}
	o.Set("mean", floats(mean))
	o.Set("sd", floats(sd))
	if approximate(r) {
		me := make([]any, n)
		se := make([]any, n)
		for i := range n {
			me[i], se[i] = errJSON(errAt(r, 2*i)), errJSON(errAt(r, 2*i+1))
		}
		o.Set("mean_error", me)
		o.Set("sd_error", se)
	}
	if r.Moments {
		o.Set("cov", matrix(cov))
		return
	}
	if len(r.Components) == 1 && r.Components[0].Given == nil {
		nm := &Object{}
		nm.Set("vars", names)
		nm.Set("mean", floats(r.Components[0].Mean))
		nm.Set("cov", matrix(r.Components[0].Cov))
		o.Set("normal", nm)
		return
	}
	comps := make([]*Object, len(r.Components))
	for k, c := range r.Components {
		co := &Object{}
		co.Set("weight", Float(c.Weight))
		g := &Object{}
		for _, ob := range c.Given {
			g.Set(m.Vars[ob.Var].Name, m.Vars[ob.Var].States[ob.State])
		}
		co.Set("given", g)
		co.Set("mean", floats(c.Mean))
		co.Set("cov", matrix(c.Cov))
		comps[k] = co
	}
	o.Set("mixture", comps)
}
