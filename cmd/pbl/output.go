package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pbl-lang/pbl/internal/input"
)

// This file writes the files pbl produces (-o, convert, --predictions,
// golden files): atomically, through symbolic links, keeping modes, and
// never over the command's own input.

// writeAtomic writes data to path as streamAtomic does.
func writeAtomic(path string, data []byte) error {
	return streamAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// streamAtomic writes the content that write streams to path, so that
// path is never left half-written:
//
//   - a regular file (new or existing) is written to a temporary file in
//     the same directory, renamed over path once complete; an existing
//     file keeps its mode;
//   - a symbolic link is written through: its target is replaced, the
//     link stays;
//   - a device, a named pipe or a socket (a FIFO, /dev/null) is written
//     to directly, since it cannot be replaced;
//   - a name of an open descriptor of the process (/dev/stdout,
//     /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written through that
//     descriptor, whatever it is open on: the links /proc gives them do
//     not always name a file (pipe:[1234]), and replacing or reopening
//     the file they do name would leave the descriptor, and what else the
//     shell writes to it (pbl … -o /dev/stdout >> log), on the old file
//     or at the old offset.
//
// On any error, or if the process is interrupted (SIGINT, SIGTERM), the
// temporary file is removed and path is left as it was; the error names
// path, never the temporary file.
func streamAtomic(path string, write func(io.Writer) error) error {
	if fd := descriptor(path); fd >= 0 {
		return writeDescriptor(path, fd, write)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return writeDirect(path, path, write) // Stat follows every link
	}
	target, err := resolveLinks(path)
	if err != nil {
		return pathErr(path, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			if fi.IsDir() {
				return pathErr(path, errors.New("is a directory"))
			}
			return writeDirect(path, target, write)
		}
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return pathErr(path, err)
	}
	tmp := f.Name()
	stop := removeOnSignal(tmp)
	defer stop()
	err = write(f)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return pathErr(path, err)
	}
	return nil
}

// checkCreatable reports the error streamAtomic would meet creating path
// before writing anything (a missing or unwritable directory, a
// directory named): a command with two outputs checks both first, so
// that one failing does not leave the other written.
func checkCreatable(path string) error {
	if descriptor(path) >= 0 {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil // written directly
	}
	target, err := resolveLinks(path)
	if err != nil {
		return pathErr(path, err)
	}
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return pathErr(path, errors.New("is a directory"))
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return pathErr(path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// resolveLinks follows path's symbolic links, if any, to the file they
// name, which need not exist yet.
func resolveLinks(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		t, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return "", errors.New("too many levels of symbolic links")
}

// descriptor returns the file descriptor of the process that path names
// (/dev/stdout: 1, /dev/stderr: 2, /dev/fd/N and /proc/self/fd/N: N), or
// -1 if it names a file.
func descriptor(path string) int {
	abs, err := filepath.Abs(path)
	if err != nil {
		return -1
	}
	switch abs {
	case "/dev/stdout":
		return 1
	case "/dev/stderr":
		return 2
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(abs, dir); ok {
			if fd, err := strconv.Atoi(n); err == nil && fd >= 0 {
				return fd
			}
		}
	}
	return -1
}

// writeDescriptor writes to the open descriptor fd, which path names.
// Standard output and standard error stay open.
func writeDescriptor(path string, fd int, write func(io.Writer) error) error {
	var f *os.File
	switch fd {
	case 1:
		f = os.Stdout
	case 2:
		f = os.Stderr
	default:
		if f = os.NewFile(uintptr(fd), path); f == nil {
			return pathErr(path, syscall.EBADF)
		}
		defer f.Close()
	}
	if err := write(f); err != nil {
		return pathErr(path, err)
	}
	return nil
}

// writeDirect writes to a file that cannot be replaced by a rename.
func writeDirect(path, target string, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return pathErr(path, err)
	}
	err = write(f)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	if err != nil {
		return pathErr(path, err)
	}
	return nil
}

// removeOnSignal removes path and exits (status 130 for SIGINT, 143 for
// SIGTERM, as a shell reports them) if the process is interrupted before
// stop is called.
func removeOnSignal(path string) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			os.Remove(path)
			if sig == syscall.SIGTERM {
				os.Exit(143)
			}
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// pathErr returns err as an *os.PathError naming path rather than a
// temporary file.
func pathErr(path string, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &os.PathError{Op: "write", Path: path, Err: err}
}

// checkOutput refuses an output file that is one of the command's input
// files (the same file, whatever the path or link it is named by): no
// command overwrites its own input.
func checkOutput(out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	if in := input.Which(out, inputs...); in != "" {
		return fmt.Errorf("%s is the input %s: pbl does not overwrite its input; write to another file", out, in)
	}
	return nil
}
