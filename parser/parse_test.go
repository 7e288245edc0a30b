package parser_test

import (
	"testing"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/parser"
)

// fileTests covers every construct of the grammar; want is the tree as
// treeString prints it. The last test shows that a quoted string is always
// a name, even when its text is a keyword or punctuation.
var fileTests = []struct{ input, want string }{
	// Variable declarations.
	{`var Storm: bool`,
		`(File Stmts=((VarDecl Names=((Name Ident=Storm)) Type=(Type Bool=true))))`},
	{`var Storm, BusTourGroup, Lightning: bool`,
		`(File Stmts=((VarDecl Names=((Name Ident=Storm) (Name Ident=BusTourGroup) (Name Ident=Lightning)) Type=(Type Bool=true))))`},
	{`var x: real`,
		`(File Stmts=((VarDecl Names=((Name Ident=x)) Type=(Type Real=true))))`},
	{`var Smoking: {no, light, heavy}`,
		`(File Stmts=((VarDecl Names=((Name Ident=Smoking)) Type=(Type States=((Name Ident=no) (Name Ident=light) (Name Ident=heavy))))))`},
	{`var Age: {"0-3_days", "<5", young}`,
		`(File Stmts=((VarDecl Names=((Name Ident=Age)) Type=(Type States=((Name Quoted=0-3_days) (Name Quoted="<5") (Name Ident=young))))))`},
	{`var Count: {0, 1, 2}`,
		`(File Stmts=((VarDecl Names=((Name Ident=Count)) Type=(Type States=((Name Number=0) (Name Number=1) (Name Number=2))))))`},
	{`var Grade: 1..3`,
		`(File Stmts=((VarDecl Names=((Name Ident=Grade)) Type=(Type Lo=1 Hi=3))))`},
	{`var T: -5..-1`,
		`(File Stmts=((VarDecl Names=((Name Ident=T)) Type=(Type Lo=-5 Hi=-1))))`},
	{`var T: -2..2`,
		`(File Stmts=((VarDecl Names=((Name Ident=T)) Type=(Type Lo=-2 Hi=2))))`},
	{`var "my var", density, P: bool`,
		`(File Stmts=((VarDecl Names=((Name Quoted="my var") (Name Ident=density) (Name Ident=P)) Type=(Type Bool=true))))`},
	{`var A: bool var B: bool`,
		`(File Stmts=((VarDecl Names=((Name Ident=A)) Type=(Type Bool=true)) (VarDecl Names=((Name Ident=B)) Type=(Type Bool=true))))`},

	// Edges.
	{`A -> B`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=A))) (NameList Names=((Name Ident=B)))))))`},
	{`Storm -> Lightning -> Thunder`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=Storm))) (NameList Names=((Name Ident=Lightning))) (NameList Names=((Name Ident=Thunder)))))))`},
	{`Storm, BusTourGroup -> Campfire`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=Storm) (Name Ident=BusTourGroup))) (NameList Names=((Name Ident=Campfire)))))))`},
	{`A -> B, C`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=A))) (NameList Names=((Name Ident=B) (Name Ident=C)))))))`},
	{`A, B -> C, D -> E`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=A) (Name Ident=B))) (NameList Names=((Name Ident=C) (Name Ident=D))) (NameList Names=((Name Ident=E)))))))`},
	{`"x y" -> 0`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Quoted="x y"))) (NameList Names=((Name Number=0)))))))`},
	{`P -> Q`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=P))) (NameList Names=((Name Ident=Q)))))))`},
	{`P, density -> MAP`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=P) (Name Ident=density))) (NameList Names=((Name Ident=MAP)))))))`},
	{`query -> var`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=query))) (NameList Names=((Name Ident=var)))))))`},
	{`var, import -> query`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=var) (Name Ident=import))) (NameList Names=((Name Ident=query)))))))`},
	{`import -> x`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=import))) (NameList Names=((Name Ident=x)))))))`},

	// Distributions.
	{`P(Storm) = 0.3`,
		`(File Stmts=((Dist Child=(Name Ident=Storm) Body=(Body Value=(Value Number=0.3)))))`},
	{`P(Storm) = .5`,
		`(File Stmts=((Dist Child=(Name Ident=Storm) Body=(Body Value=(Value Number=.5)))))`},
	{`P(Storm) = 1e-3`,
		`(File Stmts=((Dist Child=(Name Ident=Storm) Body=(Body Value=(Value Number=1e-3)))))`},
	{`P(Smoking) = [0.80, 0.15, 0.05]`,
		`(File Stmts=((Dist Child=(Name Ident=Smoking) Body=(Body Value=(Value Vector=(0.80 0.15 0.05))))))`},
	{`P(S) = [1]`,
		`(File Stmts=((Dist Child=(Name Ident=S) Body=(Body Value=(Value Vector=(1))))))`},
	{`P(Lightning | Storm) = { true: 0.7 false: 0.05 }`,
		`(File Stmts=((Dist Child=(Name Ident=Lightning) Parents=((Name Ident=Storm)) Body=(Body Rows=((Row States=((Name Ident=true)) Value=(Value Number=0.7)) (Row States=((Name Ident=false)) Value=(Value Number=0.05)))))))`},
	{`P(C | A, B) = {
		true, true: 0.4
		true, false: 0.1,
		false, true: 0.8;
		false, false: 0.2
	}`,
		`(File Stmts=((Dist Child=(Name Ident=C) Parents=((Name Ident=A) (Name Ident=B)) Body=(Body Rows=((Row States=((Name Ident=true) (Name Ident=true)) Value=(Value Number=0.4)) (Row States=((Name Ident=true) (Name Ident=false)) Value=(Value Number=0.1)) (Row States=((Name Ident=false) (Name Ident=true)) Value=(Value Number=0.8)) (Row States=((Name Ident=false) (Name Ident=false)) Value=(Value Number=0.2)))))))`},
	{`P(G | I) = { low: [0.3, 0.7], high: [0.9, 0.1]; }`,
		`(File Stmts=((Dist Child=(Name Ident=G) Parents=((Name Ident=I)) Body=(Body Rows=((Row States=((Name Ident=low)) Value=(Value Vector=(0.3 0.7))) (Row States=((Name Ident=high)) Value=(Value Vector=(0.9 0.1))))))))`},
	{`P(L | G) = normalize { 1: [10, 90] 2: [40, 60] }`,
		`(File Stmts=((Dist Child=(Name Ident=L) Parents=((Name Ident=G)) Normalize=true Body=(Body Rows=((Row States=((Name Number=1)) Value=(Value Vector=(10 90))) (Row States=((Name Number=2)) Value=(Value Vector=(40 60))))))))`},
	{`P(S) = normalize [3, 1]`,
		`(File Stmts=((Dist Child=(Name Ident=S) Normalize=true Body=(Body Value=(Value Vector=(3 1))))))`},
	{`P("my var" | "0-3") = { "a b": 0.5 }`,
		`(File Stmts=((Dist Child=(Name Quoted="my var") Parents=((Name Quoted=0-3)) Body=(Body Rows=((Row States=((Name Quoted="a b")) Value=(Value Number=0.5)))))))`},
	{`P(X) = {}`,
		`(File Stmts=((Dist Child=(Name Ident=X) Body=(Body))))`},
	{`P(density) = 0.5`,
		`(File Stmts=((Dist Child=(Name Ident=density) Body=(Body Value=(Value Number=0.5)))))`},
	{`P(P) = 0.5`,
		`(File Stmts=((Dist Child=(Name Ident=P) Body=(Body Value=(Value Number=0.5)))))`},
	{`P(normalize) = normalize [1, 1]`,
		`(File Stmts=((Dist Child=(Name Ident=normalize) Normalize=true Body=(Body Value=(Value Vector=(1 1))))))`},

	// Queries.
	{`query P(X)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=X)))))))`},
	{`query P(Campfire | Storm=true, BusTourGroup=true)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=Campfire))) Bar=true Given=((Term Name=(Name Ident=Storm) State=(Name Ident=true)) (Term Name=(Name Ident=BusTourGroup) State=(Name Ident=true)))))))`},
	{`query P(Campfire | Storm, BusTourGroup)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=Campfire))) Bar=true Given=((Term Name=(Name Ident=Storm)) (Term Name=(Name Ident=BusTourGroup)))))))`},
	{`expect P(A=a | B=b) == 0.4`,
		`(File Stmts=((Expect Query=(Query Kind=P Targets=((Term Name=(Name Ident=A) State=(Name Ident=a))) Bar=true Given=((Term Name=(Name Ident=B) State=(Name Ident=b)))) Value=(ExpectValue Number=0.4))))`},
	{`expect P(A | B=b) == [0.3, 0.7] within 1e-6`,
		`(File Stmts=((Expect Query=(Query Kind=P Targets=((Term Name=(Name Ident=A))) Bar=true Given=((Term Name=(Name Ident=B) State=(Name Ident=b)))) Value=(ExpectValue Vector=(0.3 0.7)) Within=(Tolerance Value=1e-6))))`},
	{`expect MPE(T=true) == {S: true, "L x": 0}`,
		`(File Stmts=((Expect Query=(Query Kind=MPE Targets=((Term Name=(Name Ident=T) State=(Name Ident=true)))) Value=(ExpectValue Assign=((Binding Name=(Name Ident=S) State=(Name Ident=true)) (Binding Name=(Name Quoted="L x") State=(Name Number=0)))))))`},
	{`expect indep(A, B | C) == false`,
		`(File Stmts=((Expect Query=(Query Kind=indep Targets=((Term Name=(Name Ident=A)) (Term Name=(Name Ident=B))) Bar=true Given=((Term Name=(Name Ident=C)))) Value=(ExpectValue Bool=false))))`},
	{`expect -> X`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=expect))) (NameList Names=((Name Ident=X)))))))`},
	{`naive_bayes PlayTennis given Outlook, Wind`,
		`(File Stmts=((Classifier Kind=naive_bayes Class=(Name Ident=PlayTennis) Features=((Name Ident=Outlook) (Name Ident=Wind)))))`},
	{`tan C given A`,
		`(File Stmts=((Classifier Kind=tan Class=(Name Ident=C) Features=((Name Ident=A)))))`},
	{`learn from "d.csv"`,
		`(File Stmts=((Learn File=d.csv)))`},
	{`learn A, B from weather with bayes(alpha = 1, ess = 2.5)`,
		`(File Stmts=((Learn Vars=((Name Ident=A) (Name Ident=B)) Table=(Name Ident=weather) Method=bayes Options=((Option Name=alpha Value=1) (Option Name=ess Value=2.5)))))`},
	{`learn from t with mle`,
		`(File Stmts=((Learn Table=(Name Ident=t) Method=mle)))`},
	{`data t = { A, B x, ? ?, "y z" }`,
		`(File Stmts=((Data Name=(Name Ident=t) Header=((Name Ident=A) (Name Ident=B)) Rows=((Cells Cells=((Cell State=(Name Ident=x)) (Cell Missing=true))) (Cells Cells=((Cell Missing=true) (Cell State=(Name Quoted="y z"))))))))`},
	{`data -> tan`,
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=data))) (NameList Names=((Name Ident=tan)))))))`},
	{`P(H | S) = { m: normal(175, 7.5), f: normal(-1.5e2, .5) }`,
		`(File Stmts=((Dist Child=(Name Ident=H) Parents=((Name Ident=S)) Body=(Body Rows=((Row States=((Name Ident=m)) Value=(Value Normal=(Normal Mean=(Array Number=175) Spread=(Array Number=7.5)))) (Row States=((Name Ident=f)) Value=(Value Normal=(Normal Mean=(Array Number=-1.5e2) Spread=(Array Number=.5)))))))))`},
	{`P(X) = normal(0, 1)`,
		`(File Stmts=((Dist Child=(Name Ident=X) Body=(Body Value=(Value Normal=(Normal Mean=(Array Number=0) Spread=(Array Number=1)))))))`},
	{"P(x, y | C) = { a: normal([0, 1], [[1, 0.5], [0.5, 2]]) }",
		`(File Stmts=((Dist Child=(Name Ident=x) More=((Name Ident=y)) Parents=((Name Ident=C)) Body=(Body Rows=((Row States=((Name Ident=a)) Value=(Value Normal=(Normal Mean=(Array Items=((Array Number=0) (Array Number=1))) Spread=(Array Items=((Array Items=((Array Number=1) (Array Number=0.5))) (Array Items=((Array Number=0.5) (Array Number=2)))))))))))))`},
	{`P(X) = normal(0, sd = 2)`,
		`(File Stmts=((Dist Child=(Name Ident=X) Body=(Body Value=(Value Normal=(Normal Mean=(Array Number=0) Named=(ArgName Name=sd) Spread=(Array Number=2)))))))`},
	{`P(X) = { a: normal(-1, var = 4) }`,
		`(File Stmts=((Dist Child=(Name Ident=X) Body=(Body Rows=((Row States=((Name Ident=a)) Value=(Value Normal=(Normal Mean=(Array Number=-1) Named=(ArgName Name=var) Spread=(Array Number=4)))))))))`},
	{"P(x, y) = normal([0, 1], cov = [[1, 0.5], [0.5, 2]])",
		`(File Stmts=((Dist Child=(Name Ident=x) More=((Name Ident=y)) Body=(Body Value=(Value Normal=(Normal Mean=(Array Items=((Array Number=0) (Array Number=1))) Named=(ArgName Name=cov) Spread=(Array Items=((Array Items=((Array Number=1) (Array Number=0.5))) (Array Items=((Array Number=0.5) (Array Number=2)))))))))))`},
	{`space H { d ~ normal(w, var = s^2) }`,
		`(File Stmts=((Space Name=(Name Ident=H) Items=((SpaceItem Observe=(Observe Column=(Name Ident=d) Family=normal Args=((Arg Value=(Expr Left=(Sum Left=(Product Left=(Unary Power=(Power Base=(Primary Ident=w))))))) (Arg Named=(ArgName Name=var) Value=(Expr Left=(Sum Left=(Product Left=(Unary Power=(Power Base=(Primary Ident=s) Exp=(Unary Power=(Power Base=(Primary Number=2))))))))))))))))`},
	{"mixture C of x, y (covariance = diag)\nmixture K of z",
		`(File Stmts=((Mixture Component=(Name Ident=C) Vars=((Name Ident=x) (Name Ident=y)) Options=((Option Name=covariance Value=diag))) (Mixture Component=(Name Ident=K) Vars=((Name Ident=z)))))`},
	{"mixture -> b",
		`(File Stmts=((Edges Lists=((NameList Names=((Name Ident=mixture))) (NameList Names=((Name Ident=b)))))))`},
	{`query P(*)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Star=true))))))`},
	{`query P(* | Storm=true)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Star=true)) Bar=true Given=((Term Name=(Name Ident=Storm) State=(Name Ident=true)))))))`},
	{`query P(X, Y | Z=z)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=X)) (Term Name=(Name Ident=Y))) Bar=true Given=((Term Name=(Name Ident=Z) State=(Name Ident=z)))))))`},
	{`query P(X=x | Y=y)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=X) State=(Name Ident=x))) Bar=true Given=((Term Name=(Name Ident=Y) State=(Name Ident=y)))))))`},
	{`query P(X=x, Y=y)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=X) State=(Name Ident=x)) (Term Name=(Name Ident=Y) State=(Name Ident=y)))))))`},
	{`query MPE()`,
		`(File Stmts=((QueryStmt Query=(Query Kind=MPE))))`},
	{`query MPE(Thunder=true)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=MPE Targets=((Term Name=(Name Ident=Thunder) State=(Name Ident=true)))))))`},
	{`query MAP(X, Y | Z=z)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=MAP Targets=((Term Name=(Name Ident=X)) (Term Name=(Name Ident=Y))) Bar=true Given=((Term Name=(Name Ident=Z) State=(Name Ident=z)))))))`},
	{`query indep(A, B)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=indep Targets=((Term Name=(Name Ident=A)) (Term Name=(Name Ident=B)))))))`},
	{`query indep(A, {B, C} | D)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=indep Targets=((Term Name=(Name Ident=A)) (Term Group=((Name Ident=B) (Name Ident=C)))) Bar=true Given=((Term Name=(Name Ident=D)))))))`},
	{`query ML(H)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=ML Targets=((Term Name=(Name Ident=H)))))))`},
	{`query MDL(H | D)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=MDL Targets=((Term Name=(Name Ident=H))) Bar=true Given=((Term Name=(Name Ident=D)))))))`},
	{`query density(x=1, y=2)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=density Targets=((Term Name=(Name Ident=x) State=(Name Number=1)) (Term Name=(Name Ident=y) State=(Name Number=2)))))))`},
	{`query P("0-3 days"="<5" | "a b"=0)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Quoted="0-3 days") State=(Name Quoted="<5"))) Bar=true Given=((Term Name=(Name Quoted="a b") State=(Name Number=0)))))))`},
	{`query P(Grade=1 | Count=-2)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=Grade) State=(Name Number=1))) Bar=true Given=((Term Name=(Name Ident=Count) State=(Name Number=-2)))))))`},
	{`query P(density | P=true)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Ident=density))) Bar=true Given=((Term Name=(Name Ident=P) State=(Name Ident=true)))))))`},
	{`query P(| X=x)`,
		`(File Stmts=((QueryStmt Query=(Query Kind=P Bar=true Given=((Term Name=(Name Ident=X) State=(Name Ident=x)))))))`},

	// Imports and comments.
	{`import "other.pbl"`,
		`(File Stmts=((Import Path=other.pbl)))`},
	{`import "dir/a b.pbl" import "c.pbl"`,
		`(File Stmts=((Import Path="dir/a b.pbl") (Import Path=c.pbl)))`},
	{`// just a comment`,
		`(File)`},
	{`/* block
	   comment */ var /* inline */ X: bool // trailing`,
		`(File Stmts=((VarDecl Names=((Name Ident=X)) Type=(Type Bool=true))))`},
	{``,
		`(File)`},
	{"var\tX\r\n:\u00a0bool",
		`(File Stmts=((VarDecl Names=((Name Ident=X)) Type=(Type Bool=true))))`},
	{`var Ünïcode_1: bool`,
		`(File Stmts=((VarDecl Names=((Name Ident="Ünïcode_1")) Type=(Type Bool=true))))`},
	{`var "bool": {"*", "|", "{"} query P("*" | "bool"="|")`,
		`(File Stmts=((VarDecl Names=((Name Quoted=bool)) Type=(Type States=((Name Quoted="*") (Name Quoted="|") (Name Quoted="{")))) (QueryStmt Query=(Query Kind=P Targets=((Term Name=(Name Quoted="*"))) Bar=true Given=((Term Name=(Name Quoted=bool) State=(Name Quoted="|")))))))`},
}

