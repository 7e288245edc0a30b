package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pbl-lang/pbl"
)

// The files the server reads and writes: the opened model (read and
// written) and the files its source imports (read). A request names a
// file by its path relative to the model's folder, as the model's
// imports write it; a path that is absolute, that has a .. element, or
// that is not one of these files is refused (ErrForbiddenPath), and so
// is a file that is a symbolic link, unless it is the one the model
// itself was opened by.

// ErrForbiddenPath is the refusal of a file the server does not serve.
var ErrForbiddenPath = errors.New("the server reads only the model and the files it imports")

// files returns the model's files relative to its folder, the model first.
func (s *Session) files() []string {
	out := []string{filepath.Base(s.path)}
	if !s.editable {
		return out
	}
	trees, err := pbl.Parse(s.path, []byte(s.Source()))
	if err != nil {
		return out
	}
	dir := filepath.Dir(s.path)
	for _, t := range trees {
		rel, err := filepath.Rel(dir, t.Pos.Filename)
		if err != nil || rel == "." || slices.Contains(out, rel) {
			continue
		}
		out = append(out, rel)
	}
	return out
}

// allowed returns the file that rel names if the server may read it.
func (s *Session) allowed(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) {
		return "", ErrForbiddenPath
	}
	for _, part := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", ErrForbiddenPath
		}
	}
	rel = filepath.Clean(filepath.FromSlash(rel))
	if !slices.Contains(s.files(), rel) {
		return "", ErrForbiddenPath
	}
	path := filepath.Join(filepath.Dir(s.path), rel)
	if rel != filepath.Base(s.path) {
		fi, err := os.Lstat(path)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 || !fi.Mode().IsRegular() {
			return "", ErrForbiddenPath
		}
	}
	return path, nil
}

// ReadFile returns the text of one of the model's files.
func (s *Session) ReadFile(rel string) (string, error) {
	path, err := s.allowed(rel)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Size() > maxSource {
		return "", &TooLargeError{Path: rel, Size: fi.Size(), Limit: maxSource}
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// Save writes src to the model's file atomically (a temporary file in its
// folder, renamed over it, keeping its mode; through a symbolic link, the
// file it points to), and makes src the session's source.
func (s *Session) Save(src string) error {
	if !s.editable {
		return ErrReadOnly
	}
	if len(src) > maxSource {
		return &TooLargeError{Path: s.path, Size: int64(len(src)), Limit: maxSource}
	}
	target, err := filepath.EvalSymlinks(s.path)
	if err != nil {
		return err
	}
	if err := writeAtomic(target, []byte(src)); err != nil {
		return err
	}
	s.mu.Lock()
	s.src = src
	s.mu.Unlock()
	return nil
}

func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}
