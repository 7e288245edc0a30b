// Package flagargs parses command lines whose flags may stand anywhere
// among the positional arguments, as pbl's and pbl-beam's do.
package flagargs

import "flag"

// Dash says what a "--" among the arguments means.
type Dash int

const (
	// DashEnds ends the flags: every argument after it is positional
	// (pbl query m.pbl -- '-x').
	DashEnds Dash = iota
	// DashSkipped is passed over, and flags are parsed after it as
	// before (pbl-beam: pbl passes the Beam options after it).
	DashSkipped
)

// Parse parses the flags of fs appearing anywhere among args and returns
// the positional arguments, in order; dash says what "--" does.
func Parse(fs *flag.FlagSet, args []string, dash Dash) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			if dash == DashEnds {
				return append(pos, rest...), nil
			}
			args = rest
			continue
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
