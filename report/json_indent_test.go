package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// indentCase is compact JSON as json.Encoder writes it (HTML unescaped,
// a final newline), and what json.Indent makes of it.
func indentCase(t *testing.T, v any) (compact []byte, want string) {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	var ind bytes.Buffer
	ie := json.NewEncoder(&ind)
	ie.SetEscapeHTML(false)
	ie.SetIndent("", "  ")
	if err := ie.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), ind.String()
}

// TestWriteIndentedJSON: the streamed indentation is byte for byte what a
// json.Encoder with SetIndent("", "  ") writes: empty and nested objects
// and arrays, strings holding brackets, commas, colons, quotes and
// backslashes, unicode, and random values.
func TestWriteIndentedJSON(t *testing.T) {
	values := []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{[]any{}, map[string]any{"x": []any{1, []any{}}}}},
		[]any{"{[,:]}", `a"b\c`, "\\", `\"`, "é€😀", "<&>", "\u2028\x01", 1.5, math.Copysign(0, -1), true, nil, "", " "},
		map[string]any{"k,:{": "v]}", `"q`: map[string]any{`\`: []any{map[string]any{}}}},
		"top", 3, nil,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var gen func(d int) any
	gen = func(d int) any {
		switch k := rng.IntN(7); {
		case d > 4 || k == 0:
			return []string{"", "x", `a,b`, `{"}`, `\n`, "é"}[rng.IntN(6)]
		case k == 1:
			return rng.IntN(1000) - 500
		case k == 2:
			return nil
		case k <= 4:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[strings.Repeat("k", rng.IntN(3))+string(rune('a'+rng.IntN(5)))] = gen(d + 1)
			}
			return m
		default:
			var a []any
			for range rng.IntN(4) {
				a = append(a, gen(d+1))
			}
			if a == nil {
				a = []any{}
			}
			return a
		}
	}
	for range 500 {
		values = append(values, gen(0))
	}
	for i, v := range values {
		compact, want := indentCase(t, v)
		var got bytes.Buffer
		if err := WriteIndentedJSON(&got, compact); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Fatalf("value %d: got\n%s\nwant\n%s", i, got.String(), want)
		}
	}
}
