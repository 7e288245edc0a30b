package chunkedfile

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Chunk is one part of an annotated file.
type Chunk struct {
	Source string // the chunk's text, preceded by newlines so lines match the file
	Line   int    // line of the file where the chunk starts

	filename string
	t        testing.TB
	wantErrs map[int][]*regexp.Regexp // line → expectations not yet met
}

// Read parses the annotated file filename into chunks. A malformed
// annotation fails the test.
func Read(filename string, t testing.TB) []Chunk {
	t.Helper()
	data, err := os.ReadFile(filename)
	if err != nil {
		t.Fatal(err)
		return nil
	}
	var chunks []Chunk
	lines := strings.SplitAfter(string(data), "\n")
	start := 0 // index of the first line of the current chunk
	flush := func(end int) {
		c := Chunk{
			Source:   strings.Repeat("\n", start) + strings.TrimSuffix(strings.Join(lines[start:end], ""), "\n"),
			Line:     start + 1,
			filename: filename,
			t:        t,
			wantErrs: map[int][]*regexp.Regexp{},
		}
		for i := start; i < end; i++ {
			rxs, err := parseAnnotations(lines[i])
			if err != nil {
				t.Fatalf("%s:%d: %v", filename, i+1, err)
			}
			c.wantErrs[i+1] = append(c.wantErrs[i+1], rxs...)
		}
		chunks = append(chunks, c)
	}
	for i, line := range lines {
		if strings.TrimRight(line, "\r\n") == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return chunks
}

// parseAnnotations returns the expectations of one line: each `###` must be
// followed by one or more Go-quoted regular expressions.
func parseAnnotations(line string) ([]*regexp.Regexp, error) {
	var rxs []*regexp.Regexp
	for {
		i := strings.Index(line, "###")
		if i < 0 {
			return rxs, nil
		}
		line = strings.TrimLeft(line[i+len("###"):], " \t")
		if !strings.HasPrefix(line, `"`) && !strings.HasPrefix(line, "`") {
			return nil, fmt.Errorf("### must be followed by a quoted regexp")
		}
		for strings.HasPrefix(line, `"`) || strings.HasPrefix(line, "`") {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, fmt.Errorf("bad quoted regexp after ###: %v", err)
			}
			pattern, _ := strconv.Unquote(q)
			rx, err := regexp.Compile(pattern)
			if err != nil {
				return nil, fmt.Errorf("bad regexp after ###: %v", err)
			}
			rxs = append(rxs, rx)
			line = strings.TrimLeft(line[len(q):], " \t")
		}
	}
}

// GotError reports an error msg at line (1-based, a line of the whole
// file). It fails the test unless an unmet expectation of that line matches
// msg; the first such expectation is then met.
func (c *Chunk) GotError(line int, msg string) {
	c.t.Helper()
	rxs := c.wantErrs[line]
	for i, rx := range rxs {
		if rx.MatchString(msg) {
			c.wantErrs[line] = append(rxs[:i:i], rxs[i+1:]...)
			return
		}
	}
	if len(rxs) > 0 {
		c.t.Errorf("%s:%d: unexpected error: %s (want %s)", c.filename, line, msg, quoteAll(rxs))
		return
	}
	c.t.Errorf("%s:%d: unexpected error: %s", c.filename, line, msg)
}

// Done fails the test for each expectation of the chunk that was not met.
func (c *Chunk) Done() {
	c.t.Helper()
	lines := make([]int, 0, len(c.wantErrs))
	for line := range c.wantErrs {
		lines = append(lines, line)
	}
	sort.Ints(lines)
	for _, line := range lines {
		for _, rx := range c.wantErrs[line] {
			c.t.Errorf("%s:%d: expected error matching %q", c.filename, line, rx)
		}
	}
}

func quoteAll(rxs []*regexp.Regexp) string {
	s := make([]string, len(rxs))
	for i, rx := range rxs {
		s[i] = strconv.Quote(rx.String())
	}
	return strings.Join(s, " or ")
}
