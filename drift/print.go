package drift

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/report"
)

// Summary is the run's line, driftctl's: "42 deployments: 35 in sync,
// 5 InferenceX moved, 2 cookbook drifted — 83%" (every state with items,
// in report order; the percentage is in sync of the deployments).
func (res *Result) Summary() string {
	var parts []string
	for _, s := range states {
		if n := res.Counts[s]; n > 0 && s != NotApplicable {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	line := fmt.Sprintf("%d deployment%s", res.Deployments, plural(res.Deployments))
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	line += fmt.Sprintf(" — %d%%", res.InSyncPercent)
	if res.NotApplicable > 0 {
		line += fmt.Sprintf(" (%d not applicable under the policy version, not counted)", res.NotApplicable)
	}
	return line
}

// Status is the second line: what fails, what is new, accepted and
// expired, and how many pinned commits the history has.
func (res *Result) Status() string {
	var parts []string
	switch {
	case res.TimeLimit:
		parts = append(parts, "time limit — re-run: a wall-clock backstop stopped part of the work")
	case res.Failed:
		parts = append(parts, fmt.Sprintf("FAIL: %d drifted deployment%s new or past its baseline date", res.Failing, plural(res.Failing)))
	default:
		parts = append(parts, "OK: nothing new drifted")
	}
	if res.FirstRun {
		parts = append(parts, "first run (no state): everything found is new")
	}
	parts = append(parts, fmt.Sprintf("%d new", res.New))
	if res.Accepted > 0 || res.Expired > 0 {
		parts = append(parts, fmt.Sprintf("%d accepted by the baseline, %d past its date", res.Accepted, res.Expired))
	}
	if res.PinnedCommits > 0 {
		parts = append(parts, fmt.Sprintf("pinned commits: %d of %d in the InferenceX history", res.PinnedAvailable, res.PinnedCommits))
	}
	if res.Shallow {
		parts = append(parts, "the InferenceX checkout is a shallow clone (fetch-depth: 0 gives the pinned commits)")
	}
	return strings.Join(parts, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// where names an item for a reader: "<snippet>#<cell>/<point>" for an
// AgentX point, the source for a key.
func (it *Item) where() string {
	if it.Source == SourceAgentX {
		w := it.File
		if it.Line > 0 {
			w += ":" + strconv.Itoa(it.Line)
		}
		return w + " point " + strconv.Itoa(it.Point)
	}
	if it.File != "" {
		return it.Source + " (" + it.File + ":" + strconv.Itoa(it.Line) + ")"
	}
	return it.Source
}

// flags are an item's markers: new, accepted until …, past its date.
func (it *Item) flags() string {
	var f []string
	if it.New {
		f = append(f, "new")
	}
	if it.Accepted != nil {
		if it.Expired {
			f = append(f, "baseline entry expired "+it.Accepted.Expires)
		} else {
			f = append(f, "accepted until "+it.Accepted.Expires)
		}
	}
	if it.Fails {
		f = append(f, "FAILS")
	}
	return strings.Join(f, ", ")
}

// PrintText writes the summary, then every drifted or not-available item
// grouped by state, with what changed and why.
func PrintText(w io.Writer, res *Result) error {
	var b strings.Builder
	b.WriteString(res.Summary() + "\n")
	b.WriteString(res.Status() + "\n")
	for _, s := range states {
		if s == InSync || s == NotApplicable || res.Counts[s] == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d)\n", s, res.Counts[s])
		for i := range res.Items {
			it := &res.Items[i]
			if it.State != s {
				continue
			}
			fmt.Fprintf(&b, "  %s  %s", it.ConfigKey, it.where())
			if f := it.flags(); f != "" {
				fmt.Fprintf(&b, "  [%s]", f)
			}
			b.WriteString("\n")
			if it.ProvSHA != "" {
				fmt.Fprintf(&b, "      pinned %.12s: %s; head: %s\n", it.ProvSHA, orNone(string(it.Pinned)), orNone(string(it.Head)))
			}
			if it.Reason != "" {
				fmt.Fprintf(&b, "      %s\n", it.Reason)
			}
			for _, c := range it.Changes {
				fmt.Fprintf(&b, "      %s\n", c)
			}
			if it.Accepted != nil {
				fmt.Fprintf(&b, "      baseline: %s\n", it.Accepted.Reason)
			}
		}
	}
	if len(res.Stale) > 0 {
		fmt.Fprintf(&b, "\nbaseline entries that accept nothing drifted now (%d): remove them\n", len(res.Stale))
		for _, e := range res.Stale {
			fmt.Fprintf(&b, "  %s", e.ID)
			if e.Line > 0 {
				fmt.Fprintf(&b, " (line %d)", e.Line)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "not judged"
	}
	return s
}

// PrintJSON writes the result as indented JSON.
func PrintJSON(w io.Writer, res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// PrintMarkdown writes the result as Markdown (the tracking issue's
// table): the summary, the status, one row per drifted item (state,
// config key, where, what changed or why, flags), at most limit bytes
// (0: no limit) — rows past it are counted on a last line. Everything read
// from the checkouts is inert: names, places and changes in code spans,
// reasons as escaped text (no link, image, mention or issue reference).
func PrintMarkdown(w io.Writer, res *Result, limit int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n%s\n\n", report.MarkdownText(res.Summary()), report.MarkdownText(res.Status()))
	head := "| state | config key | where | what changed / why | |\n|---|---|---|---|---|\n"
	rows := 0
	left := 0
	for _, s := range states {
		if s == InSync || s == NotApplicable {
			continue
		}
		for i := range res.Items {
			it := &res.Items[i]
			if it.State != s {
				continue
			}
			var what []string
			if it.Reason != "" {
				what = append(what, report.MarkdownText(report.ClipEnd(it.Reason, 400)))
			}
			for j, c := range it.Changes {
				if j == 8 {
					what = append(what, fmt.Sprintf("and %d more", len(it.Changes)-j))
					break
				}
				what = append(what, report.MarkdownCode(report.ClipEnd(c, 200)))
			}
			row := fmt.Sprintf("| %s | %s | %s | %s | %s |\n", s, report.MarkdownCode(it.ConfigKey), report.MarkdownCode(it.where()), strings.Join(what, "<br>"), it.flags())
			if limit > 0 && b.Len()+len(head)+len(row)+200 > limit {
				left++
				continue
			}
			if rows == 0 {
				b.WriteString(head)
			}
			b.WriteString(row)
			rows++
		}
	}
	if rows == 0 && left == 0 {
		b.WriteString("Every deployment is in sync (or its pinned commit is not available).\n")
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n… and %d more row%s: see the run's JSON output.\n", left, plural(left))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
