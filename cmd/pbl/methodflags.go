package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// methodFlags are the command-line flags of a learning method, made from
// the learn package's registry: --method NAME and one flag per option of
// any method (--alpha, --ess, --m). They are validated by the registry, as
// a learn statement's method is, so the two cannot disagree.
type methodFlags struct {
	method string
	values map[string]*float64
	fs     *flag.FlagSet
}

// register defines the flags on fs; what says what the method is for.
func (mf *methodFlags) register(fs *flag.FlagSet, what string) {
	mf.fs = fs
	mf.values = map[string]*float64{}
	fs.StringVar(&mf.method, "method", "mle", what+": "+strings.Join(learn.MethodNames(), ", "))
	for _, s := range learn.Methods {
		for _, o := range s.Options {
			if _, dup := mf.values[o.Name]; dup {
				continue
			}
			mf.values[o.Name] = fs.Float64(o.Name, o.Default, s.Name+": "+o.Help)
		}
	}
}

// given reports whether --method or any option flag was given.
func (mf *methodFlags) given() []string {
	var out []string
	mf.fs.Visit(func(f *flag.Flag) {
		if _, ok := mf.values[f.Name]; ok || f.Name == "method" {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

// options returns the learning options the flags give, validated by the
// registry.
func (mf *methodFlags) options() (learn.Options, error) {
	var opts []ir.LearnOption
	var wrong error
	mf.fs.Visit(func(f *flag.Flag) {
		v, ok := mf.values[f.Name]
		if !ok {
			return
		}
		opts = append(opts, ir.LearnOption{Name: f.Name, Text: f.Value.String(), Value: *v})
		// A flag of another method: say which, in the terms of flags.
		if spec, err := learn.LookupMethod(mf.method); err == nil && wrong == nil && !takes(spec, f.Name) {
			for _, s := range learn.Methods {
				if takes(s, f.Name) {
					wrong = fmt.Errorf("--%s applies to --method %s, not %s", f.Name, s.Name, spec.Name)
					break
				}
			}
		}
	})
	if wrong != nil {
		return learn.Options{}, wrong
	}
	o, err := learn.ParseOptions(mf.method, ir.Pos{}, opts)
	if err != nil {
		// Positions of flags are zero: give the messages alone, in the
		// terms of the command line.
		list := ir.Positioned(ir.Pos{}, err)
		msgs := make([]string, 0, len(list))
		for _, e := range list {
			msgs = append(msgs, e.Msg)
		}
		return o, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return o, nil
}

// header describes the method and its options as a command line: the
// options given, or else those with a default ("--method bayes --alpha
// 1").
func (mf *methodFlags) header() string {
	s := "--method " + mf.method
	given := ""
	mf.fs.Visit(func(f *flag.Flag) {
		if _, ok := mf.values[f.Name]; ok {
			given += " --" + f.Name + " " + f.Value.String()
		}
	})
	if given == "" {
		if spec, err := learn.LookupMethod(mf.method); err == nil {
			for _, o := range spec.Options {
				if o.Default != 0 {
					given += " --" + o.Name + " " + ir.FormatFloat(o.Default)
				}
			}
		}
	}
	return s + given
}

// takes reports whether the method s has the option name.
func takes(s *learn.MethodSpec, name string) bool {
	for _, o := range s.Options {
		if o.Name == name {
			return true
		}
	}
	return false
}
