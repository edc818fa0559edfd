// Package secrets is cookbook-sync's one place for keeping secrets out of
// what it prints, writes and pushes (cookbook-sync issue 10, "Secrets never
// leave"). InferenceX PRs come from forks and the natural place to run
// `generate`, `coverage` and `pr` is CI on the PR's head, with a GitHub token
// in the environment; every file of that checkout is written by a stranger,
// so any output may carry an echo of the tool's own environment.
//
// A Set holds the secret values to look for: the GitHub token (GH_TOKEN /
// GITHUB_TOKEN, GitHub CLI's variables) and the value of every environment
// variable whose name says it is secret (IsSecretName: *TOKEN*, *SECRET*,
// *KEY*, *PASSWORD*, *PASSWD*, *CREDENTIAL*), at least MinLen characters
// long. It finds each value as is and transformed the ways a hostile script
// can echo it cheaply: the whole value in any letter case, any fragment of
// at least FragLen characters in its own letter case (prefixes, suffixes,
// shifted slices), reversed, hex (either case), base64 (standard and URL
// alphabets, padded or not, of the value, of a fragment, or of the HTTP
// basic-auth credential "x-access-token:<value>"), URL- and JSON-escaped. Independently of any value it finds strings shaped
// like GitHub tokens (TokenShape: ghp_, gho_, ghu_, ghs_, ghr_ and
// github_pat_ followed by at least 20 token characters — GitHub's token
// formats, github.blog 2021-04-05 "Behind GitHub's new authentication token
// formats" and 2022-10-18 "Introducing fine-grained personal access tokens").
//
// Redact replaces what it finds by Redacted; Check refuses data that carries
// any of it with an error naming the kind of secret and its position, never
// the secret. A Set is immutable and safe for concurrent use; the package has
// no mutable state (Redact and Check at package level read the process
// environment on each call).
//
// Fragments are matched through every window of FragLen characters of the
// value (and of its encodings), in the value's own letter case, that is
// "distinctive": it mixes at least two
// of lower-case letters, upper-case letters and digits and holds no white
// space — nor, in a value shaped like a URL or a path, '/', ':', '.' or '\'.
// So the random parts of tokens, keys and passwords are caught in any slice,
// while fragments of path- or URL-shaped values ("https://", "/home/ru")
// that ordinary text is full of are not (the whole value, in every form,
// still is).
package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// MinLen is the length of the shortest secret value looked for (issue 10
// item 4: "the value (≥ 8 characters) of a variable … whose name says it is
// secret").
const MinLen = 8

// FragLen is the length of the shortest fragment of a secret that counts as
// an echo of it. Fragments are matched in the secret's own letter case;
// only the whole value is matched in any case. Issue 20 item 7: with 8
// characters matched in any case, every path under a folder whose name was
// an 8-character fragment of a secret printed as ***; 12 characters of a
// token's random part in their own case do not occur by chance.
const FragLen = 12

// Redacted is what Redact puts in place of each secret found.
const Redacted = "***"

// ErrSecret is matched (errors.Is) by every error Check returns.
var ErrSecret = errors.New("contains a secret")

