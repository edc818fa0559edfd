// Package fakegithub is an in-memory GitHub REST API for tests (no network):
// an httptest.Server implementing the endpoints package upstream uses —
// repos, contents, git refs / trees / blobs / commits, pulls (list, get,
// create, update), issues (list by state and labels, get, create, edit;
// a body over 65,536 characters refused), search issues and Actions runs —
// with payloads shaped like
// GitHub's (field names from the REST docs), ETags and 304s, 404 / 422 errors
// with GitHub's {"message","documentation_url"} bodies, and injectable faults
// (5xx, 403 secondary rate limit with Retry-After, malformed bodies).
//
// Git objects get real git SHA-1 ids (blob/tree/commit encodings), so blob
// SHAs computed by clients match.
package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is one recorded request.
type Request struct {
	Method, URL string // URL is the request URI (path + query)
	Auth        string // the Authorization header as received
	Body        string
	Header      http.Header
	Status      int
}

// Fault makes matching requests fail: Count times (-1 = forever) answer
// Status with Header and Body. "$AUTH" in Body is replaced by the request's
// Authorization header as received (JSON-escaped), like a server that echoes
// it into its error message. With After the request is carried out first
// (its changes are made) and only the answer is replaced — a gateway that
// times out after the write landed, the case a non-idempotent POST must not
// be blindly retried for.
type Fault struct {
	Method string // "" = any
	Path   string // regexp matched against the URL path
	Count  int
	Status int
	Header map[string]string
	Body   string
	After  bool
}

// Server is the fake. Lock Mu when reading or changing state from a test
// while requests may run.
type Server struct {
	*httptest.Server
	Mu       sync.Mutex
	Repos    map[string]*Repo // "owner/name"
	Requests []Request
	Faults   []*Fault
	// Token, when set, is required (as "Bearer <Token>" or "token <Token>")
	// for every write; reads accept no token too.
	Token string
	Now   func() time.Time
	// ExternalRef, when set, resolves branches that live outside the fake
	// (a go-git remote in a temp dir) for PR creation and reopening.
	ExternalRef func(full, branch string) (string, bool)
}

// Repo is one repository.
type Repo struct {
	Owner, Name   string
	DefaultBranch string
	Objects       map[string]*Object
	Refs          map[string]string // "heads/main" → commit sha
	Pulls         []*Pull
	Issues        []*Issue
	Runs          map[int64]*Run
	ForkOf        string // "owner/name" of the parent for a fork
}

// Object is a git object.
type Object struct {
	Type    string // blob, tree, commit
	Content []byte // blob
	Entries []TreeEntry
	Tree    string
	Parents []string
	Message string
	Author  Sig
}

// TreeEntry is one tree entry.
type TreeEntry struct{ Mode, Name, SHA string }

// Sig is a commit author.
type Sig struct {
	Name, Email string
	Date        time.Time
}

// Pull is a pull request.
type Pull struct {
	Number         int
	Title, Body    string
	State          string // open, closed
	Draft, Merged  bool
	MergedAt       *time.Time
	Head, Base     string // branch names
	HeadOwner      string // owner of the head repository; "" = the base repository's owner
	HeadSHA        string
	CreatedAt      time.Time
	HeadRepoDelete bool
}

// Issue is an issue (numbered with the pulls, as on GitHub).
type Issue struct {
	Number      int
	Title, Body string
	State       string // open, closed
	Labels      []string
	CreatedAt   time.Time
}

// MaxIssueBody is the longest issue body GitHub accepts (characters): a
// longer one is refused with 422.
const MaxIssueBody = 65536

// Run is an Actions workflow run (attempt 1 unless Attempts set).
type Run struct {
	ID                 int64
	Status, Conclusion string
	HeadSHA            string
	Attempts           map[int]*Run
}

