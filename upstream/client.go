// Package upstream is the only package of cookbook-sync that touches the
// network. It reads and writes the upstream repositories the InferenceX
// sign-off rule ("Check 3") cites — sgl-project/sglang (the SGLang cookbook)
// and vllm-project/recipes — and InferenceX itself, through the GitHub REST
// API (github.com/google/go-github/v62) or, for commits, through go-git on a
// local checkout (github.com/go-git/go-git/v5).
//
// It answers three questions and performs one action:
//
//   - Status / StatusAll: is a cited link (a PR URL or a published page)
//     merged / published? Check 3 (b) of InferenceX
//     .github/codeowner-signoff-verify-prompt.md accepts only merged PRs and
//     published pages and fails when the state cannot be verified, so every
//     unreadable state is reported as StateUnknown with an error (fail closed).
//   - Plan / Apply: the PR lifecycle for one generated update, split like
//     plan/apply. The update's identity (ID) gives a stable branch name and a
//     hidden body marker; Apply never opens a duplicate PR and stops when
//     someone else pushed to the branch.
//   - Refresh: moves the provenance statuses of an AgentX snippet
//     (sgl-project/sglang docs/src/snippets/agentx/<org>/<model>.jsx, keys
//     prov.status / source.prs[N].status) along in-progress → verified-pr →
//     verified from the InferenceX PR and Actions run states.
//
// Tokens come from the caller (the CLI reads GH_TOKEN / GITHUB_TOKEN). They are
// sent only in the Authorization header to the configured API host (or as
// HTTP basic auth to the checkout's remote), never in a URL, git argument,
// log line or error. A server may echo them back (an error message quoting
// the Authorization header): every response body is passed through one
// redactor (package secrets) before anything reads it, and every error a
// Client method returns is wrapped by the same redactor, so the token and
// Options.Secrets — as is or transformed (case, fragments, reversed, hex,
// base64, escaped) — show as "***" (see Client.Redact). Plan and Apply
// refuse to push a file that carries any of them or a token-shaped string
// (Client.CheckSecrets).
//
// Every request attempt is bounded by Options.RequestTimeout (30 s, answer
// body included) and every call with its retries (at most MaxRetriesLimit)
// and waits by Options.CallTimeout (2 min).
package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/cookbook-sync/cookbook-sync/secrets"
)

// DefaultAPIURL is the REST base URL of github.com.
const DefaultAPIURL = "https://api.github.com/"

// Request bounds (Options.MaxRetries, RequestTimeout, CallTimeout).
const (
	// MaxRetriesLimit is the largest Options.MaxRetries New accepts.
	MaxRetriesLimit = 10
	// DefaultRequestTimeout bounds one attempt of one request.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultCallTimeout bounds one API call including retries and waits.
	DefaultCallTimeout = 2 * time.Minute
)

// Options configures a Client. The zero value talks to api.github.com without
// a token (enough for Status on public repositories).
type Options struct {
	// APIURL is the REST API base URL, e.g. "https://api.github.com/" or, for
	// GitHub Enterprise Server, "https://ghe.example.com/api/v3/". Empty means
	// DefaultAPIURL. It is used as given (a trailing slash is added).
	APIURL string
	// Token is the GitHub token (from GH_TOKEN / GITHUB_TOKEN). It is only ever
	// put into the Authorization header of requests to the APIURL host.
	Token string
	// Secrets are the other secret values of the running process (the CLI
	// passes secrets.FromEnviron(os.Environ())): like the token, they are
	// redacted from everything the Client returns and refused in everything
	// Plan and Apply would push (issue 10, "Secrets never leave").
	Secrets []secrets.Secret
	// HTTPClient is the underlying client; nil means a client with
	// http.DefaultTransport. Its Transport is wrapped, not modified; its
	// Timeout is replaced by CallTimeout.
	HTTPClient *http.Client
	// MaxRetries is how many times a request answered with a 5xx or a
	// rate-limit response (or, for reads, failing on the network) is retried;
	// 0 means 4, a negative value means none, more than MaxRetriesLimit is an
	// error of New.
	MaxRetries int
	// RequestTimeout bounds one attempt of one request, from sending it to
	// the last byte of the answer (a server trickling bytes is cut off); 0
	// means DefaultRequestTimeout (30 s).
	RequestTimeout time.Duration
	// CallTimeout bounds one API call with all its attempts and retry waits;
	// 0 means DefaultCallTimeout (2 min).
	CallTimeout time.Duration
	// MaxRetryWait bounds one wait (Retry-After or x-ratelimit-reset). A longer
	// wait is not taken: the response is returned as the error. 0 means 60 s.
	MaxRetryWait time.Duration
	// Sleep waits d or until ctx is done; nil means a real timer. Tests inject
	// a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Author is the name and e-mail of commits Apply makes; empty means
	// "cookbook-sync" <cookbook-sync@users.noreply.github.com>.
	AuthorName, AuthorEmail string
	// Now returns the current time (commit dates); nil means time.Now.
	Now func() time.Time
}

