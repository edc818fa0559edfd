package launch

import (
	"bytes"
	"encoding/json"
	"strings"
)

// CanonicalJSON re-encodes one JSON value in the canonical form every
// comparison of JSON-valued settings uses (--speculative-config,
// --kv-transfer-config, config files): object keys sorted, no spacing,
// numbers kept exactly as written (decoded as json.Number, so 1.0 and 1
// stay distinct, as Python's json.loads makes them a float and an int for
// the engines, and large integers stay exact), strings re-escaped without
// HTML escaping ("<draft>" stays "<draft>", not "\u003cdraft\u003e").
//
// ok is false when s is not exactly one JSON value: a syntax error, an
// empty input, or anything but white space after the value ("{} {}",
// `{"a":1}x`). The result is then "", and each caller keeps its own
// fallback (usually s unchanged).
func CanonicalJSON(s string) (string, bool) {
	if t := strings.TrimLeft(s, " \t\r\n"); t == "" || !jsonValueStart(t[0]) {
		return "", false // (what Decode would say, without its buffer)
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", false
	}
	// Decode reads one value; anything after it but JSON white space is
	// trailing data.
	if strings.TrimLeft(s[d.InputOffset():], " \t\r\n") != "" {
		return "", false
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// jsonValueStart reports whether c may begin a JSON value (RFC 8259 §3:
// an object, array, string, number, true, false or null).
func jsonValueStart(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}
