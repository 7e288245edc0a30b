package main

import (
	"bytes"
	"sync"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// A model travels to the workers as its .pbl text (formats/source, which
// keeps every number exactly), in the fields of the DoFns, and is loaded
// there once per text.

// modelText returns m as .pbl source.
func modelText(m *ir.Model) (string, error) {
	var b bytes.Buffer
	if err := source.Write(&b, m, ""); err != nil {
		return "", err
	}
	return b.String(), nil
}

// models caches the models loaded from their text, by text.
var models sync.Map // string → *loaded

type loaded struct {
	once sync.Once
	m    *ir.Model
	err  error
}

// loadModel returns the model whose .pbl source is text.
func loadModel(text string) (*ir.Model, error) {
	v, _ := models.LoadOrStore(text, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() { l.m, l.err = pbl.Load("model.pbl", []byte(text)) })
	return l.m, l.err
}
