package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// A model travels to the workers in the jobs, and is loaded there once per
// model. A model with every distribution travels as its .pbl text
// (formats/source, which keeps every number exactly: the parameters of an
// iteration, a model read from any format). A structure without numbers
// (edges, naive_bayes, tan, open variables), which .pbl text of the model
// would not keep, travels as the .pbl source it was loaded from, with the
// states its open variables were given: the worker loads it as pbl does
// (pbl.Load), so imports and learn statements are resolved as they were,
// relative to the file's name (which then must be readable by the
// workers: pbl convert makes a model one self-contained file).
type modelRef struct {
	Name   string                // the file name the source is loaded as
	Src    []byte                // .pbl source
	States map[ir.VarID][]string // the open variables' states, or nil
}

// refOf returns how m travels: loaded from path, its open variables
// settled with states.
func refOf(m *ir.Model, path string, states map[ir.VarID][]string) (modelRef, error) {
	if len(m.Unlearned()) == 0 {
		var b bytes.Buffer
		if err := source.Write(&b, m, ""); err != nil {
			return modelRef{}, err
		}
		return modelRef{Name: "model.pbl", Src: b.Bytes()}, nil
	}
	if strings.ToLower(filepath.Ext(path)) != ".pbl" {
		return modelRef{}, fmt.Errorf("%s: a model without numbers for %s cannot be sent to the workers", path, m.NameList(m.Unlearned(), 3))
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return modelRef{}, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return modelRef{}, err
	}
	return modelRef{Name: abs, Src: src, States: states}, nil
}

// paramsRef returns how the parameters of an iteration travel: m has every
// distribution.
func paramsRef(m *ir.Model) ([]byte, error) {
	var b bytes.Buffer
	if err := source.Write(&b, m, ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// models caches the models loaded, by their encoded reference.
var models sync.Map // string → *loaded

type loaded struct {
	once sync.Once
	m    *ir.Model
	err  error
}

// load returns the model r names.
func (r modelRef) load() (*ir.Model, error) {
	var key bytes.Buffer
	if err := gob.NewEncoder(&key).Encode(r); err != nil {
		return nil, err
	}
	v, _ := models.LoadOrStore(key.String(), &loaded{})
	l := v.(*loaded)
	l.once.Do(func() {
		l.m, l.err = pbl.Load(r.Name, r.Src)
		if l.err == nil && r.States != nil {
			l.m = l.m.WithStates(r.States)
		}
	})
	return l.m, l.err
}

// loadParams returns the parameters of an iteration.
func loadParams(src []byte) (*ir.Model, error) {
	return modelRef{Name: "params.pbl", Src: src}.load()
}
