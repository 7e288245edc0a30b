package parser_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/grammar/pgrammar"
	"github.com/pbl-lang/pbl/parser"
)

// The hand-written parser must build exactly the tree that participle
// builds from the grammar, positions included. These tests parse the same
// input both ways and compare.

// checkSame parses src with both parsers and reports any difference: one
// failing and not the other, or different trees.
func checkSame(t *testing.T, filename, src string) {
	t.Helper()
	hand, herr := parser.Parse(filename, []byte(src))
	part, perr := pgrammar.Parser().ParseString(filename, src)
	switch {
	case herr != nil && perr != nil:
		return
	case herr != nil:
		t.Errorf("%s: hand-written parser failed, participle did not:\nsource: %q\nerror: %v\nparticiple: %s", filename, src, herr, treeString(part))
		return
	case perr != nil:
		t.Errorf("%s: participle failed, hand-written parser did not:\nsource: %q\nerror: %v\nhand-written: %s", filename, src, perr, treeString(hand))
		return
	}
	// participle sets no Indexed: the hand-written parser's must say
	// whether the tree has a time index.
	part.Indexed = hasIndex(reflect.ValueOf(part))
	if diff := cmp.Diff(part, hand, positionComparer); diff != "" {
		t.Errorf("%s: trees differ for %q (-participle +hand-written):\n%s", filename, src, diff)
	}
}

// hasIndex reports whether the tree at v has a non-nil *grammar.Index.
func hasIndex(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return false
		}
		if _, ok := v.Interface().(*grammar.Index); ok {
			return true
		}
		return hasIndex(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && hasIndex(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if hasIndex(v.Index(i)) {
				return true
			}
		}
	}
	return false
}

// positionComparer compares positions field by field, so that a diff names
// the differing field.
var positionComparer = cmp.Comparer(func(a, b grammar.Position) bool { return a == b })

func checkSameQuery(t *testing.T, src string) {
	t.Helper()
	hand, herr := parser.ParseQuery("query", src)
	part, perr := pgrammar.QueryParser().ParseString("query", src)
	switch {
	case herr != nil && perr != nil:
		return
	case herr != nil:
		t.Errorf("hand-written ParseQuery failed, participle did not:\nsource: %q\nerror: %v\nparticiple: %s", src, herr, treeString(part))
		return
	case perr != nil:
		t.Errorf("participle failed, hand-written ParseQuery did not:\nsource: %q\nerror: %v\nhand-written: %s", src, perr, treeString(hand))
		return
	}
	if diff := cmp.Diff(part, hand, positionComparer); diff != "" {
		t.Errorf("query trees differ for %q (-participle +hand-written):\n%s", src, diff)
	}
}

func examples(t testing.TB) map[string]string {
	files, err := filepath.Glob("../examples/*.pbl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	out := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(src)
	}
	return out
}

func TestSameTreeAsParticiple(t *testing.T) {
	for name, src := range examples(t) {
		checkSame(t, name, src)
	}
	for _, test := range fileTests {
		checkSame(t, "test.pbl", test.input)
	}
	for _, test := range differentialOnly {
		checkSame(t, "test.pbl", test)
	}
	for _, test := range queryTests {
		checkSameQuery(t, test.input)
	}
	for _, test := range differentialOnly {
		checkSameQuery(t, test)
	}
}

