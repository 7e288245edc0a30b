package grammar

import "github.com/alecthomas/participle/v2"

// Parser is the participle parser for whole files. Statement alternatives
// are tried in order; Dist comes before Edges so that a CPT `P(...)` wins
// over an edge list starting with a variable named P.
var Parser = participle.MustBuild[File](
	participle.Lexer(Lexer),
	participle.Union[Stmt](&Import{}, &VarDecl{}, &QueryStmt{}, &Expect{}, &Classifier{}, &Learn{}, &Mixture{}, &Space{}, &Data{}, &Dist{}, &Edges{}),
	participle.UseLookahead(3),
)

// QueryParser parses a single query, as typed on the command line or in
// the REPL.
var QueryParser = participle.MustBuild[Query](
	participle.Lexer(Lexer),
	participle.UseLookahead(3),
)
