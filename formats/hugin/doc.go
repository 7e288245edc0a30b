// Package hugin reads and writes Bayesian networks in the NET format of
// the Hugin tools, as used by the bnlearn repository (its .net files) and
// written by SamIam and other programs. [Read] and [ReadFile] return an
// [ir.Model]; [Write] writes one.
//
// # Dialect
//
// A file is an optional net block followed by node and potential blocks,
// in any order:
//
//	net
//	{
//	  node_size = (80 40);
//	}
//	node smoke
//	{
//	  label = "Smoker";
//	  position = (100 200);
//	  states = ( "yes" "no" );
//	}
//	potential ( lung | smoke )
//	{
//	  data = ((0.1 0.9)(0.01 0.99));   % P(lung | smoke=yes), P(lung | smoke=no)
//	}
//
// Lexical structure:
//
//   - White space separates tokens; comments run from % to the end of the
//     line. A UTF-8 byte order mark is skipped.
//   - The punctuation is { } ( ) = ; | and ",". Every other run of
//     characters is one word: a keyword, a node name, an attribute name or
//     a number (N0_7muVerMo, 0.05, 1e-05).
//   - Strings are written in double quotes, with \" and \\ as escapes, and
//     end on the line they begin.
//   - Numbers are decimal with an optional sign, fraction and exponent;
//     inf, nan, hexadecimal and numbers out of the range of float64 are
//     malformed.
//   - Commas between the items of a list are allowed and ignored.
//
// Blocks:
//
//   - The attributes of the net block are skipped.
//   - A node block is `node NAME { attributes }`. It must have a states
//     attribute listing the state names as strings; every other attribute
//     (label, position, subtype, HR_*, ...) is skipped. An attribute is
//     `name = value;`, where the value is a string, a number, a word or a
//     parenthesised list of them, nested to any depth.
//   - Only discrete chance nodes are supported. The prefixes `discrete`
//     and `chance` are accepted (`discrete node X`); decision, utility and
//     function nodes (`decision D { ... }`, `utility U`, `discrete
//     function node F`) and continuous nodes are reported as errors, and
//     potentials that name them are skipped without further errors.
//     Object-oriented networks (class blocks) are not supported.
//   - A potential block is `potential ( X | A B ... ) { data = ( ... ); }`,
//     or `potential ( X )` for a node without parents. It must name
//     exactly one node before the "|", and have a data attribute; other
//     attributes (experience, fading, model_nodes, ...) are skipped. Every
//     node needs exactly one potential. Nodes may be declared after the
//     potentials that use them.
//
// # Table layout
//
// The data of `potential ( X | A B )` lists the table in row-major order
// over (A, B, X): the parents in the order listed after "|", the first
// slowest, and the child fastest. Each parent adds a level of parentheses
// around the child's distributions, so the innermost lists are the rows:
//
//	potential ( either | lung tub )
//	{
//	  data = (((1 0)      % lung=yes, tub=yes
//	           (1 0))     % lung=yes, tub=no
//	          ((1 0)      % lung=no,  tub=yes
//	           (0 1)));   % lung=no,  tub=no
//	}
//
// This is the layout of the ir, so the values are copied as they are.
// It was checked against the BIF versions of the bnlearn networks:
// alarm, asia, child, hailfinder, insurance and win95pts read from .net
// and from .bif (with package formats/bif) have the same variables, states
// and parents in the same order and bit-for-bit equal tables, and every one
// of these networks has tables that the other plausible layouts (parents
// in reverse order, or the child slowest) would read differently.
//
// Only the values and their order matter: the data may also
// be given as one flat list, or with some inner levels flattened. The
// parentheses must balance, and lists at the innermost level of the full
// nesting (one level per parent, plus one) must hold exactly one row each;
// deeper nesting is an error.
//
// # Writing
//
// [Write] produces the layout of the bnlearn files shown above, with the
// data of each potential on one line, fully nested, and numbers in the
// shortest form that reads back as the same float64.
//
// # Errors
//
// Every error is an [ir.Error] in an [ir.ErrorList], positioned at the
// offending token: undeclared nodes in potentials (with a "did you mean"
// hint), data with the wrong number of values (naming the expected count,
// or the row that is too long or short), nodes without states or
// potential, duplicate nodes, states and potentials, unsupported kinds of
// node, malformed numbers, unterminated strings and parentheses,
// unexpected tokens and truncated files. After a syntax error the reader
// skips to the end of the attribute or to the next block and goes on, so
// that it reports every error it can; a node whose block had an error is
// left out without further errors about it. The model is then validated by
// [ir.Builder.Finish]: probabilities in [0, 1], rows summing to 1 within
// [ir.RowTolerance], and no cycles.
package hugin
