//go:build unix

package input

import (
	"os"
	"syscall"
)

// fileKey identifies the file fi describes: its device and inode.
func fileKey(path string, fi os.FileInfo) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}
	}
	return path
}
