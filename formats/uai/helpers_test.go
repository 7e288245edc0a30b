package uai_test

import (
	"compress/gzip"
	"io"
	"regexp"
)

func newGzip(w io.Writer) *gzip.Writer { return gzip.NewWriter(w) }

// matches reports whether s matches the regular expression rx.
func matches(rx, s string) bool { return regexp.MustCompile(rx).MatchString(s) }
