package lsp

// The subset of the Language Server Protocol (3.17) the server speaks.
// Field names follow the specification.

// Position is a zero-based line and a character offset in UTF-16 code
// units.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is the text from Start up to (not including) End.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// Diagnostic severities.
const (
	SeverityError   = 1
	SeverityWarning = 2
)

// Diagnostic is an error at a range.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

// PublishDiagnosticsParams is textDocument/publishDiagnostics' notification.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// TextDocumentItem is a document as didOpen sends it.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// VersionedTextDocumentIdentifier names a version of a document.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

// TextDocumentContentChangeEvent is a change: the whole text when Range is
// nil, else the text replacing Range.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// DidOpenTextDocumentParams is textDocument/didOpen's.
type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// DidChangeTextDocumentParams is textDocument/didChange's.
type DidChangeTextDocumentParams struct {
	TextDocument   VersionedTextDocumentIdentifier  `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

// DidCloseTextDocumentParams is textDocument/didClose's.
type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// TextDocumentPositionParams names a position in a document (completion,
// hover, definition).
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// DocumentParams names a document (documentSymbol, formatting).
type DocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// Completion item kinds.
const (
	KindKeyword  = 14
	KindVariable = 6
	KindValue    = 12
	KindFunction = 3
)

// CompletionItem is one completion.
type CompletionItem struct {
	Label      string `json:"label"` // also the text inserted
	Kind       int    `json:"kind,omitempty"`
	Detail     string `json:"detail,omitempty"`
	FilterText string `json:"filterText,omitempty"` // what the typed word is matched against, if not the label
}

// CompletionList is completion's answer.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// MarkupContent is text for people, in Markdown.
type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Hover is hover's answer.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// Symbol kinds.
const (
	SymbolVariable = 13
	SymbolStruct   = 23
	SymbolArray    = 18
	SymbolClass    = 5
)

// DocumentSymbol is a declaration of the document.
type DocumentSymbol struct {
	Name           string `json:"name"`
	Detail         string `json:"detail,omitempty"`
	Kind           int    `json:"kind"`
	Range          Range  `json:"range"`
	SelectionRange Range  `json:"selectionRange"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// InitializeResult is initialize's answer.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   ServerInfo         `json:"serverInfo"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name string `json:"name"`
}

// ServerCapabilities says what the server does.
type ServerCapabilities struct {
	TextDocumentSync           int                `json:"textDocumentSync"` // 2: incremental
	CompletionProvider         *CompletionOptions `json:"completionProvider,omitempty"`
	HoverProvider              bool               `json:"hoverProvider"`
	DefinitionProvider         bool               `json:"definitionProvider"`
	DocumentSymbolProvider     bool               `json:"documentSymbolProvider"`
	DocumentFormattingProvider bool               `json:"documentFormattingProvider"`
}

// CompletionOptions lists the characters that start a completion.
type CompletionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters"`
}
