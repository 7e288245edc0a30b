package mixture

import "errors"

// The kinds of error a fit returns, as the Err of an *Error; test them with
// errors.Is.
var (
	ErrTooFewRows           = errors.New("fewer rows than clusters")
	ErrNoColumns            = errors.New("no columns")
	ErrNotFinite            = errors.New("a value is not finite")
	ErrBadOption            = errors.New("bad option")
	ErrIllDefinedCovariance = errors.New("ill-defined covariance")
	ErrOverflow             = errors.New("numeric overflow")
	ErrUnderflow            = errors.New("numeric underflow")
	ErrTooLarge             = errors.New("too large")
)

// Error is an error of a fit caused by its data or options.
type Error struct {
	Err error  // the kind: one of the Err variables above
	Row int    // the 1-based row concerned, or 0
	Msg string // lower-case, no trailing period
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind of error.
func (e *Error) Unwrap() error { return e.Err }
