package launch

import "testing"

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
