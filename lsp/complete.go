package lsp

import (
	"slices"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/ir"
)

// queryForms are the keywords that start a query, offered with what they
// ask for.
var queryForms = [...]struct{ keyword, doc string }{
	{"P", "P(X | e): a probability, a table, P(e), P(* | e)"},
	{"MPE", "MPE(e): the most probable assignment of every unobserved variable"},
	{"MAP", "MAP(X, Y | e): the most probable assignment of X, Y"},
	{"indep", "indep(A, B | C): d-separation"},
	{"density", "density(x=1.3 | e): the density of real values"},
	{"entropy", "entropy(X | e): in bits"},
	{"MI", "MI(X, Y | e): mutual information, in bits"},
	{"ML", "ML(H | D): the maximum likelihood hypothesis"},
	{"MDL", "MDL(H | D): the minimum description length hypothesis"},
	{"Gibbs", "Gibbs(H | D): a hypothesis drawn from the posterior"},
}

// queryForm returns what the keyword k asks for if it starts a query.
func queryForm(k string) (doc string, ok bool) {
	for _, f := range queryForms {
		if f.keyword == k {
			return f.doc, true
		}
	}
	return "", false
}

// complete returns the completions of the word that ends at byte offset
// off: a variable's states after "X=" (or "X = "), as written (quoted
// where they must be), else the variables and
// keywords whose names start with the word typed so far.
func (d *document) complete(off int) []CompletionItem {
	src := d.text.src
	start := off
	for start > 0 && isWordByte(src[start-1]) {
		start--
	}
	prefix := src[start:off]
	if v := d.varBeforeEquals(start); v != nil {
		var out []CompletionItem
		for _, s := range v.States {
			if strings.HasPrefix(s, prefix) {
				// As written: "+", "no cancer" quoted, matched by name.
				item := CompletionItem{Label: ir.Quote(s), Kind: KindValue, Detail: v.Name + " " + v.Domain()}
				if item.Label != s {
					item.FilterText = s
				}
				out = append(out, item)
			}
		}
		return out
	}
	out := []CompletionItem{}
	seen := map[string]bool{}
	for _, v := range d.variables() {
		if strings.HasPrefix(v.name, prefix) && !seen[v.name] {
			seen[v.name] = true
			out = append(out, CompletionItem{Label: v.name, Kind: KindVariable, Detail: v.detail})
		}
	}
	for _, k := range grammar.Keywords {
		if strings.HasPrefix(k, prefix) && !seen[k] {
			seen[k] = true
			item := CompletionItem{Label: k, Kind: KindKeyword}
			if doc, ok := queryForm(k); ok {
				item.Kind, item.Detail = KindFunction, doc
			}
			out = append(out, item)
		}
	}
	return out
}

// A name is a variable offered by completion.
type name struct{ name, detail string }

// variables lists the variables: the model's (this text's or the last
// that loaded), and the document's var declarations besides.
func (d *document) variables() []name {
	var out []name
	if m := d.bestModel(); m != nil {
		for _, v := range m.Vars {
			out = append(out, name{v.Name, v.Domain()})
		}
	}
	for _, x := range d.decls {
		if x.detail == "var" {
			out = append(out, name{x.name, "var"})
		}
	}
	slices.SortStableFunc(out, func(a, b name) int { return strings.Compare(a.name, b.name) })
	return out
}

// varBeforeEquals returns the variable named before an "=" that ends just
// before byte offset start (spaces allowed around it, the name quoted or
// not), or nil; a comparison such as "==" does not count.
func (d *document) varBeforeEquals(start int) *ir.Variable {
	name, ok := grammar.NameBeforeEquals(d.text.src[:start])
	m := d.bestModel()
	if !ok || m == nil {
		return nil
	}
	v, ok := m.Lookup(name)
	if !ok || !v.Discrete() {
		return nil
	}
	return v
}
