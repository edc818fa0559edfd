package launch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
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
// with an empty Msg the cause's text stands in its place. The file name is
// printed through QuotePath and the rest through EscapeControl, so a name or
// value with terminal escapes reaches the user escaped.
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(QuotePath(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	var rest strings.Builder
	if e.Path != "" {
		rest.WriteString(e.Path)
		rest.WriteString(": ")
	}
	switch {
	case e.Msg != "":
		rest.WriteString(e.Msg)
	case e.Err != nil:
		rest.WriteString(e.Err.Error())
	}
	b.WriteString(EscapeControl(rest.String()))
	return b.String()
}

// Unwrap returns the underlying cause (nil when there is none).
func (e *InputError) Unwrap() error { return e.Err }

// InvalidUTF8 gives the 1-based line and column (in characters) of the first
// byte of data that is not UTF-8, for an InputError: YAML and JSON decoders
// report an encoding error without a position. ok is false when data is
// valid UTF-8 or starts with a UTF-16 byte-order mark (another encoding,
// which the decoder names itself).
func InvalidUTF8(data []byte) (line, col int, ok bool) {
	if utf8.Valid(data) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return 0, 0, false
	}
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	return bytes.Count(data[:i], []byte("\n")) + 1, utf8.RuneCount(data[start:i]) + 1, true
}
