//go:build !unix

package input

import "os"

// fileKey identifies the file fi describes: here, by its path.
func fileKey(path string, fi os.FileInfo) any { return path }