// New starts a server with no repositories.
func New() *Server {
	s := &Server{Repos: map[string]*Repo{}, Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// AddRepo creates owner/name with one commit on the default branch holding files.
func (s *Server) AddRepo(full, defaultBranch string, files map[string]string) *Repo {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	o, n, _ := strings.Cut(full, "/")
	r := &Repo{Owner: o, Name: n, DefaultBranch: defaultBranch, Objects: map[string]*Object{}, Refs: map[string]string{}, Runs: map[int64]*Run{}}
	s.Repos[full] = r
	tree := r.writeFiles("", files)
	c := r.put(&Object{Type: "commit", Tree: tree, Message: "Initial commit\n", Author: Sig{"Upstream Dev", "dev@example.com", s.Now()}})
	r.Refs["heads/"+defaultBranch] = c
	return r
}

// AddFork creates fork (OWNER/NAME) of parent. Like GitHub's fork network it
// shares the parent's git objects; its refs start as a copy of the parent's.
func (s *Server) AddFork(parent, fork string) *Repo {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	p := s.Repos[parent]
	o, n, _ := strings.Cut(fork, "/")
	r := &Repo{Owner: o, Name: n, DefaultBranch: p.DefaultBranch, Objects: p.Objects, Refs: map[string]string{}, Runs: map[int64]*Run{}, ForkOf: parent}
	for k, v := range p.Refs {
		r.Refs[k] = v
	}
	s.Repos[fork] = r
	return r
}

// headRepo is the repository a PR's head branch lives in.
func (s *Server) headRepo(r *Repo, p *Pull) *Repo {
	if p.HeadOwner == "" || p.HeadOwner == r.Owner {
		return r
	}
	for _, x := range s.Repos {
		if x.Owner == p.HeadOwner && x.ForkOf == r.Owner+"/"+r.Name {
			return x
		}
	}
	return nil
}

func (p *Pull) headOwner(r *Repo) string {
	if p.HeadOwner == "" {
		return r.Owner
	}
	return p.HeadOwner
}

// Commit makes a commit on branch (created from the default branch when
// absent) writing files, authored by name, and returns its sha. Tests use it
// for "someone else pushed".
func (s *Server) Commit(full, branch, author, msg string, files map[string]string) string {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	r := s.Repos[full]
	parent, ok := r.Refs["heads/"+branch]
	if !ok {
		parent = r.Refs["heads/"+r.DefaultBranch]
	}
	tree := r.writeFiles(r.Objects[parent].Tree, files)
	c := r.put(&Object{Type: "commit", Tree: tree, Parents: []string{parent}, Message: msg, Author: Sig{author, author + "@example.com", s.Now()}})
	r.Refs["heads/"+branch] = c
	for _, p := range r.Pulls {
		if p.Head == branch && p.State == "open" {
			p.HeadSHA = c
		}
	}
	return c
}

// Merge merges PR number: the base branch moves to the PR head (a
// fast-forward merge), the PR is closed and merged.
func (s *Server) Merge(full string, number int) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	r := s.Repos[full]
	p := r.pull(number)
	t := s.Now()
	p.State, p.Merged, p.MergedAt = "closed", true, &t
	r.Refs["heads/"+p.Base] = p.HeadSHA
}

// ClosePull closes PR number without merging; deleteBranch also deletes its branch.
func (s *Server) ClosePull(full string, number int, deleteBranch bool) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	r := s.Repos[full]
	p := r.pull(number)
	p.State = "closed"
	if deleteBranch {
		delete(r.Refs, "heads/"+p.Head)
	}
}

// Branches lists branch names of a repo, sorted.
func (s *Server) Branches(full string) []string {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	var out []string
	for k := range s.Repos[full].Refs {
		if b, ok := strings.CutPrefix(k, "heads/"); ok {
			out = append(out, b)
		}
	}
	sort.Strings(out)
	return out
}

// CommitsOn counts the commits reachable from branch that are not on base.
func (s *Server) CommitsOn(full, branch, base string) int {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	r := s.Repos[full]
	onBase := map[string]bool{}
	for c := r.Refs["heads/"+base]; c != ""; {
		onBase[c] = true
		o := r.Objects[c]
		if len(o.Parents) == 0 {
			break
		}
		c = o.Parents[0]
	}
	n := 0
	for c := r.Refs["heads/"+branch]; c != "" && !onBase[c]; {
		n++
		o := r.Objects[c]
		if len(o.Parents) == 0 {
			break
		}
		c = o.Parents[0]
	}
	return n
}

// File returns the content of p at branch.
func (s *Server) File(full, branch, p string) (string, bool) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	r := s.Repos[full]
	sha, ok := r.lookup(r.Objects[r.Refs["heads/"+branch]].Tree, p)
	if !ok {
		return "", false
	}
	return string(r.Objects[sha].Content), true
}

// AddPull adds a PR directly (test setup).
func (s *Server) AddPull(full string, p *Pull) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	r := s.Repos[full]
	if p.Number == 0 {
		p.Number = r.nextNumber()
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.Now()
	}
	r.Pulls = append(r.Pulls, p)
}

// AddRun adds an Actions run.
func (s *Server) AddRun(full string, run *Run) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Repos[full].Runs[run.ID] = run
}

// AddFault registers a fault.
func (s *Server) AddFault(f *Fault) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Faults = append(s.Faults, f)
}

// Recorded returns a copy of the recorded requests.
func (s *Server) Recorded() []Request {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]Request(nil), s.Requests...)
}

func (r *Repo) nextNumber() int {
	n := 1
	for _, p := range r.Pulls {
		n = max(n, p.Number+1)
	}
	for _, i := range r.Issues {
		n = max(n, i.Number+1)
	}
	return n
}

func (r *Repo) issue(n int) *Issue {
	for _, i := range r.Issues {
		if i.Number == n {
			return i
		}
	}
	return nil
}