func TestFileParseTrees(t *testing.T) {
	for _, test := range fileTests {
		f, err := parser.Parse("test.pbl", []byte(test.input))
		if err != nil {
			t.Errorf("parsing %q: %v", test.input, err)
			continue
		}
		if got := treeString(f); got != test.want {
			t.Errorf("parsing %q: got %s, want %s", test.input, got, test.want)
		}
	}
}

func TestQueryParseTrees(t *testing.T) {
	for _, test := range queryTests {
		q, err := parser.ParseQuery("query", test.input)
		if err != nil {
			t.Errorf("parsing query %q: %v", test.input, err)
			continue
		}
		if got := treeString(q); got != test.want {
			t.Errorf("parsing query %q: got %s, want %s", test.input, got, test.want)
		}
	}
}

var queryTests = []struct{ input, want string }{
	{`P(X)`,
		`(Query Kind=P Targets=((Term Name=(Name Ident=X))))`},
	{`P(X | e=1)`,
		`(Query Kind=P Targets=((Term Name=(Name Ident=X))) Bar=true Given=((Term Name=(Name Ident=e) State=(Name Number=1))))`},
	{`  P(*)  // comment`,
		`(Query Kind=P Targets=((Term Star=true)))`},
	{`P(* | Storm=true)`,
		`(Query Kind=P Targets=((Term Star=true)) Bar=true Given=((Term Name=(Name Ident=Storm) State=(Name Ident=true))))`},
	{`P(X, Y | e)`,
		`(Query Kind=P Targets=((Term Name=(Name Ident=X)) (Term Name=(Name Ident=Y))) Bar=true Given=((Term Name=(Name Ident=e))))`},
	{`P(X=x | e=y)`,
		`(Query Kind=P Targets=((Term Name=(Name Ident=X) State=(Name Ident=x))) Bar=true Given=((Term Name=(Name Ident=e) State=(Name Ident=y))))`},
	{`MPE()`,
		`(Query Kind=MPE)`},
	{`MPE(e=1)`,
		`(Query Kind=MPE Targets=((Term Name=(Name Ident=e) State=(Name Number=1))))`},
	{`MAP(X | e=y)`,
		`(Query Kind=MAP Targets=((Term Name=(Name Ident=X))) Bar=true Given=((Term Name=(Name Ident=e) State=(Name Ident=y))))`},
	{`indep(A, {B, C} | D)`,
		`(Query Kind=indep Targets=((Term Name=(Name Ident=A)) (Term Group=((Name Ident=B) (Name Ident=C)))) Bar=true Given=((Term Name=(Name Ident=D))))`},
	{`P("a b"="<5" | 0=-1)`,
		`(Query Kind=P Targets=((Term Name=(Name Quoted="a b") State=(Name Quoted="<5"))) Bar=true Given=((Term Name=(Name Number=0) State=(Name Number=-1))))`},
	{`density(x=1.5)`,
		`(Query Kind=density Targets=((Term Name=(Name Ident=x) State=(Name Number=1.5))))`},
	{`P(density)`,
		`(Query Kind=P Targets=((Term Name=(Name Ident=density))))`},
	{`ML(H | D)`,
		`(Query Kind=ML Targets=((Term Name=(Name Ident=H))) Bar=true Given=((Term Name=(Name Ident=D))))`},
	{`MDL(H)`,
		`(Query Kind=MDL Targets=((Term Name=(Name Ident=H))))`},
}

