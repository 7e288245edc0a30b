package pgrammar

import (
	"errors"
	"io"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pbl-lang/pbl/grammar"
)

// Parser returns the participle parser for whole files, built on the
// first call (building it walks every grammar struct by reflection).
// Statement alternatives are tried in order; Dist comes before Edges so
// that a CPT `P(...)` wins over an edge list starting with a variable
// named P.
var Parser = sync.OnceValue(func() *participle.Parser[grammar.File] {
	return participle.MustBuild[grammar.File](
		participle.Lexer(Lexer),
		participle.Union[grammar.Stmt](&grammar.Import{}, &grammar.VarDecl{}, &grammar.QueryStmt{}, &grammar.Expect{}, &grammar.Classifier{}, &grammar.Learn{}, &grammar.Mixture{}, &grammar.Space{}, &grammar.Data{}, &grammar.Decision{}, &grammar.Utility{}, &grammar.Latent{}, &grammar.Observed{}, &grammar.Dist{}, &grammar.Edges{}),
		participle.UseLookahead(3),
	)
})

// QueryParser returns the participle parser of a single query, as typed
// on the command line or in the REPL, built on the first call.
var QueryParser = sync.OnceValue(func() *participle.Parser[grammar.Query] {
	return participle.MustBuild[grammar.Query](
		participle.Lexer(Lexer),
		participle.UseLookahead(3),
	)
})

// Lexer is pbl's hand-written scanner ([grammar.Scanner]) as participle's
// lexer.Definition (with the StringDefinition and BytesDefinition fast
// paths). Its token types are grammar's, which are participle's values;
// lexical errors become *lexer.Error at the same position.
var Lexer lexer.Definition = lexDef{}

type lexDef struct{}

func (lexDef) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":    lexer.TokenType(grammar.EOF),
		"Ident":  lexer.TokenType(grammar.Ident),
		"Number": lexer.TokenType(grammar.Number),
		"String": lexer.TokenType(grammar.String),
		"Punct":  lexer.TokenType(grammar.Punct),
	}
}

func (d lexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexBytes(filename, src)
}

func (lexDef) LexString(filename, input string) (lexer.Lexer, error) {
	return scanner{grammar.NewScanner(filename, input)}, nil
}

func (d lexDef) LexBytes(filename string, input []byte) (lexer.Lexer, error) {
	return d.LexString(filename, string(input))
}

// scanner adapts a grammar.Scanner to lexer.Lexer.
type scanner struct{ s *grammar.Scanner }

func (s scanner) Next() (lexer.Token, error) {
	t, err := s.s.Next()
	if err != nil {
		var le *grammar.Error
		if errors.As(err, &le) {
			return lexer.Token{}, &lexer.Error{Msg: le.Msg, Pos: lexer.Position(le.Pos)}
		}
		return lexer.Token{}, err
	}
	return lexer.Token{Type: lexer.TokenType(t.Type), Value: t.Value, Pos: lexer.Position(t.Pos)}, nil
}