// issueJSON is GitHub's issue payload.
func (s *Server) issueJSON(r *Repo, i *Issue) map[string]any {
	labels := []any{}
	for _, l := range i.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	return map[string]any{"number": i.Number, "title": i.Title, "body": i.Body, "state": i.State, "labels": labels,
		"html_url": s.html(r, "/issues/"+strconv.Itoa(i.Number)), "created_at": i.CreatedAt.Format(time.RFC3339)}
}

// issues answers the issue endpoints: GET /issues (state, labels — every
// one must be on the issue —, per_page, page), GET /issues/N, POST /issues
// (title, body, labels), PATCH /issues/N (title, body, state, labels). A
// body over MaxIssueBody characters is refused (422).
func (s *Server) issues(r *Repo, method, rest string, q url.Values, body []byte) (any, error) {
	type input struct {
		Title  *string   `json:"title"`
		Body   *string   `json:"body"`
		State  *string   `json:"state"`
		Labels *[]string `json:"labels"`
	}
	check := func(in input) error {
		if in.Body != nil && len([]rune(*in.Body)) > MaxIssueBody {
			return validation("Validation Failed: body is too long (maximum is 65536 characters)")
		}
		if in.State != nil && *in.State != "open" && *in.State != "closed" {
			return validation("Validation Failed: state")
		}
		return nil
	}
	switch {
	case rest == "/issues" && method == http.MethodGet:
		state := q.Get("state")
		if state == "" {
			state = "open"
		}
		var want []string
		if l := q.Get("labels"); l != "" {
			want = strings.Split(l, ",")
		}
		var all []any
		for _, i := range r.Issues {
			if state != "all" && i.State != state {
				continue
			}
			ok := true
			for _, l := range want {
				ok = ok && slices.Contains(i.Labels, l)
			}
			if ok {
				all = append(all, s.issueJSON(r, i))
			}
		}
		per, _ := strconv.Atoi(q.Get("per_page"))
		if per <= 0 {
			per = 30
		}
		page, _ := strconv.Atoi(q.Get("page"))
		if page <= 0 {
			page = 1
		}
		out := []any{}
		if lo := (page - 1) * per; lo < len(all) {
			out = all[lo:min(len(all), lo+per)]
		}
		return out, nil
	case rest == "/issues" && method == http.MethodPost:
		var in input
		if err := json.Unmarshal(body, &in); err != nil || in.Title == nil || *in.Title == "" {
			return nil, validation("Validation Failed: title")
		}
		if err := check(in); err != nil {
			return nil, err
		}
		i := &Issue{Number: r.nextNumber(), Title: *in.Title, State: "open", CreatedAt: s.Now()}
		if in.Body != nil {
			i.Body = *in.Body
		}
		if in.Labels != nil {
			i.Labels = append([]string(nil), *in.Labels...)
		}
		r.Issues = append(r.Issues, i)
		return created{s.issueJSON(r, i)}, nil
	case strings.HasPrefix(rest, "/issues/"):
		n, err := strconv.Atoi(strings.TrimPrefix(rest, "/issues/"))
		i := r.issue(n)
		if err != nil || i == nil {
			return nil, notFound
		}
		switch method {
		case http.MethodGet:
			return s.issueJSON(r, i), nil
		case http.MethodPatch:
			var in input
			if err := json.Unmarshal(body, &in); err != nil {
				return nil, validation("Invalid request.")
			}
			if err := check(in); err != nil {
				return nil, err
			}
			if in.Title != nil {
				i.Title = *in.Title
			}
			if in.Body != nil {
				i.Body = *in.Body
			}
			if in.State != nil {
				i.State = *in.State
			}
			if in.Labels != nil {
				i.Labels = append([]string(nil), *in.Labels...)
			}
			return s.issueJSON(r, i), nil
		}
	}
	return nil, notFound
}

func (r *Repo) pull(n int) *Pull {
	for _, p := range r.Pulls {
		if p.Number == n {
			return p
		}
	}
	return nil
}

func hashObject(typ string, body []byte) string {
	h := sha1.New()
	_, _ = fmt.Fprintf(h, "%s %d\x00", typ, len(body)) // a hash.Hash never fails a write
	_, _ = h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (r *Repo) put(o *Object) string {
	var body []byte
	switch o.Type {
	case "blob":
		body = o.Content
	case "tree":
		sort.Slice(o.Entries, func(i, j int) bool { return treeKey(o.Entries[i]) < treeKey(o.Entries[j]) })
		for _, e := range o.Entries {
			raw, _ := hex.DecodeString(e.SHA)
			mode := strings.TrimPrefix(e.Mode, "0")
			body = append(body, []byte(mode+" "+e.Name+"\x00")...)
			body = append(body, raw...)
		}
	case "commit":
		var b strings.Builder
		fmt.Fprintf(&b, "tree %s\n", o.Tree)
		for _, p := range o.Parents {
			fmt.Fprintf(&b, "parent %s\n", p)
		}
		sig := fmt.Sprintf("%s <%s> %d +0000", o.Author.Name, o.Author.Email, o.Author.Date.Unix())
		fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", sig, sig, o.Message)
		body = []byte(b.String())
	}
	sha := hashObject(o.Type, body)
	r.Objects[sha] = o
	return sha
}

func treeKey(e TreeEntry) string {
	if e.Mode == "040000" {
		return e.Name + "/"
	}
	return e.Name
}

// writeFiles returns base tree (sha or "" for empty) with files written.
func (r *Repo) writeFiles(base string, files map[string]string) string {
	tree := base
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		blob := r.put(&Object{Type: "blob", Content: []byte(files[p])})
		tree = r.setPath(tree, strings.Split(p, "/"), "100644", blob)
	}
	if tree == "" {
		tree = r.put(&Object{Type: "tree"})
	}
	return tree
}

