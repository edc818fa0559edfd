package launch

import "strings"

// This file prints a Process in the SGLang cookbook's shell style, the one
// the AgentX page shows (sgl-project/sglang docs/src/snippets/_agentx.jsx,
// formatBlock; spec agentx-format.md (b) step 5). Every source prints this
// way so that texts from different sources can be compared line by line.

// Quote quotes one shell word the cookbook way:
//   - only [A-Za-z0-9_@%+=:,./-]: bare;
//   - that set plus '$', '{', '}': double quotes, so placeholders such as
//     "http://$ETCD_IP:2379" still expand;
//   - anything else: single quotes, each ' written as '\” ;
//   - the empty string: ”.
func Quote(s string) string {
	switch quoteClass(s) {
	case quoteBare:
		return s
	case quoteDouble:
		return `"` + s + `"`
	}
	return string(AppendQuote(nil, s))
}

// AppendQuote appends Quote(s) to dst.
func AppendQuote(dst []byte, s string) []byte {
	switch quoteClass(s) {
	case quoteBare:
		return append(dst, s...)
	case quoteDouble:
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	if s == "" {
		return append(dst, "''"...)
	}
	dst = append(dst, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			dst = append(dst, `'\''`...)
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, '\'')
}

const (
	quoteBare = iota
	quoteDouble
	quoteSingle
)

// quoteClass says how Quote writes s.
func quoteClass(s string) int {
	if s == "" {
		return quoteSingle
	}
	class := quoteBare
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case strings.IndexByte("_@%+=:,./-", c) >= 0:
		case c == '$' || c == '{' || c == '}':
			class = quoteDouble
		default:
			return quoteSingle
		}
	}
	return class
}

// nginxNoArgs is what the cookbook prints for an nginx block without args,
// whatever its stored cmd (the data stores `nginx -c nginx.conf -g daemon off;`).
const nginxNoArgs = "nginx -c nginx.conf -g 'daemon off;'"

// Format renders p as shell text, lines joined by "\n", no trailing newline:
//  1. each Preamble line verbatim;
//  2. one `NAME=<Quote(value)> \` line per Env entry, in Env order (no
//     `export`: the variables prefix the command);
//  3. with no Args, the Program alone (a KindNginx process without args
//     prints `nginx -c nginx.conf -g 'daemon off;'`); otherwise `Program \`
//     then one line per Arg: two spaces, the flag, each value quoted, with
//     ` \` on every line but the last. Program and flags are printed raw; a
//     positional Arg (empty Flag) prints its values only.
func Format(p *Process) string {
	return string(AppendFormat(nil, p))
}

// AppendFormat appends Format(p) to dst.
func AppendFormat(dst []byte, p *Process) []byte {
	first := true
	line := func() {
		if !first {
			dst = append(dst, '\n')
		}
		first = false
	}
	for _, l := range p.Preamble {
		line()
		dst = append(dst, l...)
	}
	for _, e := range p.Env {
		line()
		dst = append(dst, e.Name...)
		dst = append(dst, '=')
		dst = AppendQuote(dst, e.Value)
		dst = append(dst, " \\"...)
	}
	line()
	if len(p.Args) == 0 {
		if p.Kind == KindNginx {
			return append(dst, nginxNoArgs...)
		}
		return append(dst, p.Program...)
	}
	dst = append(dst, p.Program...)
	dst = append(dst, " \\"...)
	for i, a := range p.Args {
		dst = append(dst, "\n  "...)
		sep := false
		if a.Flag != "" {
			dst = append(dst, a.Flag...)
			sep = true
		}
		for _, v := range a.Values {
			if sep {
				dst = append(dst, ' ')
			}
			dst = AppendQuote(dst, v)
			sep = true
		}
		if i < len(p.Args)-1 {
			dst = append(dst, " \\"...)
		}
	}
	return dst
}
