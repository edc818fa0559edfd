package pages

import "testing"

// TestDeadGenerateCommand: the fast path may ignore the selection reads
// of generateCommand's own calls during a render only when their results
// are never read.
func TestDeadGenerateCommand(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{"const generateCommand = (v) => v.a; const command = generateCommand(values);", true},
		{"const generateCommand = (v) => v.a;", true},
		{"const generateCommand = (v) => v.a; const command = generateCommand(values); const x = command;", false},
		{"const generateCommand = (v) => v.a; generateCommand(values);", false},
		{"let generateCommand = (v) => v.a; generateCommand = (v) => v.b;", false},
		{"const generateCommand = (v) => v.a; const f = generateCommand;", false},
		{"const generateCommand = (v) => v.a; const command = generateCommand(values); const o = {command};", false},
		{"const generateCommand = mk();", false},
		{"const generateCommand = (", false},
	} {
		js := generatorHead + c.body + generatorTail
		if got := deadGenerateCommand("t.js", js); got != c.want {
			t.Errorf("%s: got %v, want %v", c.body, got, c.want)
		}
	}
}
