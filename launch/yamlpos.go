package launch

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

var (
	yamlLineRE   = regexp.MustCompile(`line (\d+): `)
	yamlAnchorRE = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)
)

// YAMLErrorPos places a go.yaml.in/yaml/v3 parse error (its Error() text,
// msg) in data, the document that was parsed, and returns the message
// without its "yaml: " prefix and "line N: " part. yaml.v3 gives a line for
// most syntax errors but no column, and no position at all for some; this
// fills in (our own rule, issue 10 item 6: YAML errors are always
// positioned):
//
//   - "line N: …": line N, at its first non-blank character (the end of
//     the document when N is past it);
//   - "unknown anchor 'x' referenced": the first alias *x in data;
//   - "found unexpected end of stream" and other end-of-input errors
//     without a line: the end of data;
//   - "control characters are not allowed": the first such character;
//   - an encoding error: the first byte that is not UTF-8 (InvalidUTF8).
//
// line and col are 1-based; both are 0 only for a message none of these
// cover.
func YAMLErrorPos(data []byte, msg string) (line, col int, text string) {
	text = strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLineRE.FindStringSubmatchIndex(text); m != nil {
		line, _ = strconv.Atoi(text[m[2]:m[3]])
		text = text[:m[0]] + text[m[1]:]
		if line > bytes.Count(data, []byte("\n"))+1 {
			l, c := OffsetPos(data, len(data))
			return l, c, text
		}
		return line, firstNonBlankCol(data, line), text
	}
	if l, c, ok := InvalidUTF8(data); ok {
		return l, c, text
	}
	if m := yamlAnchorRE.FindStringSubmatch(text); m != nil {
		if off := findAlias(data, m[1]); off >= 0 {
			l, c := OffsetPos(data, off)
			return l, c, text
		}
	}
	if strings.Contains(text, "control characters are not allowed") {
		if off := firstYAMLControl(data); off >= 0 {
			l, c := OffsetPos(data, off)
			return l, c, text
		}
	}
	if strings.Contains(text, "end of stream") || strings.Contains(text, "unexpected end") {
		l, c := OffsetPos(data, len(data))
		return l, c, text
	}
	return 0, 0, text
}

// firstNonBlankCol is the 1-based column of the first non-blank character
// of 1-based line (1 when blank or out of range).
func firstNonBlankCol(data []byte, line int) int {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 1
	}
	l := lines[line-1]
	return len(l) - len(bytes.TrimLeft(l, " \t")) + 1
}

// OffsetPos turns a byte offset of data into a 1-based line and column
// (columns count characters); an offset past the end is the end.
func OffsetPos(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:off], []byte("\n")) + 1, utf8.RuneCount(data[start:off]) + 1
}

// findAlias returns the byte offset of the first alias *name in data (a
// '*' not inside a word, followed by name and then a character that cannot
// continue an anchor name), or -1.
func findAlias(data []byte, name string) int {
	pat := []byte("*" + name)
	for i := 0; i+len(pat) <= len(data); {
		j := bytes.Index(data[i:], pat)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(pat)
		before := j == 0 || strings.ContainsRune(" \t\n\r[{,:-?", rune(data[j-1]))
		after := end == len(data) || strings.ContainsRune(" \t\n\r]},", rune(data[end]))
		if before && after {
			return j
		}
		i = j + 1
	}
	return -1
}

// firstYAMLControl returns the offset of the first character YAML 1.1 does
// not allow in a stream (C0 controls other than tab, LF, CR; DEL; C1
// controls other than NEL), or -1.
func firstYAMLControl(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f && r != 0x85):
			return i
		}
		i += n
	}
	return -1
}
