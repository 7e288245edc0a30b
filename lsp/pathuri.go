package lsp

// PathURI returns the file: URI of an absolute path (others unchanged), as
// the language server writes it: for a client such as package serve.
func PathURI(path string) string { return pathURI(path) }