func (r *Repo) setPath(tree string, parts []string, mode, sha string) string {
	var entries []TreeEntry
	if tree != "" {
		entries = append(entries, r.Objects[tree].Entries...)
	}
	idx := -1
	for i, e := range entries {
		if e.Name == parts[0] {
			idx = i
		}
	}
	var e TreeEntry
	if len(parts) == 1 {
		e = TreeEntry{mode, parts[0], sha}
	} else {
		sub := ""
		if idx >= 0 && entries[idx].Mode == "040000" {
			sub = entries[idx].SHA
		}
		e = TreeEntry{"040000", parts[0], r.setPath(sub, parts[1:], mode, sha)}
	}
	if idx >= 0 {
		entries[idx] = e
	} else {
		entries = append(entries, e)
	}
	return r.put(&Object{Type: "tree", Entries: entries})
}

// lookup finds path p in tree.
func (r *Repo) lookup(tree, p string) (string, bool) {
	cur := tree
	parts := strings.Split(p, "/")
	for i, part := range parts {
		o := r.Objects[cur]
		if o == nil || o.Type != "tree" {
			return "", false
		}
		found := false
		for _, e := range o.Entries {
			if e.Name == part {
				if i < len(parts)-1 && e.Mode != "040000" {
					return "", false
				}
				cur, found = e.SHA, true
				break
			}
		}
		if !found {
			return "", false
		}
	}
	return cur, true
}

// isAncestor reports whether a is reachable from b.
func (r *Repo) isAncestor(a, b string) bool {
	seen := map[string]bool{}
	stack := []string{b}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == a {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		if o := r.Objects[c]; o != nil {
			stack = append(stack, o.Parents...)
		}
	}
	return false
}

// ---- HTTP ----

