//go:build !js

package pbl_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestLearnSequenceShards: shards of sequences learn as the one file of
// their sequences in name order (the same printed model, to the bit); a
// sequence id in two shards is ErrSplitSequence at the second's row.
func TestLearnSequenceShards(t *testing.T) {
	m, err := pbl.Load("u.pbl", []byte(umbrellaSrc))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "sequence,Umbrella,Season\n"
	a := "a,true,dry\na,true,\nb,false,wet\nb,true,\nb,true,wet\n"
	b := "c,false,\nc,false,dry\nd,true,\nd,true,\ne,false,wet\n"
	one := write("one.csv", head+a+b)
	sa, sb := write("s-a.csv", head+a), write("s-b.csv", head+b)
	opt := learn.SeqOptions{Options: learn.Options{Method: learn.EM, Seed: 3, MaxIter: 20}}
	text := func(paths ...string) string {
		t.Helper()
		got, rep, err := pbl.LearnSequenceShards(m, paths, pbl.SequenceOptions{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Patterns != 5 || rep.Rows != 10 {
			t.Fatalf("%d sequences of %d steps, want 5 of 10", rep.Patterns, rep.Rows)
		}
		var buf bytes.Buffer
		if err := source.Write(&buf, got, ""); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if want, got := text(one), text(sa, sb); got != want {
		t.Errorf("two shards:\n%s\none file:\n%s", got, want)
	}

	dup := write("s-c.csv", head+"f,true,\nb,false,\n")
	_, _, err = pbl.LearnSequenceShards(m, []string{sa, sb, dup}, pbl.SequenceOptions{}, opt)
	var e *ir.Error
	if !errors.Is(err, pbl.ErrSplitSequence) || !errors.As(err, &e) || e.Pos.File != dup || e.Pos.Line != 3 {
		t.Fatalf("sequence b in two shards: %v, want ErrSplitSequence at %s:3", err, dup)
	}
}