// tokenShape matches strings shaped like GitHub tokens: classic tokens
// gh[pousr]_ + base62 (36 characters today) and fine-grained personal access
// tokens github_pat_ + [A-Za-z0-9_] (82 today); 20 is a lenient floor.
var tokenShape = regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}`)

// TokenShape reports whether s contains a string shaped like a GitHub token.
func TokenShape(s string) bool { return tokenShape.MatchString(s) }

// IsSecretName reports whether an environment variable's name says that its
// value is secret: it contains TOKEN, SECRET, KEY, PASSWORD, PASSWD or
// CREDENTIAL in any letter case (GH_TOKEN, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
// HF_TOKEN, DOCKER_PASSWORD…) — not GITHUB_SHA, PWD, HOME or PATH.
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// Secret is one secret value and the name it is known by (an environment
// variable, "the GitHub token"); errors show the name, never the value.
type Secret struct {
	Name  string
	Value string
}

// FromEnviron returns the secrets of an environment given as os.Environ
// gives it ("NAME=VALUE" entries): the value, white space trimmed, of every
// variable whose name IsSecretName and whose value has at least MinLen
// characters. GH_TOKEN and GITHUB_TOKEN come first.
func FromEnviron(environ []string) []Secret {
	var first, rest []Secret
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !IsSecretName(name) {
			continue
		}
		val = strings.TrimSpace(val)
		if utf8.RuneCountInString(val) < MinLen {
			continue
		}
		if name == "GH_TOKEN" || name == "GITHUB_TOKEN" {
			first = append(first, Secret{name, val})
		} else {
			rest = append(rest, Secret{name, val})
		}
	}
	return append(first, rest...)
}

// Set is an immutable set of secrets with the tables to find them. The nil
// *Set and an empty one find only token-shaped strings.
type Set struct {
	secs  []Secret // trimmed values, in order
	names []string
	full  []needle
	raw   map[string]hit // distinctive FragLen windows of the value and its reverse, in their own case
	hex   map[string]hit // hex of those windows (2*FragLen characters), lower-case
	b64   map[string]hit // base64 (std and URL) of those windows, b64Win characters
}

// b64Win is the length of the stable base64 prefix of FragLen bytes: its
// full 3-byte groups (4 characters each) and the characters of a partial
// group that depend on these bytes only (1 of 1 byte, 2 of 2).
const b64Win = FragLen/3*4 + FragLen%3

// form is how a secret was found.
type form uint8

const (
	formValue    form = iota // as is, any letter case
	formReversed             // reversed, any letter case
	formHex                  // hex of the value or of its reverse, any case
	formBase64               // base64 of the value, of its reverse or of x-access-token:<value>
	formEscaped              // URL- or JSON-escaped
)

func (f form) String() string {
	switch f {
	case formReversed:
		return "reversed"
	case formHex:
		return "hex-encoded"
	case formBase64:
		return "base64-encoded"
	case formEscaped:
		return "escaped"
	}
	return "in any letter case"
}

type hit struct {
	secret int
	form   form
}

// needle is one whole-value form, searched case-insensitively (fold) or
// exactly.
type needle struct {
	text string
	fold bool
	hit
}

// New builds the Set of ss. Values are trimmed of white space; values
// shorter than MinLen characters and duplicates are left out.
func New(ss ...Secret) *Set {
	s := &Set{raw: map[string]hit{}, hex: map[string]hit{}, b64: map[string]hit{}}
	seen := map[string]bool{}
	for _, sec := range ss {
		v := strings.TrimSpace(sec.Value)
		if utf8.RuneCountInString(v) < MinLen || seen[v] {
			continue
		}
		seen[v] = true
		s.secs = append(s.secs, Secret{sec.Name, v})
		s.names = append(s.names, sec.Name)
		s.add(len(s.names)-1, v)
	}
	return s
}

// FromEnv is New(FromEnviron(os.Environ())...): the secrets of the running
// process, read once, now.
func FromEnv() *Set { return New(FromEnviron(os.Environ())...) }

// With returns a new Set holding s's secrets and ss.
func (s *Set) With(ss ...Secret) *Set {
	var all []Secret
	if s != nil {
		all = append(all, s.secs...)
	}
	return New(append(all, ss...)...)
}

// Len is the number of secret values in s (token shapes are always found).
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.names)
}

func (s *Set) add(i int, v string) {
	seen := map[string]bool{}
	addFull := func(text string, fold bool, f form) {
		if text == "" {
			return
		}
		key := text
		if fold {
			key = "\x00" + asciiLower(text)
			text = asciiLower(text)
		}
		if seen[key] {
			return
		}
		seen[key] = true
		s.full = append(s.full, needle{text: text, fold: fold, hit: hit{i, f}})
	}
	rev := reverse(v)
	addFull(v, true, formValue)
	addFull(rev, true, formReversed)
	addFull(hex.EncodeToString([]byte(v)), true, formHex)
	addFull(hex.EncodeToString([]byte(rev)), true, formHex)
	for _, plain := range []string{v, rev, "x-access-token:" + v, ":" + v} {
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			addFull(e.EncodeToString([]byte(plain)), false, formBase64)
		}
	}
	addFull(url.QueryEscape(v), false, formEscaped)
	addFull(url.PathEscape(v), false, formEscaped)
	if b, err := json.Marshal(v); err == nil {
		addFull(strings.Trim(string(b), `"`), false, formEscaped)
	}
	var jb bytes.Buffer
	enc := json.NewEncoder(&jb)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		addFull(strings.Trim(strings.TrimSpace(jb.String()), `"`), false, formEscaped)
	}
	// Longest first, so a form is replaced before its substrings.
	sort.SliceStable(s.full, func(a, b int) bool { return len(s.full[a].text) > len(s.full[b].text) })

	pathy := pathShaped(v)
	distinctive := func(w string) bool { return distinctiveWindow(w, pathy) }
	for _, w := range []struct {
		b string
		f form
	}{{v, formValue}, {rev, formReversed}} {
		b := w.b
		hx := hex.EncodeToString([]byte(b))
		for j := 0; j+FragLen <= len(b); j++ {
			if !distinctive(b[j : j+FragLen]) {
				continue
			}
			putHit(s.raw, b[j:j+FragLen], hit{i, w.f})
			putHit(s.hex, hx[2*j:2*j+2*FragLen], hit{i, formHex})
		}
		for o := 0; o < 3 && o+FragLen <= len(b); o++ {
			e := base64.StdEncoding.EncodeToString([]byte(b[o:]))
			for g := 0; o+3*g+FragLen <= len(b); g++ {
				if !distinctive(b[o+3*g : o+3*g+FragLen]) {
					continue
				}
				win := e[4*g : 4*g+b64Win]
				putHit(s.b64, win, hit{i, formBase64})
				putHit(s.b64, strings.NewReplacer("+", "-", "/", "_").Replace(win), hit{i, formBase64})
			}
		}
	}
}

