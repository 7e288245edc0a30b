// The pbl extension's client: it starts `pbl lsp` (the command set by
// pbl.server.path) for .pbl files. The colouring needs none of this: it
// comes from syntaxes/pbl.tmLanguage.json alone.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

async function activate(context) {
	const command = vscode.workspace.getConfiguration('pbl').get('server.path', 'pbl');
	if (!command) {
		return;
	}
	// No transport: stdio without the --stdio argument the client would add
	// for TransportKind.stdio (pbl lsp accepts it too).
	const server = { command, args: ['lsp'] };
	client = new LanguageClient('pbl', 'pbl language server', { run: server, debug: server }, {
		documentSelector: [
			{ scheme: 'file', language: 'pbl' },
			{ scheme: 'untitled', language: 'pbl' },
		],
	});
	await client.start();
}

async function deactivate() {
	if (client) {
		await client.stop();
	}
}

module.exports = { activate, deactivate };
