package causal

// Node is an estimand's expression as plain data, for JSON: Kind is "P"
// (a term P(Vars | Given) of the observed distribution), "product" or
// "ratio" (of Args, numerator first) or "sum" (of Args[0] over the
// variables Over, which it binds, shadowing any of the same name outside).
type Node struct {
	Kind  string   `json:"kind"`
	Vars  []string `json:"vars,omitempty"`
	Given []string `json:"given,omitempty"`
	Over  []string `json:"over,omitempty"`
	Args  []Node   `json:"args,omitempty"`
}

// Tree returns the estimand's expression as a Node.
func (e *Estimand) Tree() Node { return e.g.tree(e.Expr) }

func (g *ADMG) tree(e Expr) Node {
	switch e := e.(type) {
	case Prob:
		return Node{Kind: "P", Vars: g.namesOf(e.Vars), Given: g.namesOf(e.Given)}
	case Product:
		n := Node{Kind: "product"}
		for _, f := range e.Factors {
			n.Args = append(n.Args, g.tree(f))
		}
		return n
	case Sum:
		return Node{Kind: "sum", Over: g.namesOf(e.Over), Args: []Node{g.tree(e.Body)}}
	case Ratio:
		return Node{Kind: "ratio", Args: []Node{g.tree(e.Num), g.tree(e.Den)}}
	}
	return Node{}
}
