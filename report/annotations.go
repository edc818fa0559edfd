package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxAnnotations is the most finding annotations PrintAnnotations writes
// by default: GitHub Actions shows 10 error, 10 warning and 10 notice
// annotations of a step (and 50 of a job), so the worst 10 are the ones a
// reviewer sees; the summary line follows them.
const MaxAnnotations = 10

// MaxAnnotationMessage is the most characters (runes, before GitHub's
// escaping) of an annotation's message: a longer one ends with "…".
const MaxAnnotationMessage = 300

// AnnotationOptions are PrintAnnotations's options.
type AnnotationOptions struct {
	// Checkout is the uriBaseId of the repository the workflow has checked
	// out (the checkout being judged); file= names only files of it.
	// "": BaseInferenceX.
	Checkout string
	// RunError is the error that stopped the run before its report was
	// complete (the CLI's exit 2); "" when none. It is the first annotation
	// (RunErrorFinding) and the summary line says the run stopped.
	RunError string
	// Max bounds the finding annotations (0: MaxAnnotations); MaxMessage
	// their messages, in runes (0: MaxAnnotationMessage).
	Max, MaxMessage int
}

// PrintAnnotations writes the report as GitHub Actions workflow commands:
// the worst findings (those of PrintSARIF, after o.RunError's) as at most
// o.Max annotations, one line each, then exactly one summary line:
//
//	::error file=<path>,line=<n>,title=<title>::<message>
//	::notice title=cookbook-sync::<headline>; <N> more findings: <n> errors, <n> warnings, <n> notices (…)
//
// The findings of one config key with the same level, rule and file= are
// one annotation whose message counts and lists them ("<n> findings: …",
// "; "-joined), at the first one's line. Annotations come worst first:
// errors, then warnings, then notices (SARIF levels: Class.Level); within
// a level one annotation of each rule before a second of any, so the few a
// step shows name every kind of problem; then by rule (errors — bad input
// —, prohibited settings, differences, missing roles and roles no recipe
// covers, links not merged, what was not verified), then in report order;
// at most Max of them, and at most Max-1 notices, so the summary notice is
// shown too.
//
// file= and line= name only a file of the checkout being judged
// (o.Checkout: InferenceX by default — the master-config entry of a key's
// row, the search-space row or recipe of a cookbook point), relative to
// its root; a finding with a place in another repository says it at the
// start of its message ("docs/…/qwen3.5.jsx:42: …") instead. title= is the
// FindingRule's Title. Every message is one line (line breaks and runs of
// blanks are one space) of at most o.MaxMessage runes, then escaped per
// GitHub's rules (escapeData, escapeProperty). The summary gives the
// headline (Headline) and counts, by level, the findings no annotation
// shows. Local directories (RepoInfo.Dir) are never printed. Errors are
// w's.
//
// Source: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
// (error, warning and notice commands); the limits of annotations per step:
// actions/toolkit docs/problem-matchers.md ("Limitations").
func PrintAnnotations(w io.Writer, r *Report, o AnnotationOptions) error {
	if o.Checkout == "" {
		o.Checkout = BaseInferenceX
	}
	if o.Max <= 0 {
		o.Max = MaxAnnotations
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = MaxAnnotationMessage
	}
	var b bytes.Buffer
	titles := map[string]string{}
	for _, ru := range FindingRules() {
		titles[ru.ID] = ru.Title
	}
	var fs []Finding
	if o.RunError != "" {
		fs = append(fs, RunErrorFinding(r, o.RunError))
	}
	fs = append(fs, Findings(r)...)
	left := map[string]int{}
	shown, notices := 0, 0
	for _, g := range groupFindings(fs, o.Checkout) {
		cmd := annotationLevel(g.f.Level)
		if shown >= o.Max || (cmd == "notice" && notices >= o.Max-1) {
			left[cmd] += g.n
			continue
		}
		shown++
		if cmd == "notice" {
			notices++
		}
		var props []string
		if g.file != "" {
			props = append(props, "file="+escapeProperty(g.file))
			if g.line > 0 {
				props = append(props, "line="+strconv.Itoa(g.line))
			}
		}
		props = append(props, "title="+escapeProperty(titles[g.f.Rule]))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(capMessage(g.message(), o.MaxMessage)))
	}
	var parts []string
	n := 0
	for _, l := range []string{"error", "warning", "notice"} {
		if k := left[l]; k > 0 {
			n += k
			parts = append(parts, fmt.Sprintf("%d %s", k, plural(k, l, l+"s")))
		}
	}
	counts := "; every finding is annotated"
	if n > 0 {
		counts = fmt.Sprintf("; %d more %s: %s (not annotated: --format sarif or json lists every one)", n, plural(n, "finding", "findings"), strings.Join(parts, ", "))
	}
	// the counts are never cut: the headline gives way
	head := capMessage(headline(r, o.RunError), max(40, o.MaxMessage-utf8.RuneCountInString(counts)))
	fmt.Fprintf(&b, "::notice title=%s::%s\n", escapeProperty(SARIFToolName), escapeData(head+counts))
	_, err := w.Write(b.Bytes())
	return err
}