// differentialOnly holds inputs, valid and not, whose trees are not worth
// spelling out but on which the two parsers must agree.
var differentialOnly = []string{
	`P(X) = normal`, `P(X) = normal(`, `P(X) = normal(1`, `P(X) = normal(1,`, `P(X) = normal(1, 2`, `P(X) = normal(a, 2)`, `P(X) = { a: normal(1 2) }`,
	`naive_bayes`, `naive_bayes C`, `naive_bayes C given`, `tan C given A,`, `learn`, `learn from`, `learn A from`,
	`learn from "x" with`, `learn from "x" with m(`, `learn from "x" with m(a=)`, `learn from x with m()`,
	`data`, `data t`, `data t = {`, `data t = { A }`, `data t = { A, B x y }`, `data t = { A ? }`, `data t = { A, }`,
	`expect`, `expect P(X)`, `expect P(X) ==`, `expect P(X) == x`, `expect P(X) = 1`, `expect P(X) == 1 within`,
	`expect P(X) == 1 within x`, `expect P(X) == {}`, `expect P(X) == {A}`, `expect P(X) == {A: }`, `expect P(X) == [1,]`,
	`expect P(X) == "true"`, `expect X == 1`, `expect, a -> b`, `expect P(X) == 1 within 1e-3 query P(X)`,
	`var X`, `var X:`, `var X: {}`, `var X: {a,}`, `var X: 1..`, `var X: 1..x`, `var X: bool,`,
	`var -> X`, `var, a -> b`, `var a, -> b`, `var a -> b`, `var "x" -> y`, `var a, b -> c`,
	`import`, `import x`, `import, a -> b`, `query`, `query P`, `query P(`, `query, a -> b`, `query P -> X`,
	`P`, `P(`, `P(X`, `P(X)`, `P(X) =`, `P(X) = `, `P(X) -> Y`, `P(X | ) = 1`, `P(X |) = 0.1`,
	`P(X) = [`, `P(X) = []`, `P(X) = [1,]`, `P(X) = [1 2]`, `P(X) = {`, `P(X) = { a: }`, `P(X) = { a 0.5 }`,
	`P(X) = { a: 1,, b: 2 }`, `P(X) = { a: 1 ; ; }`, `P(X) = normalize`, `P(X) = normalize normalize [1]`,
	`A ->`, `A -> B ->`, `A, -> B`, `A`, `A B`, `-> A`, `A -> B C -> D`, `A -> B P(C) = 0.2 query P(C)`,
	`P(X)`, `P()`, `P(|)`, `P(X |)`, `P(X | Y=)`, `P(X=)`, `P(X, )`, `P(*, X)`, `P({A, B})`, `P({A B})`,
	`P(X, {A B})`, `P(X) P(Y)`, `MPE`, `MPE(`, `indep(A, {B} | {C, D})`, `foo(X)`, `P(X) extra`,
	// Hypothesis spaces and their expressions.
	`space`, `space H`, `space H {`, `space H { }`, `space H { w }`, `space H { w in }`, `space H { w in real }`,
	`space H { w, v in 0 .. 1 by 0.5 }`, `space H { w in 0 .. 1 }`, `space H { w in 0 .. 1 by }`, `space H { w in {1, -2, 3.5} }`,
	`space H { w in {} }`, `space H { prior uniform }`, `space H { prior }`, `space H { prior w^2 }`, `space H { prior in real }`,
	`space H { d ~ normal(w0 + w1*x, 1) }`, `space H { d ~ normal(w0 + w1*x-1, 1) }`, `space H { d ~ normal(x-2*y^2/3, 1) }`,
	`space H { d ~ normal(-x^2, -1) }`, `space H { d ~ normal(x -1^2*2, 1) }`, `space H { d ~ bernoulli(sigmoid(w0 + w1 * x)) }`,
	`space H { d ~ normal(x y, 1) }`, `space H { d ~ normal((x, 1) }`, `space H { d ~ normal(x +, 1) }`, `space H { d ~ f() }`,
	`space H { d ~ normal("a b" * 2, 1) }`, `space H { prior (w != 0) + (v >= 1) < 3 }`, `space H { prior 2 ^ - - w }`,
	`space H { T = yes if conjunction(A, B) }`, `space H { T = yes if conjunction() }`, `space H { T = yes conjunction(A) }`,
	`space H { T = yes if all(A) }`, `space H { d ~ normal(x, 1) prior uniform w in {1} }`, `space, a -> b`, `space H { 3 in real }`,
	`data D = "x.csv"`, `data D = x.csv`, `data D = "x.csv" { a }`, `data D = { x, d 1, -2 -3, 4.5 }`,
	`ML(H | D)`, `Gibbs(H | D)`, `MDL(H)`, `Gibbs`,
	// Influence diagrams: decisions, utilities and their queries.
	`decision D: {a, b}`, `decision D: bool`, `decision D: 1..3`, `decision D`, `decision D:`, `decision -> X`, `decision, a -> b`,
	`decision D -> X`, `decision D, E: bool`, `decision "d x": bool`, `utility`, `utility U`, `utility U(`, `utility U()`,
	`utility U(A)`, `utility U(A) =`, `utility U(A) = {`, `utility U(A) = { }`, `utility U(A) = { a: 1 b: -2 }`,
	`utility U(A, B) = { a, b: 1; a, c: 2, }`, `utility U(A) = 3`, `utility U(A) = { a: [1, 2] }`, `utility -> X`, `utility, a -> b`,
	`utility U -> X`, `MEU()`, `MEU(`, `policy(D)`, `policy(D | A)`, `EU(D=d | A=a, B=b)`, `EU(D=d | do(A=a))`, `MEU -> X`,
	// Causes: latent variables, bidirected edges, observed distributions and the causal queries.
	`latent U: {a, b}`, `latent U, V: bool`, `latent U`, `latent U:`, `latent U, V`, `latent U var X: bool`, `latent U: bool -> X`, `latent -> X`, `latent, a -> b`, `latent <-> X`, `latent U -> X`,
	`A <-> B`, `A, B <-> C, D`, `A <-> B -> C`, `A <-> B <-> C`, `A <->`, `A < -> B`, `A <-B`, `A<->B`, `<-> B`, `A -> B <-> C`,
	`observed "obs.bif"`, `observed data "obs.csv"`, `observed data`, `observed`, `observed obs.bif`, `observed -> X`,
	`observed, a -> b`, `observed <-> X`, `observed data -> X`, `observed "x" "y"`,
	`identify(Y | do(X))`, `identify(Y | do(X=x), Z=z)`, `adjust(X, Y)`, `adjust(X)`, `CF(Y=y | do(X=x), X=a, Y=b)`,
	`CF(Y | do(X))`, `identify -> X`, `CF, a -> b`, `adjust <-> b`,
	// Compact tables: noisy-OR, noisy-MAX, lookups and logical formulas.
	`P(F | A, B) = noisy_or(A: 0.8, B: 0.6, leak: 0.01)`, `P(F | A) = noisy_or(A: { hi: 0.9, lo: 0.2 })`,
	`P(F | A) = noisy_max(A: [0.1, 0.3, 0.6], leak: [0, 0.1, 0.9])`, `P(F | A) = noisy_max(A: { s: [1, 0] t: [0, 1] })`,
	`P(F | A) = noisy_or`, `P(F | A) = noisy_or(`, `P(F | A) = noisy_or()`, `P(F | A) = noisy_or(A)`, `P(F | A) = noisy_or(A:)`,
	`P(F | A) = noisy_or(A: 1,)`, `P(F | A) = noisy_or(A: 1 B: 2)`, `P(F | A) = noisy_or(A: {)`, `P(F | noisy_or) = noisy_or`,
	`P(F | noisy_or) = noisy_or and A`, `P(F | normal) = normal`, `P(F | normal) = normal or x`, `P(F | lookup) = lookup`,
	`P(F | A) = lookup { true: false  false: true }`, `P(F | A, B) = lookup { a, b: x; else: y }`, `P(F | A) = lookup {}`,
	`P(F | A) = lookup {`, `P(F | A) = lookup { a }`, `P(F | A) = lookup { a: }`, `P(F | A) = lookup { else, a: b }`,
	`P(F | A) = lookup { a: b, }`, `P(F | A) = lookup { else }`, `P(F | A, B) = A and B`, `P(F | A, B) = A or not B`,
	`P(F | A, B, C) = A and (B or C) or not C`, `P(F | A, B) = A == B`, `P(F | A, B) = A != B`, `P(F | A) = A = hi`,
	`P(F | A) = A =`, `P(F | A) = A ==`, `P(F | A) = A and`, `P(F | A) = A or`, `P(F | A) = not`, `P(F | not) = not not`,
	`P(F | A) = not not A`, `P(F | A) = (A`, `P(F | A) = ()`, `P(F | A) = (A))`, `P(F | A) = A and -> B`, `P(F | A) = A or A -> B`,
	`P(F | A) = "a b" and 1`, `P(F | A) = A query P(F)`, `P(F | A) = A = "x y" and B != C`, `P(F | A) = A and not ( B`,
	`P(F | A) = A B`, `P(F | A) = not -> B`, `P(F | and) = and and and`, `P(F | or) = or or or or`,
	// Named arguments: normal(0, sd = 2), d ~ normal(w, var = v).
	`P(X) = normal(0, sd = 2)`, `P(X) = normal(0, sd =)`, `P(X) = normal(0, sd 2)`, `P(X) = normal(sd = 0, 2)`,
	`P(X) = normal(0, = 2)`, `P(X) = normal(0, sd = = 2)`, `P(X) = normal(0, "sd" = 2)`, `P(X) = normal(0, sd == 2)`,
	`P(X) = normal(0, sd = [1, 2])`, `P(X) = normal(0, sd = var = 2)`, `P(X) = normal(0, 1 = 2)`, `P(X) = { a: normal(0, var = 1) b: normal(1, x = 2) }`,
	`space H { d ~ normal(w, sd = s) }`, `space H { d ~ normal(w, var = s^2) }`, `space H { d ~ normal(w, sd = ) }`,
	`space H { d ~ normal(sd = w, s) }`, `space H { d ~ normal(w, sd == s) }`, `space H { d ~ normal(w, sd = s = t) }`,
	`space H { d ~ normal(w, s = ) }`, `space H { d ~ bernoulli(p = sigmoid(w)) }`, `space H { d ~ normal(w, sd = (s)) }`,
	`space H { d ~ normal(w, sd = -1) }`, `space H { d ~ normal(w, "sd" = 1) }`, `space H { d ~ normal(w, sd = x-1) }`,
	// Linear Gaussian densities: a mean affine in the real parents.
	`P(Y | X) = normal(1.5 + 2 * X, 0.3)`, `P(Y | X) = normal(X, 1)`, `P(Y | X) = normal(-X, sd = 1)`, `P(Y | X) = normal(1 -2*X, var = 4)`,
	`P(Y | X, Z) = normal((X + Z) / 2, 1)`, `P(Y | X) = normal(X * 0.5 - 3, 1)`, `P(Y | X) = normal(2 * 3, 1)`, `P(Y | X) = normal(1 2, 1)`,
	`P(P | A, S) = { true: normal(90 + 0.6 * A, 8) false: normal(80 + 0.5 * A, 7) }`, `P(Y | X) = normal(1 +, 1)`, `P(Y | X) = normal(X)`,
	`P(Y | X) = normal(X X, 1)`, `P(Y | X) = normal(exp(X), 1)`, `P(Y | X) = normal(X > 1, 1)`, `P(Y | X) = normal(X ^ 2, 1)`, `P(Y | X) = normal([1] + X, 1)`,
	`P(Y | X) = normal(1 + [X], 1)`, `P(Y | X) = normal(, 1)`, `P(Y | X) = normal(1, X)`, `P(Y | X) = normal(sd = X, 1)`, `P(Y | X) = normal("x y" * 2, 1)`,
	`P(Y | X) = normal(1)`, `P(Y | X) = normal(1 )`, `P(Y | X) = normal(1 * X, sd = 2`, `P(Y | X) = normal(1e3 * X - 1e-2, 1)`,
	// Information measures.
	`entropy(X)`, `entropy(X, Y | A=a, x=1.5)`, `entropy({X, Y} | A=a)`, `entropy()`, `entropy(`, `entropy(X |)`,
	`MI(X, Y)`, `MI(X, Y | A=a)`, `MI({A, B}, C | D=d)`, `MI(X)`, `MI(X, )`, `MI`, `query entropy(X | A=a)`,
	`expect entropy(X) == 1.0 within 1e-9`, `expect MI(X, Y | Z=z) == 0`, `query MI({A B}, C)`, `entropy -> X`,
	// Interventions and likelihood evidence.
	`P(Y | do(X=x))`, `P(Y | do(X=x), Z=z, do(W=1))`, `P(Y | do(X))`, `P(Y | do(X=x)`, `P(Y | do X=x)`, `P(Y | do)`,
	`P(Y | do=a)`, `P(do | Y)`, `P(Y | do(do(X=x)))`, `P(Y | do(*))`, `P(Y | do())`, `MPE(do(X=x), Z=z)`, `P(do(X=1))`,
	`P(Y | X~[0.8, 0.2])`, `P(Y | X~[0.8, 0.2], Z=z, W~[1, 2, -3])`, `P(Y | X~)`, `P(Y | X~[])`, `P(Y | X~[0.8,])`,
	`P(Y | X~[0.8 0.2])`, `P(Y | X~[a, "b"])`, `P(Y | X~0.8)`, `P(Y | X~[0.8)`, `P(Y | X=a~[1])`, `P(Y | do(X~[1, 0]))`,
	`query P(Y | do(X=x), X~[1, 2])`, `expect P(Y=y | do(X=x)) == 0.5`, `P(X~[1], Y~[0.5, 0.5])`,
}
