package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// The API's values, as JSON. The page posts a request to /api/METHOD (or,
// in the browser alone, calls the WebAssembly module's pblCall(METHOD,
// JSON)); the answer is JSON, or an error {"error": message}.

// A Finding is a piece of evidence: Var observed in State, or set to it
// by an intervention (Do); or, with Likelihood set (and no State), a
// likelihood finding weighing Var's states, X~[l1, l2, ...].
type Finding struct {
	Var        string    `json:"var"`
	State      string    `json:"state,omitempty"`
	Do         bool      `json:"do,omitempty"`
	Likelihood []float64 `json:"likelihood,omitempty"`
}

// A Node is a variable of the graph.
type Node struct {
	Var     string   `json:"var"`
	Kind    string   `json:"kind"`   // "discrete" or "real"
	States  []string `json:"states"` // empty for a real variable
	Parents []string `json:"parents"`
}

// A Stmt is one of the model's query or expect statements with its answer.
type Stmt struct {
	Line   int    `json:"line"`
	Kind   string `json:"kind"` // "query" or "expect"
	Text   string `json:"text"`
	Answer string `json:"answer,omitempty"` // a query's answer as pbl prints it
	Pass   *bool  `json:"pass,omitempty"`   // an expectation holds; nil for a query
	Error  string `json:"error,omitempty"`  // the query could not be answered, or the expectation's failure
}

// A Graph is the answer to open: the model as the page draws it.
type Graph struct {
	File        string        `json:"file"`
	Source      string        `json:"source"`
	Editable    bool          `json:"editable"`
	Loaded      bool          `json:"loaded"`  // the source loaded (else the graph is the last model's)
	Version     int           `json:"version"` // the model's version, 0 if none loaded
	Nodes       []Node        `json:"nodes"`
	Stmts       []Stmt        `json:"stmts"`
	Diagnostics []Diagnostic  `json:"diagnostics"`
	Evidence    []Finding     `json:"evidence"` // the findings kept
	Mixtures    []MixtureInfo `json:"mixtures"`
	Spaces      []SpaceBox    `json:"spaces"` // each hypothesis space's posterior given its data
}

// A Belief is a variable's marginal given the evidence.
type Belief struct {
	Var      string    `json:"var"`
	P        []float64 `json:"p"`                  // P(Var = s | e), by state; empty for a real variable
	Observed string    `json:"observed,omitempty"` // the state observed or set
	Do       bool      `json:"do,omitempty"`
	// The likelihoods of a likelihood finding on Var, or none.
	Likelihood []float64 `json:"likelihood,omitempty"`
	// A real variable's density given the evidence, Density[i] at X[i]
	// (density(Var=x | e)), or none.
	X       []float64 `json:"x,omitempty"`
	Density []float64 `json:"density,omitempty"`
	// A real variable of a mixture: its density as the sum of the
	// components' weighted densities, at the same points.
	Components []Component `json:"components,omitempty"`
	// The error estimate of each of P's numbers when the beliefs are
	// approximate (Beliefs.Approximate), or none.
	Error []float64 `json:"error,omitempty"`
}

// Approximate marks an approximate answer (docs/approximate.md): the
// engine that answered, why (the exact plan's needs against the session's
// limits), and whether it was stopped early with its best answer so far.
type Approximate struct {
	Engine  string `json:"engine"`
	Why     string `json:"why"`
	Stopped bool   `json:"stopped,omitempty"`
}

// Beliefs is the answer to update: every marginal and P(e).
type Beliefs struct {
	Version int      `json:"version"`
	Beliefs []Belief `json:"beliefs"`
	PE      float64  `json:"pe"`    // P(e), 1 with no evidence
	LogPE   float64  `json:"logpe"` // ln P(e), finite where P(e) underflows
	Query   string   `json:"query"` // the question as a query line: P(* | e)
	Error   string   `json:"error,omitempty"`
	// Approximate is set when the marginals or P(e) are approximate:
	// each number then has its error (Belief.Error, PEError).
	Approximate *Approximate `json:"approximate,omitempty"`
	PEError     float64      `json:"peError,omitempty"`
}

// An MPE is the answer to mpe.
type MPE struct {
	Assignment []Finding `json:"assignment"`
	P          float64   `json:"p"`
	Query      string    `json:"query"`
	Error      string    `json:"error,omitempty"`
	// Approximate is set when the assignment was found by an
	// approximate search (local search from propagation's beliefs): it
	// may not be the most probable.
	Approximate *Approximate `json:"approximate,omitempty"`
}

// Formatted is the answer to format.
type Formatted struct {
	Source      string       `json:"source"`
	Diagnostics []Diagnostic `json:"diagnostics"` // a syntax error instead of a layout
}

type openRequest struct {
	Source *string   `json:"source"` // nil: the source as last given
	Keep   []Finding `json:"keep"`
}

type evidenceRequest struct {
	Evidence []Finding `json:"evidence"`
}

type formatRequest struct {
	Source string `json:"source"`
}

// Call answers one API request: method is open, update, mpe or format,
// body its JSON. It is what the server's /api/METHOD and the WebAssembly
// module's pblCall run.
func (s *Session) Call(ctx context.Context, method string, body []byte) (any, error) {
	switch method {
	case "open":
		var r openRequest
		if err := decode(body, &r); err != nil {
			return nil, err
		}
		return s.Open(ctx, r.Source, r.Keep)
	case "update":
		var r evidenceRequest
		if err := decode(body, &r); err != nil {
			return nil, err
		}
		return s.Update(ctx, r.Evidence)
	case "mpe":
		var r evidenceRequest
		if err := decode(body, &r); err != nil {
			return nil, err
		}
		return s.MPE(ctx, r.Evidence)
	case "format":
		var r formatRequest
		if err := decode(body, &r); err != nil {
			return nil, err
		}
		return s.Format(r.Source)
	}
	return nil, &UnknownMethodError{Method: method}
}

// UnknownMethodError is a request for a method the API does not have.
type UnknownMethodError struct{ Method string }

func (e *UnknownMethodError) Error() string { return fmt.Sprintf("no method %q", e.Method) }

// BadRequestError is a request whose body is not the method's JSON.
type BadRequestError struct{ Err error }

func (e *BadRequestError) Error() string { return "bad request: " + e.Err.Error() }
func (e *BadRequestError) Unwrap() error { return e.Err }

func decode(body []byte, v any) error {
	if len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &BadRequestError{Err: err}
	}
	return nil
}

// isClientError reports whether err is the request's fault.
func isClientError(err error) bool {
	var u *UnknownMethodError
	var b *BadRequestError
	var t *TooLargeError
	return errors.As(err, &u) || errors.As(err, &b) || errors.As(err, &t) || errors.Is(err, ErrReadOnly)
}
