package recipes

import (
	"bytes"
	"fmt"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Input bounds checked before a parser sees the text (issue 10, item 3:
// "Markdown input size/depth bounded before goldmark sees it"). They are our
// own rules: goldmark's block parser is superlinear in the nesting of lists
// and block quotes (3,000 nested list levels took 25 s), and
// mvdan.cc/sh/v3/syntax's recursive descent overflows the goroutine stack
// (a fatal error, not a panic) on a few hundred thousand nested `(`,
// `$(`, `{`, `if`, `&&` or arithmetic operators. The largest
// vllm-project/recipes page is tens of KiB with lists a few levels deep,
// and its largest shell fence a few KiB.
const (
	// MaxMarkdownSize is the largest Markdown text (a .md file, or a YAML
	// recipe's guide:) ParseMarkdown accepts: 2 MiB, below
	// launch.MaxInputSize (64 MiB), the bound of every file read, and 30
	// times the largest page (the parse of 2 MiB nested MaxMarkdownDepth
	// deep takes about 0.5 s of CPU and 200 MB).
	MaxMarkdownSize = 2 << 20
	// MaxMarkdownDepth is the deepest container nesting ParseMarkdown
	// accepts, estimated per line before parsing as the number of list
	// markers and block-quote markers that open the line plus half its
	// indentation (a nested list item is indented at least two columns),
	// outside fenced code.
	MaxMarkdownDepth = 100
	// MaxShellSize is the largest shell text (a fence or one launch
	// statement) ParseShell parses: 64 KiB.
	MaxShellSize = 64 << 10
	// MaxShellDepth is the deepest shell nesting ParseShell parses,
	// estimated before parsing by counting openers ( { [ and the keywords
	// if, case, do against their closers ) } ] fi esac done, quotes
	// included (an over-estimate).
	MaxShellDepth = 1000
)

// checkMarkdownBounds refuses Markdown src (placed in file at firstLine,
// colOff as for ParseMarkdown) that is larger than MaxMarkdownSize or nests
// deeper than MaxMarkdownDepth, with the file:line:col of the first line
// over the bound.
func checkMarkdownBounds(file string, src []byte, firstLine, colOff int) error {
	if len(src) > MaxMarkdownSize {
		return &launch.InputError{File: file, Line: firstLine, Col: colOff + 1,
			Msg: fmt.Sprintf("Markdown text is %d bytes, over the %d-byte limit", len(src), MaxMarkdownSize)}
	}
	var fenceChar byte
	fenceLen := 0
	for ln, off := 0, 0; off < len(src); ln++ {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off
		}
		line := src[off:end]
		off = end + 1
		indent, markers, rest := containerPrefix(line)
		if fenceLen > 0 {
			if n := fenceRun(rest, fenceChar); n >= fenceLen && len(bytes.TrimSpace(rest[n:])) == 0 {
				fenceLen = 0
			}
			continue
		}
		if markers > 0 {
			if d := markers + indent/2; d > MaxMarkdownDepth {
				return &launch.InputError{File: file, Line: firstLine + ln, Col: colOff + 1,
					Msg: fmt.Sprintf("Markdown lists / block quotes nested about %d levels deep, over the limit of %d", d, MaxMarkdownDepth)}
			}
		}
		for _, c := range []byte("`~") {
			if n := fenceRun(rest, c); n >= 3 {
				fenceChar, fenceLen = c, n
			}
		}
	}
	return nil
}

// containerPrefix reads the container markers opening a Markdown line:
// its leading indentation in columns (tabs to the next multiple of 4), the
// number of block-quote (>) and list markers (-, +, *, 1. or 1)) that
// follow, and the rest of the line.
func containerPrefix(line []byte) (indent, markers int, rest []byte) {
	i, col := 0, 0
	first := true
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			if line[i] == '\t' {
				col += 4 - col%4
			} else {
				col++
			}
			i++
		}
		if first {
			indent, first = col, false
		}
		if i >= len(line) {
			return indent, markers, line[i:]
		}
		spaceAfter := func(j int) bool { return j >= len(line) || line[j] == ' ' || line[j] == '\t' }
		switch c := line[i]; {
		case c == '>':
			markers++
			i++
			col++
			continue
		case (c == '-' || c == '+' || c == '*') && spaceAfter(i+1):
			markers++
			i++
			col++
			continue
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j < len(line) && (line[j] == '.' || line[j] == ')') && spaceAfter(j+1) {
				markers++
				col += j + 1 - i
				i = j + 1
				continue
			}
		}
		return indent, markers, line[i:]
	}
}

// fenceRun is the length of the run of c that starts s.
func fenceRun(s []byte, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// checkShellBounds refuses shell text larger than MaxShellSize or nested
// deeper than MaxShellDepth (see there), at the block-relative line and
// column where the bound is crossed.
func checkShellBounds(src string) *ShellError {
	if len(src) > MaxShellSize {
		return &ShellError{Line: 1, Col: 1, Msg: fmt.Sprintf("shell text is %d bytes, over the %d-byte limit", len(src), MaxShellSize)}
	}
	depth, line, col := 0, 1, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
			continue
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			if depth > 0 {
				depth--
			}
		case isWordByte(c) && (i == 0 || !isWordByte(src[i-1])):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			switch src[i:j] {
			case "if", "case", "do":
				depth++
			case "fi", "esac", "done":
				if depth > 0 {
					depth--
				}
			}
			col += j - i - 1
			i = j - 1
		}
		if depth > MaxShellDepth {
			return &ShellError{Line: line, Col: col, Msg: fmt.Sprintf("shell nesting deeper than %d levels", MaxShellDepth)}
		}
	}
	return nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
