package main

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/formats/source"
	"github.com/pbl-lang/pbl/ir"
)

// A model travels to the workers in the jobs, as the bytes of the file it
// was loaded from and the states its open variables were given, and is
// loaded there once per model as pbl loads it (pbl.Load for .pbl source,
// whose imports and learn statements are resolved relative to the file's
// path, which the workers must then be able to read; pbl.LoadFile of a copy
// for the other formats), so that every number, and every computation on
// it, is the one pbl makes. The parameters of an EM iteration travel as
// .pbl text (formats/source, which keeps every number exactly).
type modelRef struct {
	Name   string                // the file's absolute path
	Src    []byte                // its bytes
	States map[ir.VarID][]string // the open variables' states, or nil
}

// refOf returns how the model loaded from path travels, its open
// variables settled with states.
func refOf(path string, states map[ir.VarID][]string) (modelRef, error) {
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

// load returns the model r names, loaded once per scope: each job loads
// its own (the engines keep caches on a model, which then choose as they
// would in a pbl process that ran that job alone).
func (r modelRef) load(scope string) (*ir.Model, error) {
	var key bytes.Buffer
	if err := gob.NewEncoder(&key).Encode(r); err != nil {
		return nil, err
	}
	key.WriteString(scope)
	v, _ := models.LoadOrStore(key.String(), &loaded{})
	l := v.(*loaded)
	l.once.Do(func() {
		l.m, l.err = r.loadFile()
		if l.err == nil && r.States != nil {
			l.m = l.m.WithStates(r.States)
		}
	})
	return l.m, l.err
}

// loadFile loads the model file r holds.
func (r modelRef) loadFile() (*ir.Model, error) {
	if strings.ToLower(filepath.Ext(r.Name)) == ".pbl" {
		return pbl.Load(r.Name, r.Src)
	}
	dir, err := os.MkdirTemp("", "pbl-beam-model-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, filepath.Base(r.Name))
	if err := os.WriteFile(tmp, r.Src, 0o600); err != nil {
		return nil, err
	}
	return pbl.LoadFile(tmp)
}

// loadParams returns the parameters of an iteration.
func loadParams(src []byte) (*ir.Model, error) {
	return modelRef{Name: "params.pbl", Src: src}.load("")
}
