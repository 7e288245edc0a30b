package format

// Comments returns the text of src's comments in order, or nil if src
// does not lex.
func Comments(src []byte) []string {
	toks, err := scan("f.pbl", string(src))
	if err != nil {
		return nil
	}
	var cs []string
	for _, t := range toks {
		for _, c := range t.comments {
			cs = append(cs, c.text)
		}
	}
	return cs
}

// TokenStarts returns the offset of each token of src, EOF's included.
func TokenStarts(src []byte) []int {
	toks, err := scan("f.pbl", string(src))
	if err != nil {
		return nil
	}
	starts := make([]int, len(toks))
	for i, t := range toks {
		starts[i] = t.start
	}
	return starts
}
