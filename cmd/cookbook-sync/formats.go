package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime/debug"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// coverageFormat is one output format of coverage: the one table that
// validates --format, writes its help and prints. escape says how values
// read from checkouts written by strangers (file names, flags, messages)
// are kept from acting on the reader: every format has one.
type coverageFormat struct {
	name string
	// help is the format's words in --format's help.
	help string
	// escape says how the format escapes (coverage --help, Formats).
	escape string
	// print writes rep (errors are w's or the encoder's).
	print func(w io.Writer, rep *report.Report, o coverageOptions) error
}

// coverageFormats lists coverage's --format values in the order the help
// names them; the first is the default.
func coverageFormats() []coverageFormat {
	return []coverageFormat{
		{"text", "text", "every value on one line (launch.EscapeLine: \\n, \\e, \\u2028 …); no line a GitHub Actions workflow command (launch.GuardLines); terminal control characters escaped (launch.EscapeControl)",
			func(w io.Writer, rep *report.Report, _ coverageOptions) error {
				return escaped(w, func(b *bytes.Buffer) error {
					return report.PrintText(b, rep, report.TextOptions{Width: termWidth(w)})
				})
			}},
		{"markdown", "markdown (a sign-off comment under 60,000 characters)", "terminal control characters escaped; values on one line, in code spans, HTML-escaped or as inert text (no HTML, @mention or issue reference), links only to GitHub permalinks and recipes.vllm.ai",
			func(w io.Writer, rep *report.Report, o coverageOptions) error {
				return escaped(w, func(b *bytes.Buffer) error {
					hint, inputs := coverageFooter(o.flags, rep)
					return report.PrintMarkdown(b, rep, report.MarkdownOptions{Limit: o.mdLimit, JSONHint: hint, JSONInputs: inputs})
				})
			}},
		{"json", "json (schema report/SCHEMA.md)", "JSON strings, raw values: every control or format character a \\u escape (encoding/json, launch.EscapeJSON)",
			func(w io.Writer, rep *report.Report, o coverageOptions) error {
				compact := o.compactJSON // (the run's own encoding of rep, when it made one)
				if compact == nil {
					var err error
					if compact, err = report.CompactJSON(rep); err != nil {
						return err
					}
				}
				return writeEscapedIndentedJSON(w, compact)
			}},
		{"sarif", "sarif (SARIF 2.1.0)", "JSON strings, raw values: every control or format character a \\u escape (encoding/json, launch.EscapeJSON); local directories removed",
			func(w io.Writer, rep *report.Report, o coverageOptions) error {
				return escapedJSON(w, func(b *bytes.Buffer) error {
					return report.PrintSARIF(b, rep, report.SARIFOptions{ToolVersion: toolVersion(), Invocation: coverageInvocation(rep, o.runError), RunError: o.runError})
				})
			}},
		{"github", "github (GitHub Actions annotations)", "terminal control characters escaped; messages and properties escaped per GitHub's toolkit (%, CR, LF; \":\" and \",\" in properties), so a value can never start a workflow command",
			func(w io.Writer, rep *report.Report, o coverageOptions) error {
				return escaped(w, func(b *bytes.Buffer) error {
					return report.PrintAnnotations(b, rep, report.AnnotationOptions{Checkout: report.BaseInferenceX, RunError: o.runError})
				})
			}},
	}
}

// runErrorFormats are the formats that print a run that stopped with an
// error (coverage.Run's: bad usage or bad input, exit 2): a SARIF log or
// annotations with the error, so a workflow step that uploads or shows
// them has the error too. The others print nothing; the error is on stderr
// in every format.
var runErrorFormats = map[string]bool{"sarif": true, "github": true}

