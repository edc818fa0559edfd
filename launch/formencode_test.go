package launch

import "testing"

// TestFormEncode: URLSearchParams' serializer — "*-._" and alphanumerics
// kept, space as "+", the rest %XX (UTF-8 bytes).
func TestFormEncode(t *testing.T) {
	for in, want := range map[string]string{
		"tool_calling,spec_decoding": "tool_calling%2Cspec_decoding",
		"a b*c-d.e":                  "a+b*c-d.e",
		"spec:dspark":                "spec%3Adspark",
		"é":                          "%C3%A9",
		"":                           "",
	} {
		if got := FormEncode(in); got != want {
			t.Errorf("FormEncode(%q) = %q, want %q", in, got, want)
		}
	}
}
