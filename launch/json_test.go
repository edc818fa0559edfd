package launch

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`{"b": 1, "a": {"d": [1, 2], "c": "x"}}`, `{"a":{"c":"x","d":[1,2]},"b":1}`, true},
		// numbers as written: 1.0 is a float for Python's json.loads, 1 an int
		{`{"x": 1.0, "y": 1, "z": 1e3}`, `{"x":1.0,"y":1,"z":1e3}`, true},
		{`12345678901234567890`, `12345678901234567890`, true},
		{`{"m": "<draft> & co"}`, `{"m":"<draft> & co"}`, true},
		{"  [1, 2]\n ", `[1,2]`, true},
		{`{"a":1} {"b":2}`, "", false},
		{`{"a":1}]`, "", false},
		{`{"a":1}x`, "", false},
		{`{"model": <draft>}`, "", false},
		{``, "", false},
		{`   `, "", false},
	} {
		got, ok := CanonicalJSON(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("CanonicalJSON(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestCanonicalJSONFirstByte: the first-byte shortcut (jsonValueStart)
// refuses only what the decoder refuses — every first byte, after white
// space or not, ahead of text that would complete a value: CanonicalJSON
// says ok exactly when the decoder reads one value and nothing after it.
func TestCanonicalJSONFirstByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, lead := range []string{"", " \n\t"} {
			for _, rest := range []string{"", "1", `"`, "rue", "alse", "ull", "}", "]", `a":1}`} {
				in := lead + string([]byte{byte(c)}) + rest
				d := json.NewDecoder(strings.NewReader(in))
				var v any
				want := d.Decode(&v) == nil && strings.TrimLeft(in[d.InputOffset():], " \t\r\n") == ""
				if _, ok := CanonicalJSON(in); ok != want {
					t.Errorf("CanonicalJSON(%q) ok = %v, the decoder says %v", in, ok, want)
				}
			}
		}
	}
}
