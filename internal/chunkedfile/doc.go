// Package chunkedfile reads annotated test files: files split into chunks by
// lines consisting of `---`, in which a comment `### "regexp"` marks a line
// where an error matching regexp must be reported. It is modelled on
// starlark-go's internal/chunkedfile.
//
// A test reads the file, runs each chunk's Source through the phase under
// test, reports every error it got with GotError, and calls Done. The
// harness checks both directions: every error must be expected on its line,
// and every expectation must be met. [Check] does all this for a phase
// whose errors are an ir.ErrorList, and checks that the list is sorted and
// that every error is positioned in the file. Several expectations may share a line,
// either as `### "a" "b"` or as `### "a" ### "b"`.
//
// Each chunk's Source is padded with newlines so that its line numbers are
// those of the whole file; error positions can be checked against the file
// as a reader sees it. The newline that ends a chunk's last line is dropped,
// so that an error at the end of input is reported on that line.
//
// pbl has no `###` comments, so in .pbl files the annotations are written
// inside comments: `P(X) = 2  // ### "outside \[0, 1\]"`.
package chunkedfile
