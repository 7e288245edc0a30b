package grammar

// Keywords are the language's words, for the tools that offer or colour
// them: completion in the REPL and the language server, the editor
// grammars under editors/ (a test there checks they list them all).
// Keywords are not reserved: a variable may be named by one.
var Keywords = []string{
	// queries
	"P", "MPE", "MAP", "ML", "MDL", "Gibbs", "indep", "density", "entropy", "MI", "MEU", "policy", "EU", "identify", "adjust", "CF", "do",
	// statements and declarations
	"query", "expect", "var", "import", "bool", "real", "normalize", "within",
	"naive_bayes", "tan", "given", "data", "learn", "from", "with", "mixture", "of",
	"decision", "utility", "latent", "observed",
	// distributions, hypothesis spaces and concepts
	"normal", "true", "false", "space", "in", "by", "prior", "uniform", "bernoulli", "conjunction", "if",
	// compact distributions
	"noisy_or", "noisy_max", "leak", "lookup", "else", "and", "or", "not",
	// a discrete variable given real-valued parents
	"logistic", "softmax",
	// the names of normal's spread (var is a statement's keyword too)
	"sd", "cov",
}
