package grammar

import (
	"sync"

	"github.com/alecthomas/participle/v2"
)

// Parser returns the participle parser for whole files, built on the
// first call: building it walks every grammar struct by reflection (about
// 13,000 allocations), which no run of pbl needs, since the production
// parser (package parser) is hand-written. Its users are the grammar's
// golden EBNF and the differential tests and fuzzers that compare the two
// parsers. Statement alternatives are tried in order; Dist comes before
// Edges so that a CPT `P(...)` wins over an edge list starting with a
// variable named P.
var Parser = sync.OnceValue(func() *participle.Parser[File] {
	return participle.MustBuild[File](
		participle.Lexer(Lexer),
		participle.Union[Stmt](&Import{}, &VarDecl{}, &QueryStmt{}, &Expect{}, &Classifier{}, &Learn{}, &Mixture{}, &Space{}, &Data{}, &Dist{}, &Edges{}),
		participle.UseLookahead(3),
	)
})

// QueryParser returns the participle parser of a single query, as typed
// on the command line or in the REPL, built on the first call (see
// Parser).
var QueryParser = sync.OnceValue(func() *participle.Parser[Query] {
	return participle.MustBuild[Query](
		participle.Lexer(Lexer),
		participle.UseLookahead(3),
	)
})
