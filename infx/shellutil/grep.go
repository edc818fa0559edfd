package shellutil

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// runGrep evaluates GNU grep 3: -E -F -G -P (the subset RE2 shares with
// PCRE, plus \K), -e PAT…, -i, -v, -c, -o, -q, -s, -m N, -x, -n, -h, -H,
// -l, -L over stdin or files. Lines are matched without their newline,
// as grep does.
func runGrep(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "EFGPe:ivcoqsm:xnhHlLy", long: map[string]longOpt{
		"extended-regexp": {"E", false}, "fixed-strings": {"F", false}, "basic-regexp": {"G", false},
		"perl-regexp": {"P", false}, "regexp": {"e", true}, "ignore-case": {"i", false},
		"invert-match": {"v", false}, "count": {"c", false}, "only-matching": {"o", false},
		"quiet": {"q", false}, "silent": {"q", false}, "no-messages": {"s", false},
		"max-count": {"m", true}, "line-regexp": {"x", false}, "line-number": {"n", false},
		"no-filename": {"h", false}, "with-filename": {"H", false},
		"files-with-matches": {"l", false}, "files-without-match": {"L", false},
	}})
	if err != nil {
		return 0, err
	}
	mode := byte('G')
	switch c.name {
	case "egrep":
		mode = 'E'
	case "fgrep":
		mode = 'F'
	}
	var patterns []string
	havePattern := false
	var icase, invert, count, only, quiet, noMsg, lineRE, number, listMatch, listNon bool
	fileNames := 0 // 1: -H, -1: -h
	maxCount := int64(-1)
	for _, o := range opts {
		switch o.key {
		case "E", "F", "G", "P":
			mode = o.key[0]
		case "e":
			patterns = append(patterns, strings.Split(o.val, "\n")...)
			havePattern = true
		case "i", "y":
			icase = true
		case "v":
			invert = true
		case "c":
			count = true
		case "o":
			only = true
		case "q":
			quiet = true
		case "s":
			noMsg = true
		case "m":
			n, err := strconv.ParseInt(o.val, 10, 64)
			if err != nil {
				c.errorf("invalid max count")
				return 2, nil
			}
			maxCount = n
		case "x":
			lineRE = true
		case "n":
			number = true
		case "h":
			fileNames = -1
		case "H":
			fileNames = 1
		case "l":
			listMatch = true
		case "L":
			listNon = true
		}
	}
	if !havePattern {
		if len(operands) == 0 {
			c.errb.WriteString("Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n")
			return 2, nil
		}
		patterns = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	m, err := newGrepMatcher(c.re, patterns, mode, icase, lineRE)
	if err != nil {
		if se, ok := err.(*grepPatternError); ok {
			c.errorf("%s", se.msg)
			return 2, nil
		}
		return 0, err
	}
	showNames := fileNames == 1 || fileNames == 0 && len(operands) > 1
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	status := 1
	trouble := false
	for _, in := range ins {
		if in.missing {
			if !noMsg {
				c.errorf("%s: No such file or directory", in.name)
			}
			trouble = true
			continue
		}
		if bytes.IndexByte(in.data, 0) >= 0 {
			return 0, unsup("binary input (NUL bytes)")
		}
		name := in.name
		if name == "-" {
			name = "(standard input)"
		}
		prefix := ""
		if showNames {
			prefix = name + ":"
		}
		lines, _ := splitLines(in.data)
		var selected int64
		for i, line := range lines {
			if maxCount >= 0 && selected >= maxCount {
				break
			}
			spans := m.find(line)
			if (len(spans) > 0 || m.matchesEmpty(line)) == invert {
				continue
			}
			selected++
			if quiet {
				return 0, nil
			}
			if count || listMatch || listNon {
				continue
			}
			lp := prefix
			if number {
				lp += strconv.Itoa(i+1) + ":"
			}
			if only {
				if invert {
					continue
				}
				for _, sp := range spans {
					if sp[1] > sp[0] {
						c.out.WriteString(lp + line[sp[0]:sp[1]] + "\n")
					}
				}
				continue
			}
			c.out.WriteString(lp + line + "\n")
		}
		switch {
		case listMatch:
			if selected > 0 {
				c.out.WriteString(name + "\n")
			}
		case listNon:
			if selected == 0 {
				c.out.WriteString(name + "\n")
			}
		case count:
			c.out.WriteString(prefix + strconv.FormatInt(selected, 10) + "\n")
		}
		if selected > 0 {
			status = 0
		}
		if c.out.over {
			return 0, unsup("output exceeds %d bytes", MaxOutput)
		}
	}
	if trouble && !(quiet && status == 0) {
		return 2, nil
	}
	return status, nil
}

