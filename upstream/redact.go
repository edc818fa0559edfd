package upstream

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// Redacted is what every occurrence of the token is replaced with.
const Redacted = "***"

// redactor replaces every form of one token that can appear in text: the
// token itself, its URL (query and path) escapings, its JSON escaping, and the
// base64 forms (standard, URL-safe, padded and raw) of the token and of the
// HTTP basic-auth credential "x-access-token:<token>" that the checkout path
// sends. A zero redactor (no token) changes nothing.
//
// It is the one redaction point of the package: the Client's transport passes
// every response body through it (so no server text — error messages, titles,
// documentation URLs — carries the token into the process) and every error a
// Client method returns is wrapped by it (redactedError).
type redactor struct {
	forms []string // longest first, so a longer form is replaced before its substrings
}

// newRedactor builds the redactor of token ("" gives a no-op redactor).
func newRedactor(token string) *redactor {
	r := &redactor{}
	if token == "" {
		return r
	}
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			r.forms = append(r.forms, s)
		}
	}
	add(token)
	add(url.QueryEscape(token))
	add(url.PathEscape(token))
	if b, err := json.Marshal(token); err == nil {
		add(strings.Trim(string(b), `"`))
	}
	var jb bytes.Buffer
	enc := json.NewEncoder(&jb)
	enc.SetEscapeHTML(false)
	if enc.Encode(token) == nil {
		add(strings.Trim(strings.TrimSpace(jb.String()), `"`))
	}
	for _, plain := range []string{token, "x-access-token:" + token, ":" + token} {
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			add(e.EncodeToString([]byte(plain)))
		}
	}
	sort.SliceStable(r.forms, func(i, j int) bool { return len(r.forms[i]) > len(r.forms[j]) })
	return r
}

// String returns s with every form of the token replaced by Redacted.
func (r *redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, Redacted)
		}
	}
	return s
}

// Bytes is String for a byte slice (b is not modified; the result may be b).
func (r *redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, f := range r.forms {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(Redacted))
		}
	}
	return b
}

// contains reports whether s carries any form of the token.
func (r *redactor) contains(s string) bool {
	if r == nil {
		return false
	}
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// wrap returns err with a redacted text (nil stays nil). errors.Is / errors.As
// still see the wrapped chain (ErrBadSnippet, *InputError, ErrBranchMoved…);
// the go-github errors in it were built from already-redacted bodies.
func (r *redactor) wrap(err error) error {
	if err == nil || r == nil || len(r.forms) == 0 {
		return err
	}
	if re, ok := err.(*redactedError); ok {
		return re
	}
	return &redactedError{msg: r.String(err.Error()), err: err}
}

// redactedError is an error whose text has the token redacted.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redact returns s with every form of the Client's token (raw, URL- or
// JSON-escaped, base64 of the token or of the basic-auth credential
// "x-access-token:<token>") replaced by "***". The CLI passes everything it
// prints that came from the Client through it as a last guard.
func (c *Client) Redact(s string) string { return c.red.String(s) }

// RedactError returns err with its text redacted like Redact (nil stays nil);
// errors.Is / errors.As still see the wrapped chain.
func (c *Client) RedactError(err error) error { return c.red.wrap(err) }

// maxRedactBody bounds the response body the redacting transport buffers;
// larger bodies fail like limitedBody does.
const maxRedactBody = maxBody

// redactTransport passes every response body from the API through the
// redactor, so server-provided text (error messages, documentation URLs, PR
// titles) can never carry the token into an error or an output. Bodies are
// buffered (at most maxRedactBody bytes) only when a token is set.
type redactTransport struct {
	next http.RoundTripper
	red  *redactor
}

func (t *redactTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, t.red.wrap(err)
	}
	if len(t.red.forms) == 0 || resp.Body == nil || resp.Body == http.NoBody {
		return resp, nil
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxRedactBody+1))
	resp.Body.Close()
	if rerr == nil && len(body) > maxRedactBody {
		rerr = errBodyTooLarge
	}
	if rerr != nil {
		return nil, t.red.wrap(rerr)
	}
	body = t.red.Bytes(body)
	for k, vs := range resp.Header {
		for i, v := range vs {
			vs[i] = t.red.String(v)
		}
		resp.Header[k] = vs
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}