// Client talks to one GitHub API host. It is safe for concurrent use. It
// keeps an in-memory ETag cache (per Client, never shared), so repeated reads
// of unchanged resources are answered by a 304 that GitHub does not count
// against the rate limit.
type Client struct {
	gh     *github.Client
	base   *url.URL
	token  string
	opts   Options
	stats  *Stats
	red    *redactor
	author string
	email  string
}

// Stats counts HTTP traffic of a Client (for tests and -v output): requests
// sent, 304 answers served from the cache, and retries.
type Stats struct {
	mu                             sync.Mutex
	Requests, NotModified, Retries int
}

func (s *Stats) add(req, nm, retry int) {
	s.mu.Lock()
	s.Requests += req
	s.NotModified += nm
	s.Retries += retry
	s.mu.Unlock()
}

// Snapshot returns a copy of the counters.
func (s *Stats) Snapshot() (requests, notModified, retries int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Requests, s.NotModified, s.Retries
}

// New builds a Client. It fails when APIURL is not an absolute http(s) URL.
func New(opts Options) (*Client, error) {
	raw := opts.APIURL
	if raw == "" {
		raw = DefaultAPIURL
	}
	if !strings.HasSuffix(raw, "/") {
		raw += "/"
	}
	base, err := url.Parse(raw)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("api url %q: want an absolute http(s) URL such as %s", opts.APIURL, DefaultAPIURL)
	}
	if base.User != nil {
		return nil, errors.New("api url: credentials in the URL are not accepted; use GH_TOKEN")
	}
	if opts.MaxRetries > MaxRetriesLimit {
		return nil, fmt.Errorf("max retries %d: at most %d", opts.MaxRetries, MaxRetriesLimit)
	}
	if opts.RequestTimeout < 0 || opts.CallTimeout < 0 {
		return nil, errors.New("timeouts must not be negative")
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 4
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.MaxRetryWait == 0 {
		opts.MaxRetryWait = 60 * time.Second
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	inner := hc.Transport
	if inner == nil {
		inner = http.DefaultTransport
	}
	stats := &Stats{}
	red := newRedactor(opts.Token, opts.Secrets...)
	var rt http.RoundTripper = &authTransport{next: inner, host: base.Host, token: opts.Token}
	rt = &redactTransport{next: rt, red: red}
	rt = &retryTransport{next: rt, max: opts.MaxRetries, maxWait: opts.MaxRetryWait, sleep: opts.Sleep, now: opts.Now, stats: stats,
		timeout: opts.RequestTimeout}
	rt = &etagTransport{next: rt, entries: map[string]*cacheEntry{}, stats: stats}
	wrapped := *hc
	wrapped.Transport = rt
	wrapped.Timeout = opts.CallTimeout
	wrapped.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		// Only the API host asked is trusted: an answer from elsewhere
		// could say anything about any PR (issue 10, fail closed).
		if !strings.EqualFold(req.URL.Host, base.Host) || req.URL.Scheme != base.Scheme {
			return fmt.Errorf("redirect to %s://%s refused: only answers from the API host %s are trusted", req.URL.Scheme, req.URL.Host, base.Host)
		}
		return nil
	}
	gh := github.NewClient(&wrapped)
	gh.BaseURL = base
	gh.UploadURL = base
	gh.UserAgent = "cookbook-sync"
	c := &Client{gh: gh, base: base, token: opts.Token, opts: opts, stats: stats, red: red,
		author: opts.AuthorName, email: opts.AuthorEmail}
	if c.author == "" {
		c.author = "cookbook-sync"
	}
	if c.email == "" {
		c.email = "cookbook-sync@users.noreply.github.com"
	}
	return c, nil
}

// String describes the options with the token redacted, so printing them
// (%v, %+v, %s) never shows it.
func (o Options) String() string {
	return fmt.Sprintf("upstream.Options{APIURL:%q Token:%s MaxRetries:%d MaxRetryWait:%s RequestTimeout:%s CallTimeout:%s}",
		newRedactor(o.Token).String(o.APIURL), redact(o.Token), o.MaxRetries, o.MaxRetryWait, o.RequestTimeout, o.CallTimeout)
}

// GoString is String for %#v.
func (o Options) GoString() string { return o.String() }

// String describes the client with the token redacted.
func (c *Client) String() string {
	return fmt.Sprintf("upstream.Client{API:%s Token:%s}", c.base, redact(c.token))
}

// GoString is String for %#v.
func (c *Client) GoString() string { return c.String() }

