package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/pflag"

	"github.com/cookbook-sync/cookbook-sync/internal/inert"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// The TestHostileEscape… tests (issue 20, item 4) feed every value of
// inert.Hostile (CR, LF, ESC, NUL, U+2028, workflow commands, HTML,
// mentions) through a fixture checkout and every output format, and
// assert (a) no raw control character but the format's own newlines, (b)
// no line that is a GitHub Actions workflow command, (c) for shell text,
// that parsing and expanding the printed command gives back the value.

// noChange is the flags' Changed of a run that sets none.
func noChange(string) bool { return false }

// flagValues collects, from the simple commands of a shell text, the
// value after every word named flag.
func flagValues(cmds []inert.ShellCommand, flag string) []string {
	var out []string
	for _, c := range cmds {
		for i, w := range c.Words {
			if w == flag && i+1 < len(c.Words) {
				out = append(out, c.Words[i+1])
			}
		}
	}
	return out
}

// checkShellValues parses text as bash and checks every "--hostile-<i>"
// flag is followed by want[i] (and that there is one).
func checkShellValues(t *testing.T, name, text string, want []string) {
	t.Helper()
	cmds, err := inert.ShellCommands(text)
	if err != nil {
		t.Fatalf("%s: does not parse as shell: %v\n%s", name, err, text)
	}
	for i, v := range want {
		got := flagValues(cmds, "--hostile-"+strconv.Itoa(i))
		if len(got) == 0 {
			t.Errorf("%s: no --hostile-%d in\n%s", name, i, text)
		}
		for _, g := range got {
			if g != v {
				t.Errorf("%s: --hostile-%d = %q, want %q", name, i, g, v)
			}
		}
	}
}

// hostileRenderTree is an InferenceX checkout whose single-node script
// starts the server with --hostile-<i> Hostile()[i] (written in ANSI-C
// quoting in the script) and exports HOSTILE_ENV with the first one.
func hostileRenderTree(t *testing.T) string {
	dir := t.TempDir()
	writeHostile(t, filepath.Join(dir, "configs", "nvidia-master.yaml"), hostileMaster("evil"))
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nexport HOSTILE_ENV=" + string(launch.AppendANSIC(nil, inert.Hostile()[0])) + "\n")
	b.WriteString("python3 -m sglang.launch_server --model-path \"$MODEL\" --tp \"$TP\" --port 8888")
	for i, v := range inert.Hostile() {
		b.WriteString(" --hostile-" + strconv.Itoa(i) + " " + string(launch.AppendANSIC(nil, v)))
	}
	b.WriteString("\n")
	writeHostile(t, filepath.Join(dir, "benchmarks", "single_node", "agentic", "evil_fp8_h200_sglang.sh"), b.String())
	return dir
}

// TestHostileEscapeRender: render's text prints every hostile value in
// ANSI-C quoting (the same value when pasted), its JSON keeps the values.
func TestHostileEscapeRender(t *testing.T) {
	dir := hostileRenderTree(t)
	var want []string
	for _, v := range inert.Hostile() {
		want = append(want, inert.UntilNUL(v)) // bash ends $'…' at \x00
	}
	for _, format := range []string{"text", "json"} {
		var out, errs bytes.Buffer
		o := renderOptions{infx: dir, keys: []string{"evil-fp8-h200-sglang-agentic"}, format: format, version: "v1.0.68"}
		if err := runRender(context.Background(), &out, &errs, o, noChange); err != nil {
			t.Fatalf("render %s: %v\n%s", format, err, errs.String())
		}
		inert.CheckInert(t, "render "+format, out.String(), false)
		if format == "text" {
			checkShellValues(t, "render text", out.String(), want)
			cmds, _ := inert.ShellCommands(out.String())
			var env []string
			for _, c := range cmds {
				if v, ok := c.Assigns["HOSTILE_ENV"]; ok {
					env = append(env, v)
				}
			}
			if len(env) != 1 || env[0] != want[0] {
				t.Errorf("render text: HOSTILE_ENV = %q, want [%q]", env, want[0])
			}
			continue
		}
		var rs []jsonRendered
		if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
			t.Fatalf("render json: %v", err)
		}
		if len(rs) != 1 || len(rs[0].Processes) == 0 {
			t.Fatalf("render json: %d renderings", len(rs))
		}
		argv := rs[0].Processes[len(rs[0].Processes)-1].Argv
		for i, v := range want {
			j := slices.Index(argv, "--hostile-"+strconv.Itoa(i))
			// JSON keeps the value; encoding/json can only carry UTF-8
			if wantJ := strings.ToValidUTF8(v, "\uFFFD"); j < 0 || j+1 >= len(argv) || argv[j+1] != wantJ {
				t.Errorf("render json: --hostile-%d: argv %q, want %q", i, argv, wantJ)
			}
		}
	}
}

