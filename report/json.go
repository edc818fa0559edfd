package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// PrintJSON writes the report as indented JSON, HTML characters unescaped
// (schema: SCHEMA.md, version SchemaVersion): CompactJSON written through
// WriteIndentedJSON, the bytes json.Encoder gives with SetIndent("", "  ").
// Errors are the encoder's and w's.
func PrintJSON(w io.Writer, r *Report) error {
	compact, err := CompactJSON(r)
	if err != nil {
		return err
	}
	return WriteIndentedJSON(w, compact)
}

// CompactJSON is the report as compact JSON, HTML characters unescaped,
// with a final newline (json.Encoder without an indent).
func CompactJSON(r *Report) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteIndentedJSON writes compact, the output of a json.Encoder without
// an indent (no whitespace outside strings but its final newline), to w
// as json.Indent(dst, compact, "", "  ") gives it — as a json.Encoder with
// SetIndent("", "  ") writes — through a small buffer, never holding the
// indented text whole (the main job's report is 35 MB indented; building
// it in memory was most of a warm run). Errors are w's.
func WriteIndentedJSON(w io.Writer, compact []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	depth := 0
	needIndent := false // after { or [: indent before the next token unless it closes
	inString, escaped := false, false
	newline := func(d int) {
		_ = bw.WriteByte('\n')
		for range d {
			_, _ = bw.WriteString("  ")
		}
	}
	start := 0 // compact[start:i] is pending, written as it is
	flush := func(i int) {
		if start < i {
			_, _ = bw.Write(compact[start:i])
		}
		start = i + 1
	}
	for i, c := range compact {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if needIndent && c != '}' && c != ']' {
			flush(i)
			start = i
			needIndent = false
			depth++
			newline(depth)
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			needIndent = true
		case ',':
			flush(i)
			_ = bw.WriteByte(',')
			newline(depth)
		case ':':
			flush(i)
			_, _ = bw.WriteString(": ")
		case '}', ']':
			flush(i)
			if needIndent {
				needIndent = false // an empty object or array stays {} or []
			} else {
				depth--
				newline(depth)
			}
			_ = bw.WriteByte(c)
		}
	}
	flush(len(compact))
	return bw.Flush()
}