func redact(tok string) string {
	if tok == "" {
		return "(none)"
	}
	return "(redacted)"
}

// HasToken reports whether the Client was given a token (Apply needs one).
func (c *Client) HasToken() bool { return c.token != "" }

// Stats returns the Client's traffic counters.
func (c *Client) Stats() *Stats { return c.stats }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// authTransport adds "Authorization: Bearer <token>" to requests for the API
// host only, so a redirect or a download URL on another host never sees it.
type authTransport struct {
	next  http.RoundTripper
	host  string
	token string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.token == "" || !strings.EqualFold(req.URL.Host, t.host) {
		return t.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(r)
}

// retryTransport bounds each attempt by timeout (the answer's body included:
// the attempt's context ends when the body is closed) and retries network
// errors of GETs, 5xx answers and GitHub's rate-limit answers (403/429
// with Retry-After, a "secondary rate limit" message, or x-ratelimit-remaining
// 0), waiting Retry-After seconds (or until x-ratelimit-reset, or 1 s, 2 s, 4 s
// … for a 5xx without one), each wait at most maxWait. Rule source: GitHub
// REST docs "Rate limits for the REST API" (secondary rate limits: "wait at
// least one minute" unless retry-after is given; 304 does not count).
type retryTransport struct {
	next    http.RoundTripper
	max     int
	maxWait time.Duration
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
	stats   *Stats
	timeout time.Duration // per attempt; 0 = none
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(req.Context())
			if req.Body != nil && req.Body != http.NoBody {
				if req.GetBody == nil {
					return nil, errors.New("request body cannot be replayed for a retry")
				}
				b, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = b
			}
		}
		cancel := context.CancelFunc(func() {})
		if t.timeout > 0 {
			var actx context.Context
			actx, cancel = context.WithTimeout(req.Context(), t.timeout)
			r = r.WithContext(actx)
		}
		t.stats.add(1, 0, 0)
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			timedOut := r.Context().Err() != nil && req.Context().Err() == nil
			cancel()
			if timedOut {
				err = fmt.Errorf("%s %s: no complete answer within %s (request timeout): %w", req.Method, req.URL.Path, t.timeout, err)
			}
			// Network errors are retried for replayable requests only (a
			// write may have reached GitHub).
			if !replayable(req) || attempt >= t.max || req.Context().Err() != nil {
				return nil, err
			}
			t.stats.add(0, 0, 1)
			if serr := t.sleep(req.Context(), min(backoff(attempt), t.maxWait)); serr != nil {
				return nil, serr
			}
			continue
		}
		wait, retry := t.retryAfter(resp, attempt)
		// A 5xx does not say whether a write took effect: only replayable
		// requests are repeated blindly; the caller of any other write
		// reads the state back first (Apply: moveRef, createPR). A
		// rate-limit answer (403 / 429) says the request was refused, so
		// it is retried for every method.
		if resp.StatusCode >= 500 && !replayable(req) {
			retry = false
		}
		if !retry || attempt >= t.max || wait > t.maxWait {
			resp.Body = &limitedBody{r: &cancelBody{ReadCloser: resp.Body, cancel: cancel, ctx: r.Context(), parent: req.Context(), timeout: t.timeout}, left: maxBody}
			return resp, nil
		}
		// drained for connection reuse, then dropped: its content is not read
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
		cancel()
		t.stats.add(0, 0, 1)
		if err := t.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// replayable reports whether req may be sent again without knowing whether
// the first attempt took effect: reads; the content-addressed writes of the
// Git Data API (POST git/blobs, git/trees, git/commits: the same body makes
// the same object); and PATCH pulls/{n}, which sets title, body and state to
// given values. Creating or moving a ref and opening a PR are not: Apply
// reads their state back instead (moveRef, createPR).
func replayable(req *http.Request) bool {
	p := req.URL.Path
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	case http.MethodPost:
		return strings.HasSuffix(p, "/git/blobs") || strings.HasSuffix(p, "/git/trees") || strings.HasSuffix(p, "/git/commits")
	case http.MethodPatch:
		i := strings.LastIndex(p, "/pulls/")
		if i < 0 {
			return false
		}
		_, err := strconv.Atoi(p[i+len("/pulls/"):])
		return err == nil
	}
	return false
}