// hostileAgentX is features.jsx (cookbook/testdata) with the agg worker of
// its first cell given HOSTILE=Hostile()[0] and --hostile-<i> Hostile()[i]
// (JSON-encoded: a byte that is not UTF-8 arrives as U+FFFD).
func hostileAgentX(t *testing.T) string {
	src, err := os.ReadFile(filepath.Join("..", "..", "cookbook", "testdata", "features.jsx"))
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v string) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var args strings.Builder
	for i, v := range inert.Hostile() {
		args.WriteString(`, ["--hostile-` + strconv.Itoa(i) + `", ` + enc(v) + `]`)
	}
	s := string(src)
	for old, new := range map[string]string{
		`"env": {"Z": "1", "A": "it's"}, "args": [["--port", "30000"], ["--model-path", "org/Tiny-FP8"]]`: `"env": {"Z": "1", "A": "it's", "HOSTILE": ` + enc(inert.Hostile()[0]) + `}, "args": [["--port", "30000"], ["--model-path", "org/Tiny-FP8"]` + args.String() + `]`,
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("features.jsx: no %s", old)
		}
		s = strings.Replace(s, old, new, 1)
	}
	p := filepath.Join(t.TempDir(), "agentx", "acme", "tiny.jsx")
	writeHostile(t, p, s)
	return p
}

