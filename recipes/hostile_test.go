package recipes

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestHostileMarkdownBounds: Markdown nested deeper than MaxMarkdownDepth
// or larger than MaxMarkdownSize is refused with file:line:col before
// goldmark sees it (3,000 nested list levels took 25 s); real nesting
// still parses, fenced code does not count.
func TestHostileMarkdownBounds(t *testing.T) {
	nested := func(n int, indent, marker string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(strings.Repeat(indent, i) + marker + " a\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		name, src string
		first     int // firstLine
		want      string
	}{
		{"300 nested list levels", nested(300, "  ", "-"), 1, "r.md:101:1: Markdown lists / block quotes nested about 101 levels deep, over the limit of 100"},
		{"3000 nested list levels", nested(3000, "  ", "-"), 1, "r.md:1:1: Markdown text is 9009000 bytes, over the 2097152-byte limit"},
		{"list markers on one line", strings.Repeat("- ", 30000) + "x\n", 1, "r.md:1:1: Markdown lists / block quotes nested about 30000 levels deep"},
		{"block quotes", "# T\n\n" + strings.Repeat(">", 30000) + "x\n", 1, "r.md:3:1: Markdown lists / block quotes nested about 30000 levels deep"},
		{"ordered lists", nested(200, "   ", "1."), 1, "r.md:68:1: Markdown lists / block quotes nested about 101 levels deep"},
		{"guide: placed in its YAML file", nested(150, "  ", "*"), 7, "r.md:107:1: "},
		{"size", strings.Repeat("word ", MaxMarkdownSize/5+1), 1, "r.md:1:1: Markdown text is 2097155 bytes, over the 2097152-byte limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			blocks, err := ParseMarkdown("r.md", []byte(c.src), c.first, 0)
			var ie *launch.InputError
			if blocks != nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%d blocks, %v; want %q", len(blocks), err, c.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	// At the bound, and deep indentation inside a fence: parsed.
	ok := nested(MaxMarkdownDepth, "  ", "-") + "```bash\n" + strings.Repeat(" ", 1000) + "- not a list\nvllm serve org/M --tensor-parallel-size 8\n```\n"
	blocks, err := ParseMarkdown("ok.md", []byte(ok), 1, 0)
	if err != nil || len(blocks) != 1 || !blocks[0].IsLaunch() {
		t.Errorf("ok: %d blocks, %v", len(blocks), err)
	}
}

// TestHostileShellNesting: a shell fence nested past MaxShellDepth or
// larger than MaxShellSize is refused before mvdan.cc/sh parses it (10⁶
// nested `(`, `$(`, `{`, `if` or `&&` overflowed the goroutine stack, a
// fatal error); the refusal is positioned in the block.
func TestHostileShellNesting(t *testing.T) {
	const n = 1000000
	for _, c := range []struct {
		name, src, want string
	}{
		{"subshells", strings.Repeat("(", 2000) + "vllm serve x" + strings.Repeat(")", 2000), "1:1001: shell nesting deeper than 1000 levels"},
		{"10^6 subshells", strings.Repeat("(", n) + "vllm serve x" + strings.Repeat(")", n), "1:1: shell text is 2000012 bytes, over the 65536-byte limit"},
		{"command substitutions", "vllm serve " + strings.Repeat("$(", n) + "x" + strings.Repeat(")", n), "shell text is"},
		{"and chain", strings.Repeat("true && ", n) + "vllm serve x", "shell text is 8000012 bytes, over the 65536-byte limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ParseShell(c.src)
			if res != nil || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, %v; want %q", res, err, c.want)
			}
		})
	}
	// Nested ifs around a launch line: the block as a whole is refused,
	// the launch statement is parsed on its own (ParseShell's fallback).
	res, err := ParseShell(strings.Repeat("if a; then\n", 2000) + "vllm serve x\n" + strings.Repeat("fi\n", 2000))
	if err != nil || len(res.Commands) != 1 || res.Commands[0].Line != 2001 || len(res.Fixes) == 0 ||
		res.Fixes[0] != "line 1001: block does not parse as a whole (shell nesting deeper than 1000 levels); launch statements parsed one by one" {
		t.Errorf("nested if: %+v, %v", res, err)
	}
	// The same in a Markdown fence: the block is kept as unparsable.
	md := "```bash\n" + strings.Repeat("{ ", 5000) + "vllm serve x;" + strings.Repeat(" }", 5000) + "\n```\n"
	blocks, err := ParseMarkdown("r.md", []byte(md), 1, 0)
	if err != nil || len(blocks) != 1 || blocks[0].Err == nil || !strings.Contains(blocks[0].Err.Error(), "shell nesting deeper than 1000 levels") {
		t.Errorf("fence: %v, %v", blocks, err)
	}
}

// TestHostileRecipeYAMLErrors: YAML errors of a recipe are positioned, also
// those yaml.v3 gives without a line.
func TestHostileRecipeYAMLErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"model: a\nhardware: *nope\n", "r.yaml:2:11: unknown anchor 'nope' referenced"},
		{"model: \"abc", "r.yaml:1:12: found unexpected end of stream"},
		{"model: a\nx: [\n", "r.yaml:2:1: did not find expected node content"},
		{"model: a\x01\n", "r.yaml:1:9: control characters are not allowed"},
	} {
		_, err := parseYAML("r.yaml", []byte(c.src))
		var ie *launch.InputError
		if !errors.As(err, &ie) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}
