// pbl's highlighting for CodeMirror: a stream tokenizer over the words of
// grammar.Keywords (serve's TestHighlightKeywords checks that every one is
// listed here), numbers, strings and comments, as editors/vim colours them.
import { StreamLanguage } from "@codemirror/language";
import { tags } from "@lezer/highlight";

const statements = new Set(["import", "query", "expect", "learn", "from", "with", "within"]);
const declarations = new Set(["var", "data", "space", "mixture", "naive_bayes", "tan", "decision", "utility", "latent", "observed"]);
const keywords = new Set(["given", "of", "normalize", "in", "by", "prior", "if", "else", "leak", "sd", "cov", "and", "or", "not"]);
const types = new Set(["bool", "real"]);
const atoms = new Set(["true", "false"]);
const functions = new Set(["normal", "bernoulli", "conjunction", "uniform", "noisy_or", "noisy_max", "lookup", "logistic", "softmax", "exp", "log", "sqrt", "sigmoid", "abs"]);
// Query forms are keywords only directly before a parenthesis.
const queries = new Set(["P", "MPE", "MAP", "ML", "MDL", "Gibbs", "indep", "density", "entropy", "MI", "do", "MEU", "policy", "EU", "identify", "adjust", "CF"]);

export const pblLanguage = StreamLanguage.define({
  name: "pbl",
  startState: () => ({ comment: false }),
  token(stream, state) {
    if (state.comment) {
      if (stream.skipTo("*/")) {
        stream.match("*/");
        state.comment = false;
      } else {
        stream.skipToEnd();
      }
      return "blockComment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "lineComment";
    }
    if (stream.match("/*")) {
      state.comment = true;
      return "blockComment";
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return "string";
    if (stream.match(/^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?/)) return "number";
    if (stream.match(/^(?:<->|->|==|!=|<=|>=|\.\.|[<>=|~+*/^])/)) return "operator";
    const word = stream.match(/^[\p{L}_][\p{L}\p{N}_]*/u);
    if (word) {
      const w = word[0];
      if (queries.has(w) && stream.match(/^\s*\(/, false)) return "keyword";
      if (statements.has(w) || declarations.has(w) || keywords.has(w)) return "keyword";
      if (types.has(w)) return "typeName";
      if (atoms.has(w)) return "atom";
      if (functions.has(w)) return "function";
      return "variableName";
    }
    stream.next();
    return null;
  },
  tokenTable: { function: tags.function(tags.variableName) },
  languageData: { commentTokens: { line: "//", block: { open: "/*", close: "*/" } } },
});