// TestHostileEscapeDecode: decode's text prints an AgentX snippet's and a
// cookbook page's hostile values as inert shell that pastes as the same
// value; json and jsonl keep them (JSON strings).
func TestHostileEscapeDecode(t *testing.T) {
	var want []string
	for _, v := range inert.Hostile() {
		want = append(want, inert.UntilNUL(strings.ToValidUTF8(v, "\uFFFD")))
	}
	path := hostileAgentX(t)
	for _, format := range []string{"text", "json", "jsonl"} {
		var out, errs bytes.Buffer
		if err := runDecode(context.Background(), &out, &errs, path, decodeOptions{format: format, all: true}, noChange); err != nil {
			t.Fatalf("decode %s: %v\n%s", format, err, errs.String())
		}
		inert.CheckInert(t, "decode agentx "+format, out.String(), false)
		if format == "text" {
			checkShellValues(t, "decode agentx text", out.String(), want)
			continue
		}
		// each block's text, from the JSON, is shell with the values
		texts := jsonTexts(t, format, out.Bytes())
		checkShellValues(t, "decode agentx "+format, strings.Join(texts, "\n\n"), want)
	}

	// A cookbook page whose config flags carry the values raw, quoted the
	// way a page author would ('…' around the value, or nothing).
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "cookbook", "pages", "testdata", "tiny.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		data := string(f.Data)
		if f.Name == "docs/src/snippets/configs/acme/tiny.jsx" {
			var flags []string
			for i, v := range inert.Hostile() {
				sq := "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
				b, err := json.Marshal("--hostile-" + strconv.Itoa(i) + " " + sq)
				if err != nil {
					t.Fatal(err)
				}
				flags = append(flags, string(b))
			}
			raw, _ := json.Marshal(inert.Hostile()[0]) // the flag itself, unquoted: two commands in shell
			flags = append(flags, string(raw))
			old := `flags: ["--model-path acme/Tiny", "--tp 1"]`
			if !strings.Contains(data, old) {
				t.Fatalf("tiny.txtar: no %s", old)
			}
			data = strings.Replace(data, old, `flags: ["--model-path acme/Tiny", "--tp 1", `+strings.Join(flags, ", ")+`]`, 1)
		}
		writeHostile(t, filepath.Join(root, filepath.FromSlash(f.Name)), data)
	}
	page := filepath.Join(root, "docs", "cookbook", "autoregressive", "Acme", "Tiny.mdx")
	var commands []string // the page's commands, raw (from the JSON)
	for _, format := range []string{"json", "jsonl", "text"} {
		var out, errs bytes.Buffer
		if err := runDecode(context.Background(), &out, &errs, page, decodeOptions{format: format, selection: "hw=h100,variant=base"}, noChange); err != nil {
			t.Fatalf("decode page %s: %v\n%s", format, err, errs.String())
		}
		inert.CheckInert(t, "decode page "+format, out.String(), false)
		switch format {
		case "json":
			var sels []struct {
				Command string `json:"command"`
			}
			if err := json.Unmarshal(out.Bytes(), &sels); err != nil {
				t.Fatal(err)
			}
			for _, s := range sels {
				commands = append(commands, s.Command)
			}
			if len(commands) == 0 || !strings.Contains(commands[0], inert.Hostile()[0]) {
				t.Fatalf("decode page json: the raw value is not kept: %q", commands)
			}
		case "text":
			// the printed commands are the page's commands, word for word
			// (a value that is not UTF-8 reached the page as U+FFFD)
			got, err := inert.ShellCommands(out.String())
			if err != nil {
				t.Fatalf("decode page text does not parse: %v\n%s", err, out.String())
			}
			var wantCmds []inert.ShellCommand
			for _, c := range commands {
				cs, err := inert.ShellCommands(strings.ReplaceAll(c, "\x00", ""))
				if err != nil {
					t.Fatalf("page command does not parse: %v", err)
				}
				wantCmds = append(wantCmds, cs...)
			}
			if len(got) != len(wantCmds) {
				t.Fatalf("decode page text: %d commands, want %d\n%s", len(got), len(wantCmds), out.String())
			}
			for i := range got {
				if !slices.Equal(got[i].Words, wantCmds[i].Words) {
					t.Errorf("decode page text: command %d = %q, want %q", i, got[i].Words, wantCmds[i].Words)
				}
			}
			var pageWant []string
			for _, v := range inert.Hostile() {
				pageWant = append(pageWant, strings.ReplaceAll(strings.ToValidUTF8(v, "\uFFFD"), "\x00", ""))
			}
			checkShellValues(t, "decode page text", out.String(), pageWant)
		}
	}
}

// jsonTexts is every blocks[].text of decode's json (an array) or jsonl.
func jsonTexts(t *testing.T, format string, out []byte) []string {
	t.Helper()
	type sel struct {
		Blocks []struct {
			Text string `json:"text"`
		} `json:"blocks"`
	}
	var sels []sel
	if format == "json" {
		if err := json.Unmarshal(out, &sels); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			var s sel
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatalf("jsonl line: %v", err)
			}
			sels = append(sels, s)
		}
	}
	var texts []string
	for _, s := range sels {
		for _, b := range s.Blocks {
			texts = append(texts, b.Text)
		}
	}
	return texts
}

