package shellutil

import (
	"regexp"
	"strings"
	"sync"
)

// reFlavor selects the regular-expression dialect a pattern is written in.
type reFlavor int

const (
	// flavorBRE is a POSIX basic RE with the GNU extensions \+ \? \| (sed,
	// grep, expr).
	flavorBRE reFlavor = iota
	// flavorERE is a POSIX extended RE with GNU extensions (sed -E,
	// grep -E, awk).
	flavorERE
)

// Regexps remembers the regular expressions grep, sed and awk compile,
// by their RE2 text and matching mode, for a caller that evaluates many
// commands ([RunCached]: the sandbox runs the same scripts, and their
// `grep -q`, `sed -E` and `awk '/re/'`, for every point). A compiled
// *regexp.Regexp is only read once made (its Longest is set before it
// is kept), and is safe for concurrent use. The zero value is ready; a
// nil *Regexps compiles every time. Safe for concurrent use. At most
// maxRegexps expressions of maxRegexpBytes of text in all are kept (a
// compiled expression's size follows its text's); past that, a new
// expression is compiled each time.
type Regexps struct {
	mu    sync.Mutex
	m     map[regexpKey]*regexp.Regexp
	bytes int // the text of the kept expressions
}

// regexpKey is an RE2 text and whether it matches leftmost-longest.
type regexpKey struct {
	src     string
	longest bool
}

// maxRegexps and maxRegexpBytes bound a Regexps (hostile input: a loop of
// distinct or huge patterns compiles them all, keeping the first that fit).
const (
	maxRegexps     = 4096
	maxRegexpBytes = 1 << 20
)

