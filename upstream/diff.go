package upstream

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// Diff renders the plan as a readable unified diff (git style, "a/" and "b/"
// prefixes, 3 lines of context), one section per changed file, preceded by a
// short header naming the action, branch and PR. Files without changes are
// listed as unchanged.
//
// An offline plan (ActionOffline) names the base as read from the checkout
// (or "not read"), shows the PR body as comment lines, and shows a file
// whose current content was not read (ChangeUnknown) whole, as if added,
// after a comment saying so.
func (p *Plan) Diff() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n# action: %s (%s)\n", p.ID, p.Title, p.Action, p.Reason)
	switch {
	case p.Action == ActionOffline && p.BaseSHA == "":
		base := p.Base
		if base == "" {
			base = "the default branch"
		}
		fmt.Fprintf(&b, "# branch: %s → %s (not read: offline)\n", p.Branch, base)
	case p.Action == ActionOffline:
		fmt.Fprintf(&b, "# branch: %s → %s (%s in the checkout)\n", p.Branch, p.Base, short(p.BaseSHA))
	default:
		fmt.Fprintf(&b, "# branch: %s (head %s) → %s (%s)\n", p.Branch, orNone(p.Head), p.Base, short(p.BaseSHA))
	}
	if p.Existing != nil {
		fmt.Fprintf(&b, "# PR: #%d (%s) %s\n", p.Existing.Number, p.Existing.State, p.Existing.URL)
	}
	if p.Action == ActionOffline {
		b.WriteString("# PR body:\n")
		for _, l := range strings.Split(strings.TrimRight(p.Body, "\n"), "\n") {
			b.WriteString(strings.TrimRight("#   "+l, " ") + "\n")
		}
	}
	for _, f := range p.Files {
		if f.Change == "none" {
			fmt.Fprintf(&b, "# unchanged: %s\n", f.Path)
			continue
		}
		if f.Change == ChangeUnknown {
			fmt.Fprintf(&b, "# not compared (offline: the current content was not read): %s, whole\n", f.Path)
		}
		added := f.Change == "add" || f.Change == ChangeUnknown
		from := "a/" + f.Path
		if added {
			from = "/dev/null"
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", f.Path, f.Path)
		if added {
			b.WriteString("new file mode 100644\n")
		}
		fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", from, f.Path)
		b.WriteString(UnifiedDiff(f.Old, f.New))
	}
	return b.String()
}

// UnifiedDiff returns the hunks ("@@ -l,n +l,n @@" and " ", "-", "+" lines)
// turning old into new, computed line by line with sergi/go-diff. A missing
// final newline is marked "\ No newline at end of file" as git does.
func UnifiedDiff(old, new string) string {
	dmp := diffmatchpatch.New()
	a, bb, lines := dmp.DiffLinesToChars(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, bb, false), lines)
	type line struct {
		op   diffmatchpatch.Operation
		text string
	}
	var ls []line
	for _, d := range diffs {
		for _, t := range splitLines(d.Text) {
			ls = append(ls, line{d.Type, t})
		}
	}
	var out strings.Builder
	oldNo, newNo := 1, 1
	// Positions (old/new line number) before each element.
	type pos struct{ o, n int }
	ps := make([]pos, len(ls)+1)
	for i, l := range ls {
		ps[i] = pos{oldNo, newNo}
		switch l.op {
		case diffmatchpatch.DiffEqual:
			oldNo++
			newNo++
		case diffmatchpatch.DiffDelete:
			oldNo++
		case diffmatchpatch.DiffInsert:
			newNo++
		}
	}
	ps[len(ls)] = pos{oldNo, newNo}
	for i := 0; i < len(ls); {
		if ls[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		// Extend over changes separated by at most 2*context equal lines.
		for end < len(ls) {
			if ls[end].op != diffmatchpatch.DiffEqual {
				end++
				continue
			}
			j := end
			for j < len(ls) && ls[j].op == diffmatchpatch.DiffEqual {
				j++
			}
			if j < len(ls) && j-end <= 2*diffContext {
				end = j
				continue
			}
			end = min(end+diffContext, len(ls))
			break
		}
		oc, nc := 0, 0
		for _, l := range ls[start:end] {
			if l.op != diffmatchpatch.DiffInsert {
				oc++
			}
			if l.op != diffmatchpatch.DiffDelete {
				nc++
			}
		}
		os, ns := ps[start].o, ps[start].n
		if oc == 0 {
			os--
		}
		if nc == 0 {
			ns--
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(os, oc), hunkRange(ns, nc))
		for _, l := range ls[start:end] {
			prefix := " "
			if l.op == diffmatchpatch.DiffDelete {
				prefix = "-"
			} else if l.op == diffmatchpatch.DiffInsert {
				prefix = "+"
			}
			out.WriteString(prefix + strings.TrimSuffix(l.text, "\n") + "\n")
			if !strings.HasSuffix(l.text, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s after each "\n", keeping the terminators.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