// hostileCoverageReport is a report whose values from the checkouts
// (file names, keys, cell ids, selection, messages, repository names,
// page errors) carry every inert.Hostile value.
func hostileCoverageReport() *report.Report {
	h := strings.Join(inert.Hostile(), " ")
	return &report.Report{
		InferenceX: report.RepoInfo{Dir: "/tmp/infx " + h, Repo: "o/r " + h, Commit: "0123456789abcdef0123456789abcdef01234567"},
		Cookbook:   &report.RepoInfo{Repo: h, Commit: h},
		Points: []report.PointResult{
			{File: "docs/" + h + ".jsx", Line: 3, CellID: h + "#12", ConfigKey: h, Concs: []int{4}, Router: h, KV: h, Status: report.StatusError, Message: h, Recipe: h, RecipeFile: h},
			{File: "docs/x.jsx", Line: 4, CellID: "k#2", ConfigKey: "::error::key", Concs: []int{8}, Router: "sglang", KV: "none", Status: report.StatusUpstreamOnly, Message: "recipe " + h},
		},
		PageErrors: []string{h},
		TimeLimits: []string{h},
	}
}

// TestHostileEscapeCoverage: every coverage --format, as the CLI writes it
// (coverageFormats: the printer and the format's escaping), prints the
// hostile report inert; json and sarif keep the values.
func TestHostileEscapeCoverage(t *testing.T) {
	fs := pflag.NewFlagSet("coverage", pflag.ContinueOnError)
	fs.String("infx", "", "")
	if err := fs.Set("infx", "/tmp/infx "+strings.Join(inert.Hostile(), " ")); err != nil {
		t.Fatal(err)
	}
	for _, f := range coverageFormats() {
		var out bytes.Buffer
		if err := f.print(&out, hostileCoverageReport(), coverageOptions{flags: fs}); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		inert.CheckInert(t, "coverage "+f.name, out.String(), f.name == "github")
		switch f.name {
		case "json":
			var back report.Report
			if err := json.Unmarshal(out.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if want := strings.ToValidUTF8(hostileCoverageReport().Points[0].Message, "\uFFFD"); len(back.Points) == 0 || back.Points[0].Message != want {
				t.Errorf("json: message not kept")
			}
		case "sarif":
			if !json.Valid(out.Bytes()) {
				t.Errorf("sarif: not JSON")
			}
		case "github":
			if !strings.Contains(out.String(), "::error ") {
				t.Errorf("github: no annotation:\n%s", out.String())
			}
		}
	}
}

// TestEscapedIndentedJSON: the JSON report streamed through
// writeEscapedIndentedJSON (escape the compact text, then indent) is byte
// for byte what escapedJSON makes of the indented text (indent, then
// escape), for strings holding every kind of character EscapeJSON
// rewrites: C0 and C1 controls, DEL, bidi overrides, line separators, a
// "##[", characters beyond U+FFFF, brackets and punctuation.
func TestEscapedIndentedJSON(t *testing.T) {
	v := map[string]any{
		"a": []any{"\x01\x1b[31m", "\u0085\u009b", "\x7f", "\u202e\u2066", "\u2028\u2029", "x##[warning]y", "##[", "#", "😀\U0001F3F4\uFEFF"},
		"b": map[string]any{"{[,:]}": []any{}, "##[k": map[string]any{}, "\u200b": "é"},
		"c": []any{1, nil, true, "plain"},
	}
	var compact bytes.Buffer
	e := json.NewEncoder(&compact)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := escapedJSON(&want, func(b *bytes.Buffer) error {
		ie := json.NewEncoder(b)
		ie.SetEscapeHTML(false)
		ie.SetIndent("", "  ")
		return ie.Encode(v)
	}); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeEscapedIndentedJSON(&got, compact.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("streamed:\n%s\nescapedJSON:\n%s", got.String(), want.String())
	}
	if !strings.Contains(want.String(), `\u001b`) || !strings.Contains(want.String(), `\u0023`) {
		t.Errorf("the case escapes nothing: %s", want.String())
	}
}
