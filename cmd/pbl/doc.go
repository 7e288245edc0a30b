// Command pbl runs pbl model files, answers queries and checks models.
// Run `pbl help` for the commands; docs/cli.md is the reference.
package main
