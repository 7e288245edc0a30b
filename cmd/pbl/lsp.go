package main

import (
	"flag"
	"os"

	"github.com/pbl-lang/pbl/lsp"
)

const lspSummary = `Lsp runs pbl's language server: the Language Server Protocol over stdin and
stdout, for editors. It reports every error of an open .pbl file as you type
(the errors pbl check reports), completes keywords, variables and their
states after "X=", shows a variable's states, parents and table on hover and a
query's answer over the query, goes to a variable's declaration (across
imports), lists the declarations, and formats the file as pbl fmt does.
editors/README.md says how to point VS Code, Vim and Neovim at it.`

// lspFlagsFor accepts --stdio, which LSP clients pass to choose the
// transport (vscode-languageclient does for TransportKind.stdio): standard
// input and output is pbl lsp's only one.
func lspFlagsFor(c *cli, fs *flag.FlagSet) {
	fs.Bool("stdio", true, "talk to the editor on standard input and output (the only transport; accepted because LSP clients pass it)")
}

// lspCmd serves the language server until the editor shuts it down.
func lspCmd(c *cli, args []string) int {
	if len(args) != 0 {
		return c.usageErr("lsp", "takes no arguments: it talks to the editor on stdin and stdout")
	}
	if err := lsp.Serve(os.Stdin, c.stdout, c.stderr); err != nil {
		c.report(err)
		return exitError
	}
	return exitOK
}
