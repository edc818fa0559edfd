package coverage

import (
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// diffText lists a role's differences as "setting: upstream X, inferencex Y".
func diffText(r compare.Result) []string {
	var out []string
	for _, d := range r.Differences {
		out = append(out, d.Setting+": upstream "+compare.Shown(d.Upstream)+", inferencex "+compare.Shown(d.InferenceX))
	}
	return out
}

// deref is *p, or "<absent>".
func deref(p *string) string {
	if p == nil {
		return "<absent>"
	}
	return *p
}

// textOf is the report as report.PrintText writes it (no width limit).
func textOf(rep *report.Report) string {
	var b strings.Builder
	if err := report.PrintText(&b, rep, report.TextOptions{}); err != nil {
		panic(err)
	}
	return b.String()
}

// markdownOf is the report as report.PrintMarkdown writes it (default
// options).
func markdownOf(rep *report.Report) string {
	var b strings.Builder
	if err := report.PrintMarkdown(&b, rep, report.MarkdownOptions{}); err != nil {
		panic(err)
	}
	return b.String()
}
