package signoff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// DefaultCommentLimit bounds the Markdown comment: under GitHub's 65,536
// characters for a comment, with room for a reviewer's words.
const DefaultCommentLimit = 60000

// Method is the one sentence the comment gives on how it was decided.
const Method = "cookbook-sync read both commits with go-git, took the config keys named by the perf-changelog.yaml entries the range adds or whose rendered recipe changed, compared each deployment (master row × concurrency) role by role with one selection of one upstream source (AgentX cell, cookbook page, vLLM recipe) after normalization and the policy's exclusions, and required the covering content to be on its upstream default branch or in a merged PR."

func mark(v compare.Verdict) string {
	switch {
	case covered(v):
		return "✅"
	case v == NoKeys:
		return "➖"
	case v == MergeUnknown || v == compare.Error || v == compare.TimeLimit:
		return "⚠️"
	}
	return "❌"
}

// Headline is the verdict line: "✅ Check 3 sign-off: 2 config keys
// covered" or "❌ Check 3 sign-off: 1 of 3 config keys not covered — …".
func (r *Result) Headline() string {
	if r.Verdict == NoKeys {
		return fmt.Sprintf("➖ Check 3 sign-off: no Check 3 config key affected (%d out of scope, %d with the same render)", len(r.OutOfScope), r.SameRender)
	}
	counts := map[compare.Verdict]int{}
	var order []compare.Verdict
	bad := 0
	for _, k := range r.Keys {
		if counts[k.Final] == 0 {
			order = append(order, k.Final)
		}
		counts[k.Final]++
		if !covered(k.Final) {
			bad++
		}
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, fmt.Sprintf("%s %d", v, counts[v]))
	}
	if bad == 0 {
		return fmt.Sprintf("%s Check 3 sign-off: %d config %s covered (%s)", mark(r.Verdict), len(r.Keys), plural(len(r.Keys), "key", "keys"), strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%s Check 3 sign-off: %d of %d config %s not covered — %s", mark(r.Verdict), bad, len(r.Keys), plural(len(r.Keys), "key", "keys"), strings.Join(parts, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (c CommitInfo) label() string {
	s := c.Hash
	if len(s) > 12 {
		s = s[:12]
	}
	return s
}

// PrintMarkdown writes the paste-ready comment: the verdict line, the
// range, one row per affected key (why, verdict, covering source, merge
// state), what changed in each render, the keys not judged, merge state,
// the method, then the coverage report of the keys (report.PrintMarkdown)
// within what is left of limit bytes (DefaultCommentLimit when 0).
func PrintMarkdown(w io.Writer, r *Result, limit int, opt report.MarkdownOptions) error {
	if limit <= 0 {
		limit = DefaultCommentLimit
	}
	var b strings.Builder
	t := report.MarkdownText
	code := report.MarkdownCode
	fmt.Fprintf(&b, "## %s\n\n", t(r.Headline()))
	pr := ""
	if r.Head.PR > 0 {
		pr = fmt.Sprintf(" (PR %d)", r.Head.PR)
	}
	fmt.Fprintf(&b, "InferenceX %s..%s — %s%s; %d %s changed.\n\n", code(r.Base.label()), code(r.Head.label()), t(r.Head.Title), pr,
		len(r.Changed), plural(len(r.Changed), "path", "paths"))
	if len(r.Keys) > 0 {
		b.WriteString("| Config key | Why | Verdict | Covered by | Merge state |\n|---|---|---|---|---|\n")
		for _, k := range r.Keys {
			merge := "—"
			if k.Final == MergeUnknown {
				merge = "⚠️ " + t(strings.TrimPrefix(k.Note, "merge state unknown: "))
			} else if covered(k.Final) {
				merge = "✅ merged"
			}
			src := k.Source
			if src == "" {
				src = "—"
			}
			fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s |\n", code(k.ConfigKey), t(strings.Join(k.Why, "; ")), mark(k.Verdict), t(string(k.Verdict)), t(src), merge)
		}
		b.WriteString("\n")
	}
	var changes []string
	for _, k := range append(append([]Key{}, r.Keys...), r.OutOfScope...) {
		if len(k.Changes) == 0 {
			continue
		}
		var cs []string
		for _, c := range k.Changes {
			cs = append(cs, code(c))
		}
		changes = append(changes, fmt.Sprintf("- %s: %s", code(k.ConfigKey), strings.Join(cs, "; ")))
	}
	if len(changes) > 0 {
		b.WriteString("**What the range changes in the rendered recipes**\n\n" + strings.Join(changes, "\n") + "\n\n")
	}
	var notes []string
	if r.SameRender > 0 {
		notes = append(notes, fmt.Sprintf("%d config %s whose master entry or files changed render the same (not judged)", r.SameRender, plural(r.SameRender, "key", "keys")))
	}
	if len(r.OutOfScope) > 0 {
		var ks []string
		for _, k := range r.OutOfScope {
			ks = append(ks, code(k.ConfigKey)+" ("+t(k.Framework)+")")
		}
		notes = append(notes, "outside Check 3: "+strings.Join(ks, ", "))
	}
	if len(r.Retired) > 0 {
		var ks []string
		for _, k := range r.Retired {
			ks = append(ks, code(k))
		}
		notes = append(notes, "retired (in base, not in head): "+strings.Join(ks, ", "))
	}
	for _, u := range r.Unmatched {
		notes = append(notes, "⚠️ changelog pattern matches no config key: "+t(u))
	}
	if len(notes) > 0 {
		b.WriteString("- " + strings.Join(notes, "\n- ") + "\n\n")
	}
	if len(r.Merge) > 0 {
		b.WriteString("**Merge state (Check 3 (b))**\n\n")
		for _, m := range r.Merge {
			st := "⚠️ not verified"
			if m.Merged {
				st = "✅ merged"
			}
			fmt.Fprintf(&b, "- %s: %s — %s\n", t(m.Source), st, t(m.Why))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Method: %s\n", t(Method))
	if r.Coverage != nil {
		rest := limit - b.Len() - 200
		if rest > 2000 {
			var cb bytes.Buffer
			opt.Limit = rest
			if err := report.PrintMarkdown(&cb, r.Coverage, opt); err != nil {
				return err
			}
			b.WriteString("\n<details><summary>Coverage of these config keys at head</summary>\n\n")
			b.Write(cb.Bytes())
			b.WriteString("\n</details>\n")
		} else {
			b.WriteString("\n(The coverage report of these keys does not fit in this comment: run with --format json.)\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PrintText writes the sign-off for a terminal: the same parts as the
// comment, then the coverage report's text (report.PrintText).
func PrintText(w io.Writer, r *Result, opt report.TextOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", r.Headline())
	pr := ""
	if r.Head.PR > 0 {
		pr = fmt.Sprintf(" (PR %d)", r.Head.PR)
	}
	fmt.Fprintf(&b, "InferenceX %s..%s — %s%s; %d paths changed\n", r.Base.label(), r.Head.label(), r.Head.Title, pr, len(r.Changed))
	for _, k := range r.Keys {
		fmt.Fprintf(&b, "  %-50s %-28s %s", k.ConfigKey, k.Final, strings.Join(k.Why, "; "))
		if k.Source != "" {
			fmt.Fprintf(&b, " [covered by %s]", k.Source)
		}
		b.WriteString("\n")
		if k.Note != "" {
			fmt.Fprintf(&b, "      note: %s\n", k.Note)
		}
		for _, c := range k.Changes {
			fmt.Fprintf(&b, "      changed: %s\n", c)
		}
	}
	for _, k := range r.OutOfScope {
		fmt.Fprintf(&b, "  %-50s outside Check 3 (%s): %s\n", k.ConfigKey, k.Framework, strings.Join(k.Why, "; "))
	}
	if r.SameRender > 0 {
		fmt.Fprintf(&b, "  %d config keys whose master entry or files changed render the same (not judged)\n", r.SameRender)
	}
	if len(r.Retired) > 0 {
		fmt.Fprintf(&b, "  retired: %s\n", strings.Join(r.Retired, ", "))
	}
	for _, u := range r.Unmatched {
		fmt.Fprintf(&b, "  changelog pattern matches no config key: %s\n", u)
	}
	for _, m := range r.Merge {
		st := "not verified"
		if m.Merged {
			st = "merged"
		}
		fmt.Fprintf(&b, "  merge state %s: %s — %s\n", m.Source, st, m.Why)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if r.Coverage != nil {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return report.PrintText(w, r.Coverage, opt)
	}
	return nil
}

// PrintJSON writes the result as indented JSON (the coverage report under
// "coverage", report/SCHEMA.md).
func PrintJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
