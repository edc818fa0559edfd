package report

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// PrintAnnotations writes the report as GitHub Actions workflow commands,
// one line per place and kind of finding (the findings of PrintSARIF):
//
//	::error file=<path>,line=<n>,title=<title>::<message>
//
// Findings at the same file, line, level and rule are one annotation whose
// message lists them ("; "-joined, at most 20, then "… N more"); the
// annotations come worst first — errors (bad input), prohibited settings,
// differences, missing roles and roles no recipe covers, links not merged,
// then what was not verified — because GitHub shows only the first ones of
// a step. "error" for gaps and errors, and for points and rows that were not
// verified (they fail closed; "notice" when AllowUnverified). file= is the path relative to
// the upstream repository the finding is in (a workflow checks that
// repository out; nothing is prefixed), line= its 1-based line; both are
// left out when unknown. title= is the FindingRule's Title. Values are
// escaped per GitHub's rules (escapeData, escapeProperty). GitHub shows only
// the first 10 errors and 10 warnings of a step, so every finding is
// printed and a final "::notice title=cookbook-sync::" line gives the
// headline (Headline) and the count of annotations per level. Local
// directories (RepoInfo.Dir) are never printed. Errors are w's.
//
// Source: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
// (error, warning and notice commands; limits of annotations per step).
func PrintAnnotations(w io.Writer, r *Report) error {
	var b bytes.Buffer
	titles := map[string]string{}
	for _, ru := range FindingRules() {
		titles[ru.ID] = ru.Title
	}
	counts := map[string]int{}
	for _, f := range groupFindings(Findings(r)) {
		cmd := annotationLevel(f.Level)
		counts[cmd]++
		var props []string
		if f.File != "" {
			props = append(props, "file="+escapeProperty(f.File))
			if f.Line > 0 {
				props = append(props, "line="+strconv.Itoa(f.Line))
			}
		}
		props = append(props, "title="+escapeProperty(titles[f.Rule]))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(f.Message))
	}
	var parts []string
	for _, l := range []string{"error", "warning", "notice"} {
		if n := counts[l]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, l, l+"s")))
		}
	}
	summary := Headline(r)
	if len(parts) > 0 {
		summary += " (annotations: " + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(&b, "::notice title=%s::%s\n", escapeProperty(SARIFToolName), escapeData(summary))
	_, err := w.Write(b.Bytes())
	return err
}

// annotationLevel is the workflow command of a SARIF level: error,
// warning, or notice (SARIF "note").
func annotationLevel(level string) string {
	switch level {
	case "error", "warning":
		return level
	}
	return "notice"
}

// escapeData escapes a workflow command's message: "%" → %25, "\r" → %0D,
// "\n" → %0A (GitHub's toolkit escapeData).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: as
// escapeData, and ":" → %3A, "," → %2C (GitHub's toolkit escapeProperty).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// ruleSeverity orders findings worst first for annotations.
func ruleSeverity(rule string) int {
	switch rule {
	case RuleError:
		return 0
	case RuleProhibited:
		return 1
	case RuleDiffers:
		return 2
	case RuleMissing, RuleNotCovered:
		return 3
	case RuleLinkNotMerged:
		return 4
	}
	return 5
}

// maxGrouped bounds the findings one annotation lists.
const maxGrouped = 20

// groupFindings merges findings at the same place (level, rule, file,
// line) into one, their messages joined, and orders the groups worst first
// (ruleSeverity), then by first appearance. Findings without a file stay
// apart only by rule and level.
func groupFindings(fs []Finding) []Finding {
	type group struct {
		f    Finding
		msgs []string
		n    int
	}
	var order []string
	groups := map[string]*group{}
	for _, f := range fs {
		k := strings.Join([]string{f.Level, f.Rule, f.Base, f.File, strconv.Itoa(f.Line)}, "\x00")
		g, ok := groups[k]
		if !ok {
			g = &group{f: f}
			groups[k] = g
			order = append(order, k)
		}
		g.n++
		if len(g.msgs) < maxGrouped {
			g.msgs = append(g.msgs, f.Message)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		return ruleSeverity(groups[order[i]].f.Rule) < ruleSeverity(groups[order[j]].f.Rule)
	})
	out := make([]Finding, 0, len(order))
	for _, k := range order {
		g := groups[k]
		f := g.f
		if g.n > 1 {
			f.Message = fmt.Sprintf("%d findings: %s", g.n, strings.Join(g.msgs, "; "))
			if g.n > len(g.msgs) {
				f.Message += fmt.Sprintf("; … %d more", g.n-len(g.msgs))
			}
		}
		out = append(out, f)
	}
	return out
}