type apiError struct {
	status int
	msg    string
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 32<<20))
	s.Mu.Lock()
	rec := Request{Method: req.Method, URL: req.URL.RequestURI(), Auth: req.Header.Get("Authorization"), Body: string(body), Header: req.Header.Clone()}
	idx := len(s.Requests)
	s.Requests = append(s.Requests, rec)
	status, hdr, out := s.handle(req, body)
	s.Requests[idx].Status = status
	s.Mu.Unlock()
	for k, v := range hdr {
		w.Header().Set(k, v)
	}
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	for k, v := range map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4999",
		"X-RateLimit-Reset": strconv.FormatInt(s.Now().Add(time.Hour).Unix(), 10)} {
		if w.Header().Get(k) == "" {
			w.Header().Set(k, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(status)
	_, _ = w.Write(out) // the client went away: a fake server has nothing to do about it
}

// handle runs with Mu held.
func (s *Server) handle(req *http.Request, body []byte) (int, map[string]string, []byte) {
	for _, f := range s.Faults {
		if f.Count == 0 || (f.Method != "" && f.Method != req.Method) {
			continue
		}
		if ok, _ := regexp.MatchString(f.Path, req.URL.Path); !ok {
			continue
		}
		if f.Count > 0 {
			f.Count--
		}
		auth, _ := json.Marshal(req.Header.Get("Authorization"))
		answer := []byte(strings.ReplaceAll(f.Body, "$AUTH", strings.Trim(string(auth), `"`)))
		if f.After {
			s.handleNormally(req, body)
		}
		return f.Status, f.Header, answer
	}
	return s.handleNormally(req, body)
}

// handleNormally answers req as GitHub would (Mu held).
func (s *Server) handleNormally(req *http.Request, body []byte) (int, map[string]string, []byte) {
	if req.Method != http.MethodGet && s.Token != "" {
		a := req.Header.Get("Authorization")
		if a != "Bearer "+s.Token && a != "token "+s.Token {
			return jsonErr(apiError{401, "Bad credentials"})
		}
	}
	v, err := s.route(req, body)
	if err != nil {
		if ae, ok := err.(apiError); ok {
			return jsonErr(ae)
		}
		return jsonErr(apiError{400, err.Error()})
	}
	status := http.StatusOK
	if c, ok := v.(created); ok {
		status, v = http.StatusCreated, c.v
	}
	hdr := map[string]string{}
	var out []byte
	if raw, ok := v.(rawBody); ok {
		out = raw
		hdr["Content-Type"] = "application/vnd.github.raw"
	} else {
		out, _ = json.Marshal(v)
	}
	if req.Method == http.MethodGet {
		sum := sha1.Sum(out)
		etag := `W/"` + hex.EncodeToString(sum[:]) + `"`
		hdr["ETag"] = etag
		if req.Header.Get("If-None-Match") == etag {
			return http.StatusNotModified, hdr, nil
		}
	}
	return status, hdr, out
}

type created struct{ v any }

func (e apiError) Error() string { return e.msg }

func jsonErr(e apiError) (int, map[string]string, []byte) {
	out, _ := json.Marshal(map[string]string{"message": e.msg, "documentation_url": "https://docs.github.com/rest"})
	return e.status, nil, out
}

var (
	reRepo     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)(/.*)?$`)
	notFound   = apiError{404, "Not Found"}
	validation = func(msg string) apiError { return apiError{422, msg} }
)

func (s *Server) route(req *http.Request, body []byte) (any, error) {
	p := req.URL.Path
	if p == "/search/issues" && req.Method == http.MethodGet {
		return s.search(req.URL.Query().Get("q"))
	}
	m := reRepo.FindStringSubmatch(p)
	if m == nil {
		return nil, notFound
	}
	r := s.Repos[m[1]+"/"+m[2]]
	if r == nil {
		return nil, notFound
	}
	rest := m[3]
	get := req.Method == http.MethodGet
	switch {
	case rest == "" && get:
		return map[string]any{"id": 1, "name": r.Name, "full_name": r.Owner + "/" + r.Name, "default_branch": r.DefaultBranch,
			"private": false, "owner": map[string]any{"login": r.Owner, "type": "Organization"}, "html_url": s.html(r, "")}, nil
	case strings.HasPrefix(rest, "/contents/") && get:
		return s.contents(r, strings.TrimPrefix(rest, "/contents/"), req.URL.Query().Get("ref"))
	case strings.HasPrefix(rest, "/git/ref/") && get:
		ref := strings.TrimPrefix(rest, "/git/ref/")
		sha, ok := r.Refs[ref]
		if !ok {
			return nil, notFound
		}
		return s.refJSON(r, ref, sha), nil
	case rest == "/git/refs" && req.Method == http.MethodPost:
		var in struct{ Ref, SHA string }
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, validation("Invalid request.")
		}
		ref := strings.TrimPrefix(in.Ref, "refs/")
		if _, ok := r.Refs[ref]; ok {
			return nil, validation("Reference already exists")
		}
		if o := r.Objects[in.SHA]; o == nil || o.Type != "commit" {
			return nil, validation("Object does not exist")
		}
		r.Refs[ref] = in.SHA
		return created{s.refJSON(r, ref, in.SHA)}, nil
	case strings.HasPrefix(rest, "/git/refs/") && req.Method == http.MethodPatch:
		ref := strings.TrimPrefix(rest, "/git/refs/")
		var in struct {
			SHA   string
			Force bool
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, validation("Invalid request.")
		}
		cur, ok := r.Refs[ref]
		if !ok {
			return nil, validation("Reference does not exist")
		}
		if o := r.Objects[in.SHA]; o == nil || o.Type != "commit" {
			return nil, validation("Object does not exist")
		}
		if !in.Force && !r.isAncestor(cur, in.SHA) {
			return nil, validation("Update is not a fast forward")
		}
		r.Refs[ref] = in.SHA
		for _, pl := range r.Pulls {
			if "heads/"+pl.Head == ref && pl.State == "open" {
				pl.HeadSHA = in.SHA
			}
		}
		return s.refJSON(r, ref, in.SHA), nil
	case strings.HasPrefix(rest, "/git/commits/") && get:
		sha := strings.TrimPrefix(rest, "/git/commits/")
		o := r.Objects[sha]
		if o == nil || o.Type != "commit" {
			return nil, notFound
		}
		return s.commitJSON(r, sha, o), nil
	case rest == "/git/commits" && req.Method == http.MethodPost:
		var in struct {
			Message string
			Tree    string
			Parents []string
			Author  *struct {
				Name, Email string
				Date        time.Time
			}
		}
		if err := json.Unmarshal(body, &in); err != nil || in.Message == "" {
			return nil, validation("Invalid request.")
		}
		if o := r.Objects[in.Tree]; o == nil || o.Type != "tree" {
			return nil, validation("Tree SHA does not exist")
		}
		for _, p := range in.Parents {
			if o := r.Objects[p]; o == nil || o.Type != "commit" {
				return nil, validation("Parent SHA does not exist or is not a commit object")
			}
		}
		a := Sig{"Fake User", "fake@example.com", s.Now()}
		if in.Author != nil {
			a = Sig{in.Author.Name, in.Author.Email, in.Author.Date}
		}
		o := &Object{Type: "commit", Tree: in.Tree, Parents: in.Parents, Message: in.Message, Author: a}
		sha := r.put(o)
		return created{s.commitJSON(r, sha, o)}, nil
	case rest == "/git/blobs" && req.Method == http.MethodPost:
		var in struct{ Content, Encoding string }
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, validation("Invalid request.")
		}
		data := []byte(in.Content)
		if in.Encoding == "base64" {
			var err error
			if data, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
				return nil, validation("Invalid base64")
			}
		}
		sha := r.put(&Object{Type: "blob", Content: data})
		return created{map[string]any{"sha": sha, "url": s.api(r, "/git/blobs/"+sha)}}, nil
	case strings.HasPrefix(rest, "/git/blobs/") && get:
		sha := strings.TrimPrefix(rest, "/git/blobs/")
		o := r.Objects[sha]
		if o == nil || o.Type != "blob" {
			return nil, notFound
		}
		if strings.Contains(req.Header.Get("Accept"), "raw") {
			return rawBody(o.Content), nil
		}
		return map[string]any{"sha": sha, "size": len(o.Content), "encoding": "base64", "content": base64.StdEncoding.EncodeToString(o.Content),
			"url": s.api(r, "/git/blobs/"+sha), "node_id": "B_" + sha[:8]}, nil
	case strings.HasPrefix(rest, "/git/trees/") && get:
		sha := strings.TrimPrefix(rest, "/git/trees/")
		o := r.Objects[sha]
		if o == nil || o.Type != "tree" {
			return nil, notFound
		}
		return s.treeJSON(r, sha, o), nil
	case rest == "/git/trees" && req.Method == http.MethodPost:
		var in struct {
			BaseTree string `json:"base_tree"`
			Tree     []struct {
				Path, Mode, Type string
				SHA              *string
				Content          *string
			}
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, validation("Invalid request.")
		}
		if in.BaseTree != "" && (r.Objects[in.BaseTree] == nil || r.Objects[in.BaseTree].Type != "tree") {
			return nil, validation("base_tree is not a valid tree oid")
		}
		tree := in.BaseTree
		for _, e := range in.Tree {
			sha := ""
			switch {
			case e.Content != nil:
				sha = r.put(&Object{Type: "blob", Content: []byte(*e.Content)})
			case e.SHA != nil:
				if r.Objects[*e.SHA] == nil {
					return nil, validation("GitRPC::BadObjectState")
				}
				sha = *e.SHA
			default:
				return nil, validation("Must supply either tree.sha or tree.content")
			}
			tree = r.setPath(tree, strings.Split(e.Path, "/"), e.Mode, sha)
		}
		if tree == "" {
			tree = r.put(&Object{Type: "tree"})
		}
		return created{s.treeJSON(r, tree, r.Objects[tree])}, nil
	case rest == "/issues" || strings.HasPrefix(rest, "/issues/"):
		return s.issues(r, req.Method, rest, req.URL.Query(), body)
	case rest == "/pulls" && get:
		q := req.URL.Query()
		state := q.Get("state")
		if state == "" {
			state = "open"
		}
		var out []any
		for _, p := range r.Pulls {
			if state != "all" && p.State != state {
				continue
			}
			if h := q.Get("head"); h != "" && h != p.headOwner(r)+":"+p.Head {
				continue
			}
			if b := q.Get("base"); b != "" && b != p.Base {
				continue
			}
			out = append(out, s.pullJSON(r, p))
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case rest == "/pulls" && req.Method == http.MethodPost:
		var in struct {
			Title, Head, Base, Body string
			Draft                   bool
		}
		if err := json.Unmarshal(body, &in); err != nil || in.Title == "" {
			return nil, validation("Validation Failed")
		}
		head, headOwner := in.Head, ""
		if o, b, ok := strings.Cut(head, ":"); ok {
			head, headOwner = b, o
		}
		np := &Pull{Head: head, HeadOwner: headOwner}
		hr := s.headRepo(r, np)
		if hr == nil {
			return nil, validation("Validation Failed: head repository not in the fork network")
		}
		sha, ok := s.branch(hr, head)
		if !ok {
			return nil, validation("Validation Failed: head invalid")
		}
		baseSHA, ok := s.branch(r, in.Base)
		if !ok {
			return nil, validation("Validation Failed: base invalid")
		}
		for _, p := range r.Pulls {
			if p.Head == head && p.headOwner(r) == np.headOwner(r) && p.State == "open" {
				return nil, validation("A pull request already exists for " + np.headOwner(r) + ":" + head + ".")
			}
		}
		if sha == baseSHA {
			return nil, validation("No commits between " + in.Base + " and " + head)
		}
		p := &Pull{Number: r.nextNumber(), Title: in.Title, Body: in.Body, State: "open", Draft: in.Draft, Head: head, HeadOwner: headOwner, Base: in.Base, HeadSHA: sha, CreatedAt: s.Now()}
		r.Pulls = append(r.Pulls, p)
		return created{s.pullJSON(r, p)}, nil
	case strings.HasPrefix(rest, "/pulls/"):
		n, err := strconv.Atoi(strings.TrimPrefix(rest, "/pulls/"))
		if err != nil {
			return nil, notFound
		}
		p := r.pull(n)
		if p == nil {
			return nil, notFound
		}
		if get {
			return s.pullJSON(r, p), nil
		}
		if req.Method != http.MethodPatch {
			return nil, notFound
		}
		var in struct{ Title, Body, State *string }
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, validation("Invalid request.")
		}
		if in.State != nil && *in.State == "open" && p.State == "closed" {
			if p.Merged {
				return nil, validation("Validation Failed: state cannot be changed. The pull request has been merged.")
			}
			hr := s.headRepo(r, p)
			sha, ok := "", false
			if hr != nil {
				sha, ok = s.branch(hr, p.Head)
			}
			if !ok {
				return nil, validation("Validation Failed: state cannot be changed. The " + p.Head + " branch has been deleted.")
			}
			p.State, p.HeadSHA = "open", sha
		} else if in.State != nil {
			p.State = *in.State
		}
		if in.Title != nil {
			p.Title = *in.Title
		}
		if in.Body != nil {
			p.Body = *in.Body
		}
		return s.pullJSON(r, p), nil
	case strings.HasPrefix(rest, "/actions/runs/") && get:
		parts := strings.Split(strings.TrimPrefix(rest, "/actions/runs/"), "/")
		id, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			return nil, notFound
		}
		run := r.Runs[id]
		if run == nil {
			return nil, notFound
		}
		attempt := 1
		if len(parts) == 3 && parts[1] == "attempts" {
			attempt, _ = strconv.Atoi(parts[2])
			if a := run.Attempts[attempt]; a != nil {
				return s.runJSON(r, run.ID, attempt, a), nil
			}
			if attempt != 1 {
				return nil, notFound
			}
		}
		return s.runJSON(r, run.ID, attempt, run), nil
	}
	return nil, notFound
}

type rawBody []byte

func (s *Server) branch(r *Repo, b string) (string, bool) {
	if sha, ok := r.Refs["heads/"+b]; ok {
		return sha, true
	}
	if s.ExternalRef != nil {
		return s.ExternalRef(r.Owner+"/"+r.Name, b)
	}
	return "", false
}

// search answers GET /search/issues for queries of the form
// `repo:O/N is:pr in:body "<text>"` (the text is matched as a substring of
// the body).
func (s *Server) search(q string) (any, error) {
	var repo, text string
	for _, f := range regexp.MustCompile(`"[^"]*"|\S+`).FindAllString(q, -1) {
		switch {
		case strings.HasPrefix(f, "repo:"):
			repo = strings.TrimPrefix(f, "repo:")
		case strings.HasPrefix(f, `"`):
			text = strings.Trim(f, `"`)
		}
	}
	r := s.Repos[repo]
	if r == nil {
		return nil, validation("Validation Failed: repo not found")
	}
	items := []any{}
	for _, p := range r.Pulls {
		if text != "" && !strings.Contains(p.Body, text) {
			continue
		}
		pj := s.pullJSON(r, p)
		items = append(items, map[string]any{"number": p.Number, "title": p.Title, "state": p.State, "body": p.Body,
			"html_url": pj["html_url"], "url": s.api(r, "/issues/"+strconv.Itoa(p.Number)),
			"pull_request": map[string]any{"url": pj["url"], "html_url": pj["html_url"], "merged_at": pj["merged_at"]}})
	}
	return map[string]any{"total_count": len(items), "incomplete_results": false, "items": items}, nil
}

