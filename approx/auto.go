package approx

// Auto placeholder.
func Auto(p *Problem, s Settings) (*Result, error) {
	r, err := propReduce(p)
	if err != nil {
		return nil, err
	}
	if res := cutsetExact(r, s); res != nil {
		return res, nil
	}
	return IJGP(p, s)
}
