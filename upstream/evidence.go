package upstream

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTitle is GitHub's limit on a PR title (characters).
const maxTitle = 256

var (
	shaRe     = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)
	runPathRe = regexp.MustCompile(`^/[^/]+/[^/]+/actions/runs/[0-9]+(/attempts/[0-9]+|/job/[0-9]+)?/?$`)
)

// ValidateTitle checks a PR title: one line (no line break or other control
// character), at most 256 characters (GitHub's limit). "" is valid (Plan
// then uses the default title).
func ValidateTitle(title string) error {
	if !utf8.ValidString(title) {
		return errors.New("title: not UTF-8 text")
	}
	for _, r := range title {
		if unicode.IsControl(r) {
			return fmt.Errorf("title %q: contains a line break or control character; want one line", title)
		}
	}
	if n := utf8.RuneCountInString(title); n > maxTitle {
		return fmt.Errorf("title: %d characters, GitHub allows at most %d", n, maxTitle)
	}
	return nil
}

// ValidateRun checks one cited InferenceX Actions run: a run id ("37714835620"),
// "<id>/attempts/<n>", or a GitHub Actions run URL
// (https://HOST/OWNER/NAME/actions/runs/<id>[/attempts/<n>|/job/<j>]).
// These are the forms Refresh reads back (runState).
func ValidateRun(run string) error {
	if runID.MatchString(run) && !strings.HasPrefix(run, "0") {
		return nil
	}
	u, err := url.Parse(run)
	if err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil && runPathRe.MatchString(u.Path) {
		return nil
	}
	return fmt.Errorf("run %q: want a run id (e.g. 37714835620, or 37714835620/attempts/2) or a GitHub Actions run URL (https://github.com/OWNER/NAME/actions/runs/ID)", run)
}

// ValidateSHA checks an InferenceX commit: 7 to 40 hexadecimal digits.
func ValidateSHA(sha string) error {
	if !shaRe.MatchString(sha) {
		return fmt.Errorf("inferencex sha %q: want 7 to 40 hexadecimal digits", sha)
	}
	return nil
}

// ValidateCoverage checks the coverage summary quoted in the PR body: UTF-8
// text without control characters other than tab and line breaks (a binary
// file is refused).
func ValidateCoverage(text string) error {
	if !utf8.ValidString(text) {
		return errors.New("coverage summary: not UTF-8 text")
	}
	for i, r := range text {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return fmt.Errorf("coverage summary: control character %U at byte %d: want text", r, i)
		}
	}
	return nil
}

// validate checks the evidence (Plan and Apply of a saved plan): the
// InferenceX repository, commit, config keys, runs and coverage text.
func (e Evidence) validate() error {
	if e.InferenceXRepo != "" {
		if _, _, err := splitRepo(e.InferenceXRepo); err != nil {
			return fmt.Errorf("inferencex repo: %w", err)
		}
	}
	if e.InferenceXSHA != "" {
		if err := ValidateSHA(e.InferenceXSHA); err != nil {
			return err
		}
	}
	for _, k := range e.ConfigKeys {
		if k == "" || strings.IndexFunc(k, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 || !utf8.ValidString(k) {
			return fmt.Errorf("config key %q: want one word without spaces or control characters", k)
		}
	}
	for _, r := range e.Runs {
		if err := ValidateRun(r); err != nil {
			return err
		}
	}
	return ValidateCoverage(e.Coverage)
}

// checkPlanInput refuses a bad title or evidence, and any text that would
// publish a secret (c.CheckSecrets: the Client's token, Options.Secrets —
// as is or transformed — or any token-shaped string) in a file content, the
// title or the evidence. The error names the file or field, the position and
// the kind of secret, never the secret.
func (c *Client) checkPlanInput(title string, e Evidence, files []PlannedFile) error {
	if err := ValidateTitle(title); err != nil {
		return &InputError{err}
	}
	if err := e.validate(); err != nil {
		return &InputError{err}
	}
	fields := []struct{ name, text string }{{"title", title}, {"inferencex repo", e.InferenceXRepo},
		{"inferencex sha", e.InferenceXSHA}, {"coverage summary", e.Coverage}}
	for _, k := range e.ConfigKeys {
		fields = append(fields, struct{ name, text string }{"config key", k})
	}
	for _, r := range e.Runs {
		fields = append(fields, struct{ name, text string }{"run", r})
	}
	for _, f := range fields {
		if err := c.CheckSecrets([]byte(f.text)); err != nil {
			return &InputError{fmt.Errorf("%s:%w", f.name, err)}
		}
	}
	for _, f := range files {
		if err := c.CheckSecrets([]byte(f.New)); err != nil {
			return &InputError{fmt.Errorf("file %s:%w", f.Path, err)}
		}
	}
	return nil
}

// redactPlan replaces the token in every server-provided text of p (old file
// contents, PR titles and URLs, reasons, body) before p leaves the package.
// Apply re-reads the live state and trusts only p's paths and new contents,
// so a redacted plan applies the same.
func (c *Client) redactPlan(p *Plan) {
	r := c.red
	p.Reason, p.Title, p.Body = r.String(p.Reason), r.String(p.Title), r.String(p.Body)
	if p.Existing != nil {
		e := *p.Existing
		e.Title, e.URL, e.Body = r.String(e.Title), r.String(e.URL), r.String(e.Body)
		p.Existing = &e
	}
	for i := range p.Related {
		e := &p.Related[i]
		e.Title, e.URL, e.Body = r.String(e.Title), r.String(e.URL), r.String(e.Body)
	}
	for i := range p.Files {
		f := &p.Files[i]
		if r.contains(f.Old) {
			f.Old = r.String(f.Old)
		}
	}
}
