package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/cookbook-sync/cookbook-sync/internal/inert"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// hostileSuffix is every inert.Hostile value, joined.
func hostileSuffix() string { return " " + strings.Join(inert.Hostile(), " ") }

// hostileReport is fixtureAll with hostileSuffix appended to every plain
// string in it (file names, keys, flags, values, messages, notes; named
// string types such as verdicts and statuses are ours and kept).
func hostileReport() *Report {
	r := fixtureAll()
	suffix := hostileSuffix()
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if v.Type() == reflect.TypeOf("") && v.CanSet() {
				v.SetString(v.String() + suffix)
			}
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(r))
	return r
}

// TestHostileEscapeReport: with every string of the report hostile, the
// text, Markdown, JSON, SARIF and annotations printers (as the CLI writes
// them: JSON through launch.EscapeJSON, annotations through
// launch.EscapeControl) print no raw control character and no workflow
// command but their own; JSON keeps the values; GitHub renders the
// Markdown with no HTML, mention or issue reference from the values
// (issue 20, item 4).
func TestHostileEscapeReport(t *testing.T) {
	r := hostileReport()
	print := func(f func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	text := print(func(b *bytes.Buffer) error { return PrintText(b, r, TextOptions{}) })
	inert.CheckInert(t, "text", text, false)
	if !strings.Contains(text, `--x \x1b[2J::error::pwned\n::add-mask::abc`) {
		t.Errorf("text: the hostile value is not shown escaped")
	}
	for _, limit := range []int{0, 1 << 30} { // cut to the default size, and whole
		mdOut := print(func(b *bytes.Buffer) error { return PrintMarkdown(b, r, MarkdownOptions{Limit: limit}) })
		inert.CheckInert(t, "markdown", mdOut, false)
		checkGitHubMarkdown(t, mdOut)
	}
	js := string(launch.EscapeJSON([]byte(print(func(b *bytes.Buffer) error { return PrintJSON(b, r) }))))
	inert.CheckInert(t, "json", js, false)
	var back Report
	if err := json.Unmarshal([]byte(js), &back); err != nil {
		t.Fatalf("json: %v", err)
	}
	if want := strings.ToValidUTF8(r.Points[0].ConfigKey, "\uFFFD"); len(back.Points) == 0 || back.Points[0].ConfigKey != want {
		t.Errorf("json does not keep the value: %q", back.Points[0].ConfigKey)
	}
	sarif := string(launch.EscapeJSON([]byte(print(func(b *bytes.Buffer) error { return PrintSARIF(b, r, fxSARIFOptions(r)) }))))
	inert.CheckInert(t, "sarif", sarif, false)
	if !json.Valid([]byte(sarif)) {
		t.Errorf("sarif: not JSON")
	}
	ann := launch.EscapeControl(print(func(b *bytes.Buffer) error { return PrintAnnotations(b, r, AnnotationOptions{}) }))
	inert.CheckInert(t, "annotations", ann, true)
	if n := strings.Count(ann, "\n::"); n < 3 {
		t.Errorf("annotations: %d commands", n)
	}
}

// mention, issueRef: what GitHub links in text outside code and links
// (a user or team mention, "#123", "owner/repo#123", "GH-123").
var (
	mention  = regexp.MustCompile(`(^|[^\w/` + "`" + `])@[A-Za-z0-9]`)
	issueRef = regexp.MustCompile(`(^|[^\w&])#[0-9]|\bGH-[0-9]`)
	codeOrA  = regexp.MustCompile(`(?s)<code>.*?</code>|<a [^>]*>.*?</a>`)
	// htmlTag is an element no printer writes, or an event handler.
	htmlTag = regexp.MustCompile(`(?i)<(img|script|iframe|svg)\b|<[a-z]+\b[^>]*\son\w+=`)
)

// checkGitHubMarkdown renders out as GitHub does (GFM, raw HTML kept) and
// checks that only our own HTML is there (<details>/<summary>, balanced;
// no <img>, no event handler) and that no text outside code spans and
// links mentions anyone or references an issue.
func checkGitHubMarkdown(t *testing.T, out string) {
	t.Helper()
	var b bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := md.Convert([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if m := htmlTag.FindStringIndex(h); m != nil {
		t.Errorf("markdown renders HTML from a value: …%s…", h[max(0, m[0]-80):min(len(h), m[1]+80)])
	}
	if o, c := strings.Count(h, "<details>"), strings.Count(h, "</details>"); o != c {
		t.Errorf("markdown: %d <details>, %d </details>", o, c)
	}
	text := codeOrA.ReplaceAllString(h, "")
	for _, re := range []*regexp.Regexp{mention, issueRef} {
		if m := re.FindStringIndex(text); m != nil {
			t.Errorf("markdown links %q: …%s…", text[m[0]:m[1]], text[max(0, m[0]-80):min(len(text), m[1]+80)])
		}
	}
}