// capMessage is s on one line (every run of white space, line breaks
// included, one space) and at most n runes: a longer one is cut and ends
// with "…".
func capMessage(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return strings.TrimRight(string(rs[:n-1]), " ") + "…"
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

// ruleSeverity orders findings worst first within a level.
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

// annotationGroup is the findings of one annotation: the first finding,
// the place its file= and line= name, the upstream place its message
// starts with (when it is not the file=), the messages (at most
// maxGrouped) and how many findings there are.
type annotationGroup struct {
	f     Finding
	file  string
	line  int
	where string
	msgs  []string
	n     int
}

// message is the annotation's message: "<where>: " and the finding's
// message, or "<where>: <n> findings: <m1>; <m2>; …" (then "… N more").
func (g *annotationGroup) message() string {
	msg := g.f.Message
	if g.n > 1 {
		msg = fmt.Sprintf("%d findings: %s", g.n, strings.Join(g.msgs, "; "))
		if g.n > len(g.msgs) {
			msg += fmt.Sprintf("; … %d more", g.n-len(g.msgs))
		}
	}
	if g.where != "" {
		msg = g.where + ": " + msg
	}
	return msg
}

// annotationPlace is where the annotation of f points (file= and line=,
// only a file of the checkout of uriBaseId checkout) and the place its
// message starts with: the finding's upstream place in another repository
// ("file:line", "file"), unless the message names the file already.
func annotationPlace(f Finding, checkout string) (file string, line int, where string) {
	switch {
	case f.File != "" && f.Base == checkout:
		file, line = f.File, f.Line
	case checkout == BaseInferenceX && f.InferenceXFile != "":
		file, line = f.InferenceXFile, f.InferenceXLine
	}
	if f.File != "" && !(f.Base == checkout && f.File == file) && !strings.Contains(f.Message, f.File) {
		where = f.File
		if f.Line > 0 {
			where += ":" + strconv.Itoa(f.Line)
		}
	}
	return file, line, where
}

// groupFindings merges the findings of one config key with the same level,
// rule and file= into one annotation (at the first one's line=; "<n>
// findings: …"); a finding of no key (an input error, a link) is one of its
// own. The groups come worst first (worstFirst of their first findings):
// by level, then one group of each rule before a second of any, so the few
// annotations a step shows name every kind of problem, then by rule, then
// in report order.
func groupFindings(fs []Finding, checkout string) []*annotationGroup {
	var groups []*annotationGroup
	byKey := map[string]*annotationGroup{}
	for _, f := range fs {
		file, line, where := annotationPlace(f, checkout)
		unit := f.configKey()
		if unit == "" {
			unit = "\x01" + strconv.Itoa(len(groups)) // never merged
		}
		k := strings.Join([]string{f.Level, f.Rule, file, unit}, "\x00")
		g, ok := byKey[k]
		if !ok {
			g = &annotationGroup{f: f, file: file, line: line, where: where}
			byKey[k] = g
			groups = append(groups, g)
		} else if g.where != where {
			g.where = "" // several upstream places: each message is its own
		}
		g.n++
		if len(g.msgs) < maxGrouped {
			g.msgs = append(g.msgs, f.Message)
		}
	}
	firsts := make([]Finding, len(groups))
	for i, g := range groups {
		firsts[i] = g.f
	}
	out := make([]*annotationGroup, 0, len(groups))
	for _, i := range worstFirst(firsts, func(f Finding) string { return f.Rule }, nil) {
		out = append(out, groups[i])
	}
	return out
}