func (s *Server) html(r *Repo, p string) string {
	return "https://github.com/" + r.Owner + "/" + r.Name + p
}
func (s *Server) api(r *Repo, p string) string {
	return s.URL + "/repos/" + r.Owner + "/" + r.Name + p
}

func (s *Server) refJSON(r *Repo, ref, sha string) map[string]any {
	return map[string]any{"ref": "refs/" + ref, "node_id": "REF_" + sha[:8], "url": s.api(r, "/git/refs/"+ref),
		"object": map[string]any{"sha": sha, "type": "commit", "url": s.api(r, "/git/commits/"+sha)}}
}

func (s *Server) commitJSON(r *Repo, sha string, o *Object) map[string]any {
	parents := []any{}
	for _, p := range o.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.api(r, "/git/commits/"+p), "html_url": s.html(r, "/commit/"+p)})
	}
	sig := map[string]any{"name": o.Author.Name, "email": o.Author.Email, "date": o.Author.Date.UTC().Format(time.RFC3339)}
	return map[string]any{"sha": sha, "node_id": "C_" + sha[:8], "url": s.api(r, "/git/commits/"+sha), "html_url": s.html(r, "/commit/"+sha),
		"author": sig, "committer": sig, "message": o.Message,
		"tree":         map[string]any{"sha": o.Tree, "url": s.api(r, "/git/trees/"+o.Tree)},
		"parents":      parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}}
}

