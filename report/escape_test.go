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

// TestEscapedReportCopyOnWrite: a report with nothing to escape is given
// back as it is (no copy); a hostile one is copied along the paths to the
// strings that change, never written (its JSON before and after is the
// same), and what holds no changed string is shared with it.
func TestEscapedReportCopyOnWrite(t *testing.T) {
	fx := fixtureAll() // one message holds a line break
	clean := escapedReport(fx, launch.EscapeLine)
	if clean == fx {
		t.Fatal("a report with a line break was not copied")
	}
	if got := escapedReport(clean, launch.EscapeLine); got != clean {
		t.Error("a report with nothing to escape was copied")
	}
	if fx.Cookbook == nil || clean.Cookbook != fx.Cookbook {
		t.Error("the cookbook's repository information, which holds no line break, was copied")
	}
	r := hostileReport()
	before, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got := escapedReport(r, launch.EscapeLine)
	after, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got == r || !bytes.Equal(before, after) {
		t.Fatal("the hostile report was not copied, or was written")
	}
	// the copy equals the deep copy of every string
	c := copier{esc: launch.EscapeLine, seen: map[ptrKey]reflect.Value{}}
	want := c.value(reflect.ValueOf(r)).Interface().(*Report)
	if !reflect.DeepEqual(got, want) {
		t.Error("the copy on write differs from the deep copy")
	}
}

// TestEscaperSharesAndCycles: a pointer met twice gives one value (shared
// structure stays shared); a pointer met again while it is being escaped
// is a cycle, which escapedReport leaves to the deep copy (copier), whose
// copy keeps the cycle with its strings escaped.
func TestEscaperSharesAndCycles(t *testing.T) {
	type node struct {
		S    string
		Next *node
	}
	shared := &node{S: "a\nb"}
	pair := []*node{shared, shared}
	e := escaper{esc: launch.EscapeLine, seen: map[ptrKey]escaped{}}
	out, changed := e.value(reflect.ValueOf(pair))
	got := out.Interface().([]*node)
	if !changed || e.cycle || got[0] != got[1] || got[0] == shared || got[0].S != `a\nb` || shared.S != "a\nb" {
		t.Errorf("shared pointer: changed %v, cycle %v, %+v", changed, e.cycle, got)
	}
	loop := &node{S: "x\ty"}
	loop.Next = loop
	e = escaper{esc: launch.EscapeLine, seen: map[ptrKey]escaped{}}
	e.value(reflect.ValueOf(loop))
	if !e.cycle {
		t.Error("a cycle was not seen")
	}
	c := copier{esc: launch.EscapeLine, seen: map[ptrKey]reflect.Value{}}
	cp := c.value(reflect.ValueOf(loop)).Interface().(*node)
	if cp == loop || cp.Next != cp || cp.S != `x\ty` || loop.S != "x\ty" {
		t.Errorf("cycle copy: %+v", cp)
	}
}

// TestPrintersLeaveReport: no printer writes the report it is given — the
// escaping copy shares what it does not change (escapedReport), and the
// CLI stores the report while the text printer runs — so a clean and a
// hostile report have the same JSON after every printer ran as before.
func TestPrintersLeaveReport(t *testing.T) {
	for name, r := range map[string]*Report{"clean": escapedReport(fixtureAll(), launch.EscapeLine), "hostile": hostileReport(), "fixture": fixtureAll()} {
		before, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		for _, print := range []func() error{
			func() error { return PrintText(&b, r, TextOptions{}) },
			func() error { return PrintText(&b, r, TextOptions{Width: 60}) },
			func() error { return PrintMarkdown(&b, r, MarkdownOptions{}) },
			func() error { return PrintMarkdown(&b, r, MarkdownOptions{Limit: 1 << 30}) },
			func() error { return PrintSARIF(&b, r, SARIFOptions{}) },
			func() error { return PrintAnnotations(&b, r, AnnotationOptions{}) },
			func() error { return PrintJSON(&b, r) },
		} {
			if err := print(); err != nil {
				t.Fatal(err)
			}
		}
		after, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("%s: a printer changed the report", name)
		}
	}
}