// transient reports whether a failed call may have failed for a passing
// reason — a 5xx answer or a broken connection — so that after reading the
// state back it may be tried again.
func transient(err error) bool {
	if code := statusOf(err); code != 0 {
		return code >= 500
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// cancelBody ends an attempt's context when the body is closed, and names
// the request timeout when the attempt's deadline cut the body off.
type cancelBody struct {
	io.ReadCloser
	cancel      context.CancelFunc
	ctx, parent context.Context
	timeout     time.Duration
}

func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil && b.parent.Err() == nil {
		err = fmt.Errorf("answer not complete within %s (request timeout): %w", b.timeout, err)
	}
	return n, err
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// backoff is 1 s, 2 s, 4 s … for attempt 0, 1, 2 …, at most 2^MaxRetriesLimit s.
func backoff(attempt int) time.Duration {
	return time.Second << min(max(attempt, 0), MaxRetriesLimit)
}

// retryAfter says whether resp should be retried and after how long.
func (t *retryTransport) retryAfter(resp *http.Response, attempt int) (time.Duration, bool) {
	backoff := backoff(attempt)
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && s >= 0 {
			backoff = time.Duration(s) * time.Second
		} else if when, err := http.ParseTime(ra); err == nil {
			backoff = max(when.Sub(t.now()), 0)
		}
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return backoff, true
		}
	}
	switch {
	case resp.StatusCode >= 500 && resp.StatusCode <= 599:
		return backoff, true
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests:
		if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
			if reset, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
				return max(time.Unix(reset, 0).Sub(t.now()), 0) + time.Second, true
			}
			return time.Minute, true
		}
		// Secondary limit without Retry-After: GitHub says wait at least a minute.
		body, _ := peekBody(resp, 4096)
		if bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit")) || bytes.Contains(bytes.ToLower(body), []byte("abuse")) {
			return time.Minute << min(attempt, MaxRetriesLimit), true
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			return time.Minute << min(attempt, MaxRetriesLimit), true
		}
	}
	return 0, false
}

// maxBody bounds one response body (the largest real upstream file is about
// 0.3 MB; the contents API base64-encodes files up to 1 MB).
const maxBody = 32 << 20

// errBodyTooLarge is returned when a response body exceeds maxBody.
var errBodyTooLarge = errors.New("response body larger than 32 MiB")

// limitedBody fails (instead of truncating) once more than left bytes are read.
type limitedBody struct {
	r    io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, errBodyTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }

// peekBody reads up to n bytes of resp.Body and puts them back.
func peekBody(resp *http.Response, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, n))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	return b, err
}

// etagTransport is a per-Client conditional-request cache: a GET answered
// with an ETag is remembered; the next GET of the same URL carries
// If-None-Match and a 304 answer is turned back into the remembered 200.
// Any non-GET request to a URL drops the entries under that URL's path.
type etagTransport struct {
	next    http.RoundTripper
	mu      sync.Mutex
	entries map[string]*cacheEntry
	stats   *Stats
}

type cacheEntry struct {
	etag   string
	status int
	header http.Header
	body   []byte
}

// maxCachedBody bounds one cached body (the largest real snippet is ~0.3 MB).
const maxCachedBody = 8 << 20

func (t *etagTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := req.URL.String()
	if req.Method != http.MethodGet {
		t.mu.Lock()
		for k := range t.entries {
			if strings.HasPrefix(k, strings.SplitN(key, "?", 2)[0]) {
				delete(t.entries, k)
			}
		}
		t.mu.Unlock()
		return t.next.RoundTrip(req)
	}
	t.mu.Lock()
	e := t.entries[key]
	t.mu.Unlock()
	r := req
	if e != nil && req.Header.Get("If-None-Match") == "" {
		r = req.Clone(req.Context())
		r.Header.Set("If-None-Match", e.etag)
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && e != nil {
		_ = resp.Body.Close() // a 304 has no body to lose
		t.stats.add(0, 1, 0)
		h := e.header.Clone()
		for k, v := range resp.Header { // fresh rate-limit headers
			if strings.HasPrefix(strings.ToLower(k), "x-ratelimit") {
				h[k] = v
			}
		}
		return &http.Response{Status: http.StatusText(e.status), StatusCode: e.status, Proto: resp.Proto,
			ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor, Header: h,
			Body: io.NopCloser(bytes.NewReader(e.body)), ContentLength: int64(len(e.body)), Request: req}, nil
	}
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
	_ = resp.Body.Close() // read already: ReadAll's error is the one that counts
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if len(body) <= maxCachedBody {
		t.mu.Lock()
		t.entries[key] = &cacheEntry{etag: etag, status: resp.StatusCode, header: resp.Header.Clone(), body: body}
		t.mu.Unlock()
	}
	return resp, nil
}

// isNotFound reports whether err is a GitHub 404.
func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// statusOf returns the HTTP status of a go-github error, or 0.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// splitRepo splits "OWNER/NAME".
func splitRepo(s string) (owner, name string, err error) {
	o, n, ok := strings.Cut(s, "/")
	if !ok || o == "" || n == "" || strings.Contains(n, "/") || !validRepoPart(o) || !validRepoPart(n) {
		return "", "", fmt.Errorf("repository %q: want OWNER/NAME", s)
	}
	return o, n, nil
}

func validRepoPart(s string) bool {
	if s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
