// Package hugin reads and writes Bayesian networks and influence diagrams
// in the NET format of the Hugin tools, as used by the bnlearn repository
// (its .net files) and written by SamIam and other programs. [Read] and
// [ReadFile] return an [ir.Model]; [Write] writes one.
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
//   - Chance nodes are supported, discrete and continuous. The prefixes
//     `discrete` and `chance` are accepted (`discrete node X`); a
//     `continuous node X { ... }` is a real-valued variable, and takes no
//     states (a states attribute is skipped, as every other attribute).
//     Decision and utility nodes are supported (see "Influence diagrams"
//     below). Function nodes (`discrete function node F`) and continuous
//     decision or utility nodes are reported as errors, and potentials
//     that name them are skipped without further errors. Object-oriented
//     networks (class blocks) are not supported.
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
// # Continuous nodes
//
// The potential of a continuous node is a conditional linear Gaussian
// density, as in Hugin's NET language: its data lists one
// `normal ( MEAN, VARIANCE )` per configuration of its discrete parents,
// nested and ordered as a table's rows are (the discrete parents in the
// order listed, the last fastest), and its continuous parents may appear
// anywhere in the list after "|":
//
//	potential ( Y | S X )
//	{
//	  data = ( normal ( 1 + 2 * X, 0.25 )      % S=yes
//	           normal ( -3 - 0.5 * X, 1 ) );   % S=no
//	}
//
// The second argument is the VARIANCE (pbl's normal(MEAN, SD) takes the
// standard deviation: the reader takes its square root). It must be a
// positive number: Hugin's deterministic continuous nodes (variance 0)
// are not supported. The mean is affine in the continuous parents: a sum
// of terms joined by + and -, each with an optional sign and a product
// (*) of numbers and at most one continuous parent (2 * X, X * 2, -X,
// 0.5); a parent may appear in several terms, and one that does not
// appear has the coefficient 0. Words are split at + - and *, so 1+2*X
// reads as 1 + 2 * X; a word that is a continuous parent's name is that
// name whatever it contains. A discrete parent in the mean, a product of
// two parents, and names that are not continuous parents are errors.
//
// A discrete node with a continuous parent is refused (pbl's exact
// engines do not answer such models, and NET has no form for the
// density), as is a potential of numbers for a continuous node or of
// normals for a discrete one.
//
// # Influence diagrams
//
// Decision and utility nodes follow HUGIN's NET language (the HUGIN API
// Reference Manual's chapter on it, and "The Net Language" of the HUGIN
// GUI manual, download.hugin.com/webdocs/manuals/GUI/pages/Tutorials/
// CaseAndData/NetLanguage.html): a node description is introduced by
// `[discrete|continuous] node`, `decision` or `utility` (`decision node`,
// `utility node` and `discrete decision` are read too).
//
//	decision Drill { states = ("yes" "no"); }
//	utility Payoff { }
//	potential (Drill | Test Result) { }
//	potential (Payoff | Drill Oil) { data = (( -70 50 200 ) ( 0 0 0 )); }
//
// The two kinds of node:
//
//   - A decision node is a pbl decision: it needs a states attribute like
//     a discrete chance node. Its potential lists after "|" its
//     informational parents, the nodes known when it is taken; its data,
//     if given, is HUGIN's initial policy, which pbl does not need (its
//     numbers must be well formed; they are dropped). A decision without
//     a potential is taken knowing nothing. The informational links are
//     read as they are written, as HUGIN 7 and later read them (a LIMID):
//     no no-forgetting links are added, so the diagram has perfect recall
//     only if the file lists them (see docs/language.md).
//   - A utility node is a pbl utility table, not a variable: it has no
//     states (a states attribute is skipped) and no children (naming it
//     after "|" is an error). Its potential lists its parents, discrete
//     chance or decision nodes, at least one; the data is one utility per
//     configuration of them, nested as a table's rows are with the last
//     parent's states innermost: data = (( u(yes,dry) u(yes,wet)
//     u(yes,soaking) ) ( u(no,dry) ... )) for potential (Payoff | Drill
//     Oil). Utilities may be any finite number; the total utility is the
//     sum of the tables. A utility node needs exactly one potential; the
//     model's utilities are in the order of their nodes.
//
// # Writing
//
// [Write] produces the layout of the bnlearn files shown above, with the
// data of each potential on one line, fully nested, and numbers in the
// shortest form that reads back as the same float64. A real-valued
// variable with a normal density (linear in its real parents or not) is
// written as a continuous node, its discrete parents listed before its
// real ones and each configuration's normal as
// `normal ( a + b * X - c * Z, VARIANCE )`, the variance the square of the
// standard deviation (or the variance as the .pbl file wrote it, var =
// V); the densities read back are the same, bit for bit. Other real
// densities (joint normals, mixtures) have no NET form: Write refuses
// them. A decision is written as a decision node whose potential lists
// its information and has no data; a utility as a utility node and a
// potential of its table, nested as above. Write refuses a utility
// without parents, which NET could write but pbl could not read back.
//
// # Errors
//
// Every error is an [ir.Error] in an [ir.ErrorList], positioned at the
// offending token: undeclared nodes in potentials (with a "did you mean"
// hint), data with the wrong number of values (naming the expected count,
// or the row that is too long or short), nodes without states or
// potential, duplicate nodes, states and potentials, unsupported kinds of
// node, a utility node named as a parent or without parents, a continuous
// parent of a decision or utility, malformed numbers, unterminated strings and parentheses,
// unexpected tokens and truncated files. After a syntax error the reader
// skips to the end of the attribute or to the next block and goes on, so
// that it reports every error it can; a node whose block had an error is
// left out without further errors about it. The model is then validated by
// [ir.Builder.Finish]: probabilities in [0, 1], rows summing to 1 within
// [ir.RowTolerance], and no cycles, informational links included.
package hugin