func (s *Server) treeJSON(r *Repo, sha string, o *Object) map[string]any {
	ents := []any{}
	for _, e := range o.Entries {
		typ := "blob"
		if e.Mode == "040000" {
			typ = "tree"
		}
		ent := map[string]any{"path": e.Name, "mode": e.Mode, "type": typ, "sha": e.SHA, "url": s.api(r, "/git/"+typ+"s/"+e.SHA)}
		if typ == "blob" {
			ent["size"] = len(r.Objects[e.SHA].Content)
		}
		ents = append(ents, ent)
	}
	return map[string]any{"sha": sha, "url": s.api(r, "/git/trees/"+sha), "tree": ents, "truncated": false}
}

func (s *Server) contents(r *Repo, p, ref string) (any, error) {
	p, _ = url.PathUnescape(p)
	if ref == "" {
		ref = r.DefaultBranch
	}
	commit, ok := r.Refs["heads/"+ref]
	if !ok {
		if o := r.Objects[ref]; o != nil && o.Type == "commit" {
			commit = ref
		} else {
			return nil, apiError{404, "No commit found for the ref " + ref}
		}
	}
	sha, ok := r.lookup(r.Objects[commit].Tree, p)
	if !ok {
		return nil, notFound
	}
	o := r.Objects[sha]
	name := p[strings.LastIndex(p, "/")+1:]
	if o.Type == "tree" {
		return s.treeJSON(r, sha, o)["tree"], nil
	}
	return map[string]any{"type": "file", "encoding": "base64", "size": len(o.Content), "name": name, "path": p,
		"content": base64.StdEncoding.EncodeToString(o.Content), "sha": sha,
		"url":          s.api(r, "/contents/"+p+"?ref="+ref),
		"git_url":      s.api(r, "/git/blobs/"+sha),
		"html_url":     s.html(r, "/blob/"+ref+"/"+p),
		"download_url": "https://raw.githubusercontent.com/" + r.Owner + "/" + r.Name + "/" + ref + "/" + p}, nil
}