func putHit(m map[string]hit, k string, h hit) {
	if _, ok := m[k]; !ok {
		m[k] = h
	}
}

// pathShaped reports whether a value looks like a URL or a file path,
// whose fragments ordinary text is full of ("https://", "/home/ru").
func pathShaped(v string) bool {
	return strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.HasPrefix(v, "~/")
}

// distinctiveWindow reports whether a window of a secret is specific enough
// to be looked for on its own: it mixes at least two of lower-case letters,
// upper-case letters and digits, and holds no white space or control
// character; in a path- or URL-shaped value it also holds no '/', ':', '.'
// or '\' (the stuff of paths, URLs and prose).
func distinctiveWindow(w string, pathy bool) bool {
	var lo, up, dg bool
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			lo = true
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= '0' && c <= '9':
			dg = true
		case c <= ' ' || c == 0x7f:
			return false
		case pathy && (c == '/' || c == ':' || c == '.' || c == '\\'):
			return false
		}
	}
	n := 0
	for _, b := range []bool{lo, up, dg} {
		if b {
			n++
		}
	}
	return n >= 2
}

// reverse reverses s by characters (what rev(1) and a shell loop do).
func reverse(s string) string {
	r := []rune(s)
	for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
		r[a], r[b] = r[b], r[a]
	}
	return string(r)
}

// asciiLower lower-cases ASCII letters only, so byte offsets are kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// span is one finding: bytes [start, end) of the text.
type span struct {
	start, end int
	secret     int // -1: a token shape
	form       form
}

// find returns every finding in b, sorted by start.
func (s *Set) find(b []byte) []span {
	var out []span
	for _, m := range tokenShape.FindAllIndex(b, -1) {
		out = append(out, span{m[0], m[1], -1, formValue})
	}
	if s.Len() == 0 {
		sortSpans(out)
		return out
	}
	low := []byte(asciiLower(string(b)))
	for _, n := range s.full {
		hay := b
		if n.fold {
			hay = low
		}
		for off := 0; ; {
			k := bytes.Index(hay[off:], []byte(n.text))
			if k < 0 {
				break
			}
			out = append(out, span{off + k, off + k + len(n.text), n.secret, n.form})
			off += k + 1
		}
	}
	for i := 0; i+FragLen <= len(b); i++ {
		if h, ok := s.raw[string(b[i:i+FragLen])]; ok {
			out = append(out, span{i, i + FragLen, h.secret, h.form})
		}
		if i+b64Win <= len(b) {
			if h, ok := s.b64[string(b[i:i+b64Win])]; ok {
				out = append(out, span{i, i + b64Win, h.secret, h.form})
			}
		}
		if i+2*FragLen <= len(b) {
			if h, ok := s.hex[string(low[i:i+2*FragLen])]; ok {
				out = append(out, span{i, i + 2*FragLen, h.secret, h.form})
			}
		}
	}
	sortSpans(out)
	return out
}

