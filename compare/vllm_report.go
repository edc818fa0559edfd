package compare

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"
)

// concRange prints concurrencies compactly: "1,2,4" or "1…256 (9)".
func concRange(cs []int) string {
	if len(cs) <= 4 {
		return concs(cs)
	}
	return fmt.Sprintf("%d…%d (%d)", cs[0], cs[len(cs)-1], len(cs))
}

func (ro *VLLMRole) place() string {
	switch {
	case ro.Recipe != nil:
		return ro.Recipe.Where
	case ro.Nearest != nil:
		return "nearest: " + ro.Nearest.Where
	}
	return "-"
}

// vllmText writes one table row per role of every vLLM-family key row (one
// row for rows without roles), one verdict line per key (its worst row
// outcome, with the count of its rows per outcome), then the gaps: every
// difference (vllm-recipes value vs inferencex value), every prohibited
// setting with the side(s) carrying it, every role no recipe covers with
// the nearest candidate and what it misses, every row that was not verified
// (unless --allow-unverified, which lists them apart) and every error.
func (r *Report) vllmText(b *bytes.Buffer) {
	if len(r.Points) > 0 || r.CookbookDir != "" {
		b.WriteString("\n")
	}
	b.WriteString("vLLM-family config keys (inferencex) vs vllm-project/recipes (vllm-recipes); VLLM-RECIPES = the vllm-recipes role matched:\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONFIG KEY\tROW\tCONCS\tSTATUS\tROLE\tTOPO\tVERDICT\tMATCHED\tDIFF\tEXCL\tINFO\tVLLM-RECIPES")
	for _, k := range r.VLLM {
		for _, row := range k.Rows {
			if len(row.Roles) == 0 {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t-\t\t%s\t\t\t\t\t-\n", k.ConfigKey, row.Row, concRange(row.Concs), row.Status, row.Verdict)
				continue
			}
			for _, ro := range row.Roles {
				m, d, x, i := "", "", "", ""
				if res := ro.Result; res != nil {
					m, d, x, i = fmt.Sprint(res.Matched), fmt.Sprint(len(res.Differences)), fmt.Sprint(len(res.Excluded)), fmt.Sprint(len(res.Info))
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ConfigKey, row.Row, concRange(row.Concs), row.Status,
					ro.Role, ro.Topology, ro.Verdict, m, d, x, i, ro.place())
			}
		}
	}
	tw.Flush()
	b.WriteString("\nvLLM-family key verdicts (worst row: prohibited > differs > missing / no recipe covers this > not verified > covered-with-exclusions > covered):\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, k := range r.VLLM {
		rows := map[string]int{}
		for _, row := range k.Rows {
			rows[row.Verdict]++
		}
		tag := ""
		if NotVerified(k.Verdict) {
			tag = " (not verified)"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\trows: %s\n", k.ConfigKey, k.Verdict, tag, strings.Join(sortedCounts(rows), ", "))
	}
	tw.Flush()
	first := true
	head := func() {
		if first {
			b.WriteString("\nvLLM gaps:\n")
			first = false
		}
	}
	var unverified []string
	for _, k := range r.VLLM {
		for _, row := range k.Rows {
			if row.Status == VLLMError {
				head()
				fmt.Fprintf(b, "  %s row %d: error: %s\n", k.ConfigKey, row.Row, row.Message)
				continue
			}
			if NotVerified(row.Status) {
				u := fmt.Sprintf("  %s row %d conc %s: not verified: %s\n", k.ConfigKey, row.Row, concRange(row.Concs), row.Status)
				if row.Recipe != "" {
					rec := row.Recipe
					if row.Selector != "" {
						rec += ":" + row.Selector
					}
					u += fmt.Sprintf("    inferencex: %s\n", rec)
				}
				if row.Message != "" {
					u += fmt.Sprintf("    %s\n", row.Message)
				}
				unverified = append(unverified, u)
			}
			for _, ro := range row.Roles {
				if !vllmGap(ro.Verdict) {
					continue
				}
				head()
				fmt.Fprintf(b, "  %s row %d conc %s %s (%s): %s\n", k.ConfigKey, row.Row, concRange(row.Concs), ro.Role, ro.Topology, ro.Verdict)
				if ro.Verdict == NotCovered {
					if ro.Nearest != nil {
						fmt.Fprintf(b, "    nearest vllm-recipes: %s\n", ro.Nearest.Where)
					}
					for _, m := range ro.Misses {
						fmt.Fprintf(b, "    %s\n", m)
					}
					continue
				}
				fmt.Fprintf(b, "    vllm-recipes: %s\n", ro.Recipe.Where)
				if res := ro.Result; res != nil {
					if res.Note != "" {
						fmt.Fprintf(b, "    %s\n", res.Note)
					}
					for _, d := range res.Differences {
						fmt.Fprintf(b, "    %s: vllm-recipes %s, inferencex %s\n", d.Setting, val(d.Cookbook), val(d.Recipe))
					}
					for _, x := range res.Prohibited {
						fmt.Fprintf(b, "    %s\n", prohibitedText(x, SideVLLMRecipes, SideInferenceX))
					}
				}
			}
		}
	}
	if !r.AllowUnverified {
		for _, u := range unverified {
			head()
			b.WriteString(u)
		}
	}
	for _, e := range r.VLLMRecipeErrors {
		head()
		fmt.Fprintf(b, "  vLLM recipe error: %s\n", e)
	}
	if r.AllowUnverified && len(unverified) > 0 {
		b.WriteString("\nvLLM rows not verified (--allow-unverified: listed, not a gap):\n")
		for _, u := range unverified {
			b.WriteString(u)
		}
	}
}

// vllmMarkdown renders the vLLM-family keys as sign-off evidence: per key ×
// row × role the recipe file + section (or YAML variant and strategy) it was
// matched with, or "no recipe covers this" with the nearest candidate; the
// verdict and matched-settings count; every difference and every exclusion
// with its reason.
func (r *Report) vllmMarkdown(b *strings.Builder) {
	b.WriteString("\n## vLLM-family config keys (vllm-project/recipes)\n\n")
	if v := r.VLLMRecipes; v != nil {
		if v.Commit != "" {
			fmt.Fprintf(b, "- vllm-project/recipes at commit `%s`\n", v.Commit)
		} else {
			fmt.Fprintf(b, "- vllm-project/recipes: `%s` (not a git checkout)\n", v.Dir)
		}
	}
	fmt.Fprintf(b, "- Keys: %s\n", strings.Join(sortedCounts(r.Counts.VLLM), ", "))
	fmt.Fprintf(b, "- Rows: %s\n", strings.Join(sortedCounts(r.Counts.VLLMRows), ", "))
	fmt.Fprintf(b, "- Roles: %s\n", strings.Join(sortedCounts(r.Counts.VLLMRoles), ", "))
	b.WriteString("- Workers are compared (vLLM engine args and env); Dynamo / llm-d frontends and services are deployment layers, not compared. Sides: `vllm-recipes` is the upstream documentation (vllm-project/recipes), `inferencex` the effective InferenceX recipe.\n")
	n := 0
	for _, k := range r.VLLM {
		for _, row := range k.Rows {
			if NotVerified(row.Status) {
				n++
			}
		}
	}
	if n > 0 {
		fmt.Fprintf(b, "- Rows not verified: %d %s\n", n, r.unverifiedNote())
	}
	for _, e := range r.VLLMRecipeErrors {
		fmt.Fprintf(b, "- recipe error: %s\n", mdCell(e))
	}
	for _, k := range r.VLLM {
		tag := ""
		if NotVerified(k.Verdict) {
			tag = " (not verified)"
		}
		fmt.Fprintf(b, "\n### `%s` — %s%s\n\n", k.ConfigKey, k.Verdict, tag)
		fmt.Fprintf(b, "- %s · model `%s` · %s · %s · master `%s`\n\n", k.Framework, k.Model, k.Hardware, k.Precision, k.Master)
		b.WriteString("| row | concs | inferencex | status | role | topology | verdict | matched | vllm-recipes |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, row := range k.Rows {
			rec := row.Recipe
			if row.Selector != "" {
				rec += ":" + row.Selector
			}
			if len(row.Roles) == 0 {
				fmt.Fprintf(b, "| %d | %s | %s | %s | | | %s | | %s |\n", row.Row, concRange(row.Concs), mdCell(rec), row.Status, row.Verdict, mdCell(row.Message))
				continue
			}
			for _, ro := range row.Roles {
				m := ""
				if ro.Result != nil {
					m = fmt.Sprint(ro.Result.Matched)
				}
				place := mdCell(ro.place())
				if len(ro.Misses) > 0 {
					place += " (" + strings.ReplaceAll(strings.Join(ro.Misses, "; "), "|", `\|`) + ")"
				}
				fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", row.Row, concRange(row.Concs), mdCell(rec), row.Status, ro.Role, ro.Topology, ro.Verdict, m, place)
			}
		}
		for _, row := range k.Rows {
			for _, ro := range row.Roles {
				res := ro.Result
				if res == nil || len(res.Differences)+len(res.Excluded)+len(res.Info)+len(res.Prohibited) == 0 {
					continue
				}
				against := ""
				if ro.Recipe != nil {
					against = ro.Recipe.Where
				} else if ro.Nearest != nil {
					against = "nearest " + ro.Nearest.Where
				}
				fmt.Fprintf(b, "\n**row %d %s** (%s) vs `%s`\n\n", row.Row, ro.Role, ro.Verdict, against)
				if len(res.Differences)+len(res.Prohibited) > 0 {
					b.WriteString("| difference | vllm-recipes | inferencex |\n|---|---|---|\n")
					for _, d := range res.Differences {
						fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(d.Setting), mdVal(d.Cookbook), mdVal(d.Recipe))
					}
					for _, x := range res.Prohibited {
						fmt.Fprintf(b, "| %s — **prohibited** (%s: %s) | %s | %s |\n", mdCell(x.Setting), x.Rule, x.Reason, mdVal(x.Cookbook), mdVal(x.Recipe))
					}
					b.WriteString("\n")
				}
				exclusionTables(b, *res, SideVLLMRecipes, SideInferenceX)
			}
		}
	}
}
