package launch

import (
	"errors"
	"fmt"
)

// ErrReaderPanic is wrapped by the error RecoverInput makes of a panic
// (errors.Is): a reader — a parser, an interpreter, a VM, ours or a
// library's — failed on this input instead of returning an error.
var ErrReaderPanic = errors.New("the reader failed on this input")

// RecoverInput, deferred where input from a checkout enters a reader, turns
// a panic of that reader into *err: an *InputError for file whose message
// names what failed and says the input is not supported; it wraps
// ErrReaderPanic. The unit that read the input (a snippet, a recipe file, a
// point) fails with it and the process goes on: a checkout written by a
// stranger can never crash the tool (cookbook-sync issue 20 item 1). The
// panic value is printed escaped like every message (InputError.Error).
//
// It must be the deferred function itself (defer launch.RecoverInput(f,
// &err)): recover works only there.
func RecoverInput(file string, err *error) {
	if r := recover(); r != nil {
		*err = &InputError{File: file, Msg: fmt.Sprintf("the reader failed on this input (%v): not supported", r), Err: ErrReaderPanic}
	}
}