func sortSpans(sp []span) {
	sort.SliceStable(sp, func(a, b int) bool {
		if sp[a].start != sp[b].start {
			return sp[a].start < sp[b].start
		}
		return sp[a].end > sp[b].end
	})
}

// Redact returns text with every secret of s found (see the package
// comment) and every token-shaped string replaced by Redacted; overlapping
// findings become one Redacted.
func (s *Set) Redact(text string) string {
	sp := s.find([]byte(text))
	if len(sp) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for k := 0; k < len(sp); {
		start, end := sp[k].start, sp[k].end
		for k++; k < len(sp) && sp[k].start <= end; k++ {
			end = max(end, sp[k].end)
		}
		b.WriteString(text[last:start])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// RedactBytes is Redact for a byte slice (b is not modified; the result is
// b itself when nothing is found).
func (s *Set) RedactBytes(b []byte) []byte {
	if len(s.find(b)) == 0 {
		return b
	}
	return []byte(s.Redact(string(b)))
}

// Contains reports whether text carries any secret of s or a token-shaped
// string.
func (s *Set) Contains(text string) bool { return len(s.find([]byte(text))) > 0 }

// LeakError is the error of Check: what kind of secret was found where. It
// never holds the secret.
type LeakError struct {
	// Kind names the secret: "a GitHub token-shaped string (ghp_…)" or "the
	// value of GH_TOKEN (hex-encoded)"; a match may be a fragment of at least
	// FragLen characters.
	Kind string
	// Line and Col are 1-based (Col counts bytes) of the first finding.
	Line, Col int
	// Count is the number of separate findings.
	Count int
}

// Error is "LINE:COL: contains KIND" (+ how many more), so a caller
// prefixes the file name to get file:line:col.
func (e *LeakError) Error() string {
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" (and %d more secret findings)", e.Count-1)
	}
	return fmt.Sprintf("%d:%d: contains %s%s: refusing to write or publish it", e.Line, e.Col, e.Kind, more)
}

// Is makes errors.Is(err, ErrSecret) true.
func (e *LeakError) Is(target error) bool { return target == ErrSecret }

// Check returns a *LeakError when data carries a secret of s or a
// token-shaped string, nil otherwise.
func (s *Set) Check(data []byte) error {
	sp := s.find(data)
	if len(sp) == 0 {
		return nil
	}
	first := sp[0]
	n := 0
	for k, end := 0, -1; k < len(sp); k++ {
		if sp[k].start > end {
			n++
		}
		end = max(end, sp[k].end)
	}
	line := bytes.Count(data[:first.start], []byte("\n")) + 1
	col := first.start - (bytes.LastIndexByte(data[:first.start], '\n') + 1) + 1
	kind := ""
	if first.secret < 0 {
		p := string(data[first.start : first.start+4])
		if bytes.HasPrefix(data[first.start:], []byte("github_pat_")) {
			p = "github_pat_"
		}
		kind = fmt.Sprintf("a GitHub token-shaped string (%s…)", p)
	} else {
		kind = fmt.Sprintf("the value of %s (%s, whole or a fragment of %d+ characters)", s.names[first.secret], first.form, FragLen)
	}
	return &LeakError{Kind: kind, Line: line, Col: col, Count: n}
}

// Redact is FromEnv().Redact(text): the secrets of the running process.
func Redact(text string) string { return FromEnv().Redact(text) }

// Check is FromEnv().Check(data): the secrets of the running process.
func Check(data []byte) error { return FromEnv().Check(data) }
