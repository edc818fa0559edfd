package upstream

import (
	"bytes"
	"io"
	"net/http"

	"github.com/cookbook-sync/cookbook-sync/secrets"
)

// Redacted is what every secret found is replaced with (secrets.Redacted).
const Redacted = secrets.Redacted

// redactor is the package's redaction point over one secrets.Set: the
// Client's token (Options.Token) and the other secrets of the running
// process (Options.Secrets), found as is and transformed — any letter case,
// fragments of at least secrets.MinLen characters, reversed, hex, base64 of
// the value or of the basic-auth credential "x-access-token:<token>" the
// checkout path sends, URL- and JSON-escaped — plus any string shaped like a
// GitHub token (package secrets). A redactor with no secret values leaves
// server text alone (token shapes are still refused in what is published).
//
// The Client's transport passes every response body through it (so no
// server text — error messages, titles, documentation URLs — carries a
// secret into the process) and every error a Client method returns is
// wrapped by it (redactedError).
type redactor struct {
	set *secrets.Set
}

// tokenName is how errors name the Client's token.
const tokenName = "the GitHub token (GH_TOKEN / GITHUB_TOKEN)"

// newRedactor builds the redactor of token ("" for none) and extra (first,
// so a token that is also in extra — GH_TOKEN — is named as there).
func newRedactor(token string, extra ...secrets.Secret) *redactor {
	ss := append([]secrets.Secret(nil), extra...)
	if token != "" {
		ss = append(ss, secrets.Secret{Name: tokenName, Value: token})
	}
	return &redactor{set: secrets.New(ss...)}
}

// String returns s with every secret found replaced by Redacted.
func (r *redactor) String(s string) string {
	if r == nil {
		return s
	}
	return r.set.Redact(s)
}

// Bytes is String for a byte slice (b is not modified; the result may be b).
func (r *redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return r.set.RedactBytes(b)
}

// contains reports whether s carries any secret or token-shaped string.
func (r *redactor) contains(s string) bool {
	if r == nil {
		return false
	}
	return r.set.Contains(s)
}

// check is secrets.Set.Check: a *secrets.LeakError naming the kind of
// secret in data and where, never the secret.
func (r *redactor) check(data []byte) error {
	if r == nil {
		return secrets.New().Check(data)
	}
	return r.set.Check(data)
}

// wrap returns err with a redacted text (nil stays nil). errors.Is / errors.As
// still see the wrapped chain (ErrBadSnippet, *InputError, ErrBranchMoved…);
// the go-github errors in it were built from already-redacted bodies.
func (r *redactor) wrap(err error) error {
	if err == nil || r == nil {
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

// Redact returns s with every secret of the Client (its token and
// Options.Secrets, as is or transformed: see package secrets) and every
// token-shaped string replaced by "***". The CLI passes everything it prints
// that came from the Client through it as a last guard.
func (c *Client) Redact(s string) string { return c.red.String(s) }

// CheckSecrets returns a *secrets.LeakError (errors.Is secrets.ErrSecret)
// when data carries a secret of the Client or a token-shaped string: the
// error gives LINE:COL and the kind of secret, never the secret. Plan and
// Apply run it on every file they would push; the CLI on every file it
// writes.
func (c *Client) CheckSecrets(data []byte) error { return c.red.check(data) }

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
	if t.red.set.Len() == 0 || resp.Body == nil || resp.Body == http.NoBody {
		return resp, nil
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxRedactBody+1))
	_ = resp.Body.Close() // read already: ReadAll's error is the one that counts
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
