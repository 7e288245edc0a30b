// Package editors holds no Go code: it is editor support for pbl, a
// TextMate grammar and VS Code extension (vscode/), a Vim syntax file and
// plugin (vim/), and README.md on installing them and on pointing an
// editor at pbl lsp. Its test checks that both grammars list every
// keyword of the language (grammar.Keywords), so that they cannot drift
// from it silently, and that the TextMate grammar is well formed.
package editors
