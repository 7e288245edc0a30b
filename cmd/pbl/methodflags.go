package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
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
	values map[string]*optionValue // by flag name
	fs     *flag.FlagSet

	// shared are the options whose flag the command defines itself
	// (classify's --seed, of its folds): given, the flag's value is also
	// the option's, for a method that takes it.
	shared map[string]*learn.OptionSpec
}

// optionValue is the value of a method's option flag: a number, or one of
// the option's words.
type optionValue struct {
	spec  *learn.OptionSpec
	text  string
	value float64
}

func (v *optionValue) String() string {
	if v == nil || v.spec == nil {
		return ""
	}
	return v.text
}

func (v *optionValue) Set(s string) error {
	v.text = s
	if v.spec.Choices != nil {
		return nil // the registry checks the word, as a learn statement's
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number, not %q", s)
	}
	v.value = x
	v.text = strconv.FormatFloat(x, 'g', -1, 64) // as flag's float values print
	return nil
}

// register defines the flags on fs; what says what the method is for. A
// flag the command already has (classify's --seed) is left to it, and its
// value given to the method too when the method takes that option.
func (mf *methodFlags) register(fs *flag.FlagSet, what string) {
	mf.fs = fs
	mf.values = map[string]*optionValue{}
	mf.shared = map[string]*learn.OptionSpec{}
	fs.StringVar(&mf.method, "method", "mle", what+": "+strings.Join(learn.MethodNames(), ", "))
	for _, s := range learn.Methods {
		for i := range s.Options {
			o := &s.Options[i]
			name := o.Flag()
			if _, dup := mf.values[name]; dup {
				continue
			}
			if fs.Lookup(name) != nil {
				if _, dup := mf.shared[name]; !dup {
					mf.shared[name] = o
				}
				continue
			}
			v := &optionValue{spec: o, value: o.Default}
			if o.Choices == nil {
				v.text = ir.FormatFloat(o.Default)
			}
			mf.values[name] = v
			var by, defaults []string
			same := true
			for _, t := range learn.Methods {
				for _, x := range t.Options {
					if x.Name == o.Name {
						by = append(by, t.Name)
						defaults = append(defaults, t.Name+": "+ir.FormatFloat(x.Default))
						same = same && x.Default == o.Default
					}
				}
			}
			help := strings.Join(by, ", ") + ": " + o.Help
			if !same {
				v.text = "" // no one default to show
				help += " (default " + strings.Join(defaults, ", ") + ")"
			}
			fs.Var(v, name, help)
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
	spec, _ := learn.LookupMethod(mf.method)
	mf.fs.Visit(func(f *flag.Flag) {
		if o, ok := mf.shared[f.Name]; ok && spec != nil && takes(spec, o.Name) {
			// The command's own flag (classify's --seed), which the
			// method takes as well: checked by the registry alike.
			x, err := strconv.ParseFloat(f.Value.String(), 64)
			if err != nil {
				x = math.NaN()
			}
			opts = append(opts, ir.LearnOption{Name: o.Name, Text: f.Value.String(), Value: x})
			return
		}
		v, ok := mf.values[f.Name]
		if !ok {
			return
		}
		opts = append(opts, ir.LearnOption{Name: v.spec.Name, Text: v.text, Value: v.value})
		// A flag of another method: say which, in the terms of flags.
		if spec, err := learn.LookupMethod(mf.method); err == nil && wrong == nil && !takes(spec, v.spec.Name) {
			var others []string
			for _, s := range learn.Methods {
				if takes(s, v.spec.Name) {
					others = append(others, s.Name)
				}
			}
			wrong = fmt.Errorf("--%s applies to --method %s, not %s", f.Name, strings.Join(others, " or "), spec.Name)
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
		if spec, err := learn.LookupMethod(mf.method); err == nil && !spec.Iterative() {
			for _, o := range spec.Options {
				if o.Default != 0 {
					given += " --" + o.Flag() + " " + ir.FormatFloat(o.Default)
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