// TestTimeIndex: a name's time index parses as written (t, t-1, t - 2,
// a slice), its text is canonical, and a slice's name as grammar.Quote
// writes it reads back as the same name.
func TestTimeIndex(t *testing.T) {
	for _, tc := range []struct{ src, text string }{
		{"P(Rain[3])", "Rain[3]"},
		{"P(Rain[03])", "Rain[3]"},
		{"P(Rain[t])", "Rain[t]"},
		{"P(Rain[t-1])", "Rain[t-1]"},
		{"P(Rain[t - 2])", "Rain[t-2]"},
		{"P(Rain[t+1])", "Rain[t+1]"},
		{"P(" + grammar.Quote("Rain[12]") + ")", "Rain[12]"},
		{"P(" + grammar.Quote("Rain[t]") + ")", "Rain[t]"}, // quoted: a name with brackets
	} {
		q, err := parser.ParseQuery("q", tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got := q.Targets[0].Name.Text(); got != tc.text {
			t.Errorf("%s: the name's text is %q, want %q", tc.src, got, tc.text)
		}
	}
	for _, bad := range []string{"P(Rain[])", "P(Rain[t-])", "P(Rain[1.5)", "P(Rain[t*2])"} {
		if _, err := parser.ParseQuery("q", bad); err == nil {
			t.Errorf("%s parses", bad)
		}
	}
}