// compile is regexp.Compile of src, leftmost-longest when longest, from
// rs when it holds it. Errors are regexp.Compile's (never kept).
func (rs *Regexps) compile(src string, longest bool) (*regexp.Regexp, error) {
	k := regexpKey{src, longest}
	if rs != nil {
		rs.mu.Lock()
		re, ok := rs.m[k]
		rs.mu.Unlock()
		if ok {
			return re, nil
		}
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	if longest {
		re.Longest()
	}
	if rs != nil {
		rs.mu.Lock()
		if rs.m == nil {
			rs.m = map[regexpKey]*regexp.Regexp{}
		}
		if _, had := rs.m[k]; !had && len(rs.m) < maxRegexps && rs.bytes+len(src) <= maxRegexpBytes {
			rs.m[k] = re
			rs.bytes += len(src)
		}
		rs.mu.Unlock()
	}
	return re, nil
}

// compilePOSIX compiles a POSIX BRE or ERE (GNU dialect) with
// leftmost-longest semantics, as GNU regex matches, through rs (nil:
// none). A construct RE2 cannot express with the same meaning
// (back-references, \< \>, [=x=], [.x.]) is unsupported.
func compilePOSIX(rs *Regexps, pat string, fl reFlavor, icase bool) (*regexp.Regexp, error) {
	tr, err := posixToRE2(pat, fl)
	if err != nil {
		return nil, err
	}
	prefix := "(?s)"
	if icase {
		prefix = "(?si)"
	}
	re, err := rs.compile(prefix+tr, true)
	if err != nil {
		return nil, unsup("regular expression %q: %v", pat, err)
	}
	return re, nil
}

// posixToRE2 rewrites a GNU BRE/ERE into RE2 syntax with the same meaning.
func posixToRE2(pat string, fl reFlavor) (string, error) {
	var b strings.Builder
	// atStart: the next token begins an expression (start, after a group
	// opening or an alternation), where '*' is literal and, in a BRE, '^'
	// is an anchor.
	atStart := true
	ere := fl == flavorERE
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '\\':
			if i+1 >= len(pat) {
				return "", unsup("regular expression %q ends in a backslash", pat)
			}
			i++
			d := pat[i]
			switch {
			case !ere && (d == '(' || d == ')' || d == '|' || d == '{' || d == '}' || d == '+' || d == '?'):
				// BRE operators spelled with a backslash.
				if (d == '+' || d == '?') && atStart {
					b.WriteString(`\` + string(d))
					atStart = false
					continue
				}
				b.WriteByte(d)
				atStart = d == '(' || d == '|'
				continue
			case d >= '1' && d <= '9':
				return "", unsup("back-reference \\%c in %q", d, pat)
			case d == '<' || d == '>':
				return "", unsup("word anchor \\%c in %q", d, pat)
			case d == 'w' || d == 'W' || d == 's' || d == 'S' || d == 'b' || d == 'B':
				b.WriteByte('\\')
				b.WriteByte(d)
			case d == '`':
				b.WriteString(`\A`)
			case d == '\'':
				b.WriteString(`\z`)
			case d == 'n':
				b.WriteString(`\n`)
			case d == 't':
				b.WriteString(`\t`)
			case isAlnum(d):
				return "", unsup("escape \\%c in %q", d, pat)
			default:
				b.WriteString(regexp.QuoteMeta(string(d)))
			}
			atStart = false
		case '[':
			j, cls, err := bracket(pat, i)
			if err != nil {
				return "", err
			}
			b.WriteString(cls)
			i = j
			atStart = false
		case '*':
			if atStart {
				b.WriteString(`\*`)
				atStart = false
				continue
			}
			b.WriteByte('*')
		case '+', '?':
			if !ere {
				b.WriteString(`\` + string(c))
				atStart = false
				continue
			}
			if atStart {
				b.WriteString(`\` + string(c))
				atStart = false
				continue
			}
			b.WriteByte(c)
		case '{':
			if !ere || atStart {
				b.WriteString(`\{`)
				atStart = false
				continue
			}
			b.WriteByte('{')
		case '}':
			if !ere {
				b.WriteString(`\}`)
				atStart = false
				continue
			}
			b.WriteByte('}')
		case '(', ')', '|':
			if !ere {
				b.WriteString(`\` + string(c))
				atStart = false
				continue
			}
			b.WriteByte(c)
			atStart = c != ')'
			continue
		case '^':
			if ere || atStart {
				b.WriteByte('^')
				// '*' right after a leading '^' is literal too.
				continue
			}
			b.WriteString(`\^`)
			atStart = false
		case '$':
			if ere || i == len(pat)-1 || strings.HasPrefix(pat[i+1:], `\)`) || strings.HasPrefix(pat[i+1:], `\|`) {
				b.WriteByte('$')
			} else {
				b.WriteString(`\$`)
			}
			atStart = false
		case '.':
			b.WriteByte('.')
			atStart = false
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
			atStart = false
		}
	}
	return b.String(), nil
}

// bracket translates the POSIX bracket expression starting at pat[i] ==
// '['. It returns the index of its closing ']' and the RE2 class. Inside
// a POSIX bracket a backslash is an ordinary character.
func bracket(pat string, i int) (int, string, error) {
	var b strings.Builder
	b.WriteByte('[')
	j := i + 1
	if j < len(pat) && pat[j] == '^' {
		b.WriteByte('^')
		j++
	}
	first := true
	for ; j < len(pat); j++ {
		c := pat[j]
		if c == ']' && !first {
			b.WriteByte(']')
			return j, b.String(), nil
		}
		first = false
		if c == '[' && j+1 < len(pat) && (pat[j+1] == ':' || pat[j+1] == '=' || pat[j+1] == '.') {
			kind := pat[j+1]
			end := strings.Index(pat[j+2:], string(kind)+"]")
			if end < 0 {
				return 0, "", unsup("unterminated [%c in %q", kind, pat)
			}
			name := pat[j+2 : j+2+end]
			if kind != ':' {
				return 0, "", unsup("[%c%s%c] in %q", kind, name, kind, pat)
			}
			switch name {
			case "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph", "cntrl", "xdigit":
			default:
				return 0, "", unsup("character class [:%s:] in %q", name, pat)
			}
			b.WriteString("[:" + name + ":]")
			j += 2 + end + 1
			continue
		}
		switch c {
		case '\\', '[', ']', '^':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '-':
			// A '-' first or last is literal; elsewhere it forms a range.
			if j+1 < len(pat) && pat[j+1] == ']' || b.Len() == 1 || b.String() == "[^" {
				b.WriteString(`\-`)
			} else {
				b.WriteByte('-')
			}
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", unsup("unterminated bracket expression in %q", pat)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// compileAnchored compiles an RE2 translation anchored at the start of
// the text, leftmost-longest (expr's STRING : REGEXP).
func compileAnchored(tr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?s)^(?:" + tr + ")")
	if err != nil {
		return nil, unsup("regular expression: %v", err)
	}
	re.Longest()
	return re, nil
}