func (s *Server) pullJSON(r *Repo, p *Pull) map[string]any {
	var merged any
	if p.MergedAt != nil {
		merged = p.MergedAt.UTC().Format(time.RFC3339)
	}
	repo := map[string]any{"name": r.Name, "full_name": r.Owner + "/" + r.Name, "owner": map[string]any{"login": r.Owner}}
	var headRepo any = repo
	if hr := s.headRepo(r, p); hr == nil {
		headRepo = nil // deleted fork
	} else if hr != r {
		headRepo = map[string]any{"name": hr.Name, "full_name": hr.Owner + "/" + hr.Name, "owner": map[string]any{"login": hr.Owner}, "fork": true}
	}
	return map[string]any{
		"url": s.api(r, "/pulls/"+strconv.Itoa(p.Number)), "id": 1000 + p.Number, "node_id": "PR_" + strconv.Itoa(p.Number),
		"html_url": s.html(r, "/pull/"+strconv.Itoa(p.Number)), "number": p.Number, "state": p.State, "locked": false,
		"title": p.Title, "body": p.Body, "draft": p.Draft, "merged": p.Merged, "merged_at": merged,
		"created_at": p.CreatedAt.UTC().Format(time.RFC3339), "updated_at": s.Now().UTC().Format(time.RFC3339),
		"user":                  map[string]any{"login": "cookbook-sync-bot", "type": "User"},
		"head":                  map[string]any{"label": p.headOwner(r) + ":" + p.Head, "ref": p.Head, "sha": p.HeadSHA, "repo": headRepo},
		"base":                  map[string]any{"label": r.Owner + ":" + p.Base, "ref": p.Base, "sha": r.Refs["heads/"+p.Base], "repo": repo},
		"maintainer_can_modify": true,
	}
}

func (s *Server) runJSON(r *Repo, id int64, attempt int, run *Run) map[string]any {
	var concl any
	if run.Conclusion != "" {
		concl = run.Conclusion
	}
	return map[string]any{"id": id, "name": "e2e-sweep", "run_attempt": attempt, "status": run.Status, "conclusion": concl,
		"head_sha": run.HeadSHA, "event": "pull_request", "html_url": s.html(r, fmt.Sprintf("/actions/runs/%d", id)),
		"url": s.api(r, fmt.Sprintf("/actions/runs/%d", id)), "created_at": s.Now().UTC().Format(time.RFC3339)}
}