// toolVersion is the version of this program: its module version from the
// build information (runtime/debug.ReadBuildInfo), "(devel)" when the
// build has none (go run, go test, a build outside a module version).
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// coverageInvocation is how coverage ends for rep (the SARIF invocation):
// the exit status coverageStatus gives (2 when a run error stopped the
// run), what it means, and whether the run judged everything it was given
// (exit 0 or 1).
func coverageInvocation(rep *report.Report, runError string) *report.Invocation {
	if runError != "" {
		return &report.Invocation{ExitCode: exitUsage, Description: "bad usage or bad input: " + runError}
	}
	err := coverageStatus(rep)
	inv := &report.Invocation{ExitCode: exitOK, Description: "success: no gap", Successful: true}
	var ee *exitError
	if errors.As(err, &ee) {
		inv.ExitCode, inv.Description = ee.code, ee.err.Error()
		inv.Successful = ee.code == exitGap
	}
	return inv
}

// escaped runs print into a buffer and writes the buffer to w with every
// terminal control character escaped (launch.EscapeControl).
func escaped(w io.Writer, print func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := print(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, launch.EscapeControl(b.String()))
	return err
}

// escapedJSON runs print (JSON) into a buffer and writes it to w with
// every control or format character left raw by encoding/json written as
// a \u escape (launch.EscapeJSON): the values stay exactly as read.
func escapedJSON(w io.Writer, print func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := print(&b); err != nil {
		return err
	}
	_, err := w.Write(launch.EscapeJSON(b.Bytes()))
	return err
}

// writeEscapedIndentedJSON writes compact JSON (a json.Encoder's without
// an indent) to w indented as json.Encoder's SetIndent("", "  ") indents
// it, through launch.EscapeJSON: the bytes escapedJSON gives for the
// indented text, streamed (report.WriteIndentedJSON) instead of held whole.
// Escaping first is the same: EscapeJSON only rewrites characters inside
// strings (a "##[" included, which only a string holds), and indenting
// only adds spaces and newlines outside them (TestEscapedIndentedJSON).
func writeEscapedIndentedJSON(w io.Writer, compact []byte) error {
	return report.WriteIndentedJSON(w, launch.EscapeJSON(compact))
}

// writeJSON writes v as indented JSON (encoding/json: two spaces, a final
// newline) through launch.EscapeJSON.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(launch.EscapeJSON(b.Bytes()))
	return err
}

// writeShellText writes text that is shell or reads like it (render's and
// decode's text, render --all / --list tables) with the last line of
// defence of every text output (issue 20, item 4): no line starts a GitHub
// Actions workflow command (launch.GuardLines: an empty quoted string before a leading "::",
// which changes no shell word) and every terminal control character left
// is escaped (launch.EscapeControl). The values in it are already quoted
// (launch.Quote) or escaped to one line (launch.EscapeLine).
func writeShellText(w io.Writer, s string) error {
	_, err := io.WriteString(w, launch.EscapeControl(launch.GuardLines(s)))
	return err
}

// coverageFormatNamed is the format named name.
func coverageFormatNamed(name string) (coverageFormat, bool) {
	for _, f := range coverageFormats() {
		if f.name == name {
			return f, true
		}
	}
	return coverageFormat{}, false
}

// formatNames joins the format names with sep ("|" for the usage line),
// the last with " or " when sep is " or " ("text, markdown, … or github").
func formatNames(sep string) string {
	var names []string
	for _, f := range coverageFormats() {
		names = append(names, f.name)
	}
	if sep == " or " && len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	return strings.Join(names, sep)
}

// formatHelp is --format's help: each format's words, as a list.
func formatHelp() string {
	var parts []string
	for _, f := range coverageFormats() {
		parts = append(parts, f.help)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// formatsHelpBlock is the Formats section of coverage --help: each format
// and how it escapes what it prints.
func formatsHelpBlock() string {
	var b strings.Builder
	b.WriteString("Formats (--format) and how each keeps values from checkouts inert:\n")
	for _, f := range coverageFormats() {
		b.WriteString("  " + f.name + strings.Repeat(" ", max(1, 10-len(f.name))) + f.escape + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
