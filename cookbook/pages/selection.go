package pages

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// SiteURL is where the cookbook pages are published.
const SiteURL = "https://docs.sglang.io/"

// jsonValue encodes v like JSON.stringify: no HTML escaping.
func jsonValue(b *bytes.Buffer, v any) error {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
	return nil
}

// SelectionJSON is the selection as the oracle's JSON.stringify writes it:
// keys in Order (the page's row order), no HTML escaping.
func (s Selection) SelectionJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range s.keys() {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := jsonValue(&b, k); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := jsonValue(&b, s.Values[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// keys is Order, or the sorted keys when Order is empty.
func (s Selection) keys() []string {
	if len(s.Order) > 0 || len(s.Values) == 0 {
		return s.Order
	}
	ks := make([]string, 0, len(s.Values))
	for k := range s.Values {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// GoldenJSON is the selection as one line of the oracle
// (../shared/golden/cookbook-pages): keys file, kind, cell, selection,
// verified, mode, command for configs; file, kind, selection, command for
// generators. No trailing newline.
func (s Selection) GoldenJSON() ([]byte, error) { return s.marshal(false) }

// MarshalJSON writes GoldenJSON's keys, then page and url when set.
func (s Selection) MarshalJSON() ([]byte, error) { return s.marshal(true) }

func (s Selection) marshal(extra bool) ([]byte, error) {
	var b bytes.Buffer
	field := func(k string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		return jsonValue(&b, v)
	}
	b.WriteByte('{')
	if err := field("file", s.File); err != nil {
		return nil, err
	}
	_ = field("kind", s.Kind)
	if s.Kind == "config" {
		_ = field("cell", s.Cell)
	}
	sel, err := s.SelectionJSON()
	if err != nil {
		return nil, err
	}
	_ = field("selection", json.RawMessage(sel))
	if s.Kind == "config" {
		_ = field("verified", s.Verified)
		_ = field("mode", s.Mode)
	}
	if err := field("command", s.Command); err != nil {
		return nil, err
	}
	if extra {
		if s.Page != "" {
			_ = field("page", s.Page)
		}
		if s.URL != "" {
			_ = field("url", s.URL)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Hash is the selection as the page writes it into its URL fragment
// (without "#"): _deployment.jsx sets `"#" + new URLSearchParams(sel)`,
// so keys in selection order, values as String(v) (a checkbox row's ids
// joined by ","), form-urlencoded.
func (s Selection) Hash() string {
	var b strings.Builder
	for i, k := range s.keys() {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(launch.FormEncode(k))
		b.WriteByte('=')
		b.WriteString(launch.FormEncode(jsString(s.Values[k])))
	}
	return b.String()
}

// jsString is JavaScript's String(v) for JSON-decoded values.
func jsString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if math.Trunc(x) == x && math.Abs(x) < 1e21 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	case map[string]any:
		return "[object Object]"
	}
	return ""
}

// PageURL is the published URL of page ("docs/cookbook/<path>.mdx", or
// "docs_new/cookbook/<path>.mdx" before 2026-08-03, relative to the sglang
// root): SiteURL + "cookbook/<path>".
func PageURL(page string) string {
	p, ok := inDocs(page)
	if !ok {
		p = page
	}
	return SiteURL + strings.TrimSuffix(p, ".mdx")
}

// ValueString is a selection value as the page writes it into its URL:
// JavaScript's String(v) (a checkbox row's ids joined by ",").
func ValueString(v any) string { return jsString(v) }
