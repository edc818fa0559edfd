package launch

import (
	"fmt"
	"strings"
)

// InputError is bad input at a position: the File as given, the 1-based Line
// and Col of the offending text or YAML/JSON node (0 when unknown), and the
// data Path inside the document ("cells[3].routers.dynamo.blocks[2].ref",
// "base.resources.prefill_nodes"; "" when the error is not in a value).
// Msg says what was expected; Err, when set, is the underlying cause and is
// what errors.Is/As see through Unwrap.
//
// Every reader (package cookbook, infx, infx/srtslurm) returns its positioned
// errors as *InputError, so the CLI can map all of them to exit status 2.
type InputError struct {
	File string
	Line int
	Col  int
	Path string
	Msg  string
	Err  error
}

// Error formats "file:line:col: path: msg", leaving out the unknown parts;
// with an empty Msg the cause's text stands in its place.
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	switch {
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause (nil when there is none).
func (e *InputError) Unwrap() error { return e.Err }