// grepPatternError is a pattern grep itself rejects (status 2).
type grepPatternError struct{ msg string }

func (e *grepPatternError) Error() string { return e.msg }

// grepMatcher matches one line against the pattern list.
type grepMatcher struct {
	re *regexp.Regexp
	// kGroup: with \K, the index of the capture group whose start is the
	// reported match start (-1 without \K).
	kGroup int
	// empty: some pattern is empty (it matches every line, with an empty
	// match that -o does not print).
	empty bool
}

func newGrepMatcher(rs *Regexps, patterns []string, mode byte, icase, lineRE bool) (*grepMatcher, error) {
	m := &grepMatcher{kGroup: -1}
	var alts []string
	for _, p := range patterns {
		if p == "" {
			m.empty = true
			continue
		}
		var tr string
		switch mode {
		case 'F':
			tr = regexp.QuoteMeta(p)
		case 'P':
			if strings.Contains(p, `\K`) {
				if len(patterns) > 1 {
					return nil, unsup("\\K with several patterns")
				}
				pre, post, err := splitK(p)
				if err != nil {
					return nil, err
				}
				tr = "(?:" + pre + ")(" + post + ")"
				m.kGroup = 1
			} else {
				tr = p
			}
			if _, err := rs.compile(tr, false); err != nil {
				return nil, unsup("PCRE pattern %q: %v", p, err)
			}
			if strings.Contains(p, "(?<") || strings.ContainsAny(p, "\x00") {
				return nil, unsup("PCRE pattern %q", p)
			}
		default:
			fl := flavorBRE
			if mode == 'E' {
				fl = flavorERE
			}
			var err error
			tr, err = posixToRE2(p, fl)
			if err != nil {
				return nil, err
			}
		}
		if lineRE {
			tr = "^(?:" + tr + ")$"
		}
		alts = append(alts, tr)
	}
	if len(alts) == 0 {
		if lineRE {
			// -x with only the empty pattern: empty lines match.
			alts = []string{"^$"}
			m.empty = false
		} else {
			return m, nil
		}
	}
	flags := "(?s)"
	if icase {
		flags = "(?si)"
	}
	src := flags + "(?:" + strings.Join(alts, ")|(?:") + ")"
	if m.kGroup >= 0 && len(alts) > 1 {
		return nil, unsup("\\K with several patterns")
	}
	re, err := rs.compile(src, mode != 'P')
	if err != nil {
		return nil, unsup("pattern %q: %v", patterns, err)
	}
	m.re = re
	return m, nil
}

// splitK splits a PCRE pattern at its top-level \K.
func splitK(p string) (string, string, error) {
	depth := 0
	inClass := false
	idx := -1
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == 'K' && !inClass {
				if depth != 0 || idx >= 0 {
					return "", "", unsup("\\K inside a group or used twice")
				}
				idx = i
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			return "", "", unsup("\\K with top-level alternation")
		}
	}
	if idx < 0 {
		// the only \K is inside a bracket expression ("[\K"): not the
		// keep-out operator
		return "", "", unsup("\\K inside a bracket expression")
	}
	return p[:idx], p[idx+2:], nil
}

// find returns the spans -o prints: every non-overlapping match.
func (m *grepMatcher) find(line string) [][2]int {
	if m.re == nil {
		return nil
	}
	var out [][2]int
	for _, sm := range m.re.FindAllStringSubmatchIndex(line, -1) {
		s, e := sm[0], sm[1]
		if m.kGroup >= 0 {
			s = sm[2*m.kGroup]
		}
		out = append(out, [2]int{s, e})
	}
	return out
}

func (m *grepMatcher) matchesEmpty(string) bool { return m.empty }
