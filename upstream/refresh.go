package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Provenance statuses of the SGLang cookbook's AgentX data
// (sgl-project/sglang docs/src/snippets/agentx/*.jsx, cells[].prov.status,
// cells[].points[].status, source.prs[N].status; semantics in
// docs/src/snippets/_agentx.jsx): a point moves in-progress → verified-pr
// when the cited InferenceX run succeeded → verified once the InferenceX PR
// merged.
const (
	ProvInProgress = "in-progress"
	ProvVerifiedPR = "verified-pr"
	ProvVerified   = "verified"
)

var provRank = map[string]int{ProvInProgress: 0, ProvVerifiedPR: 1, ProvVerified: 2}

// ErrBadSnippet is wrapped by Refresh errors about the input text (not the
// API): the message carries "snippet:LINE:COL" or the missing JSON path.
var ErrBadSnippet = errors.New("bad AgentX snippet")

// Change is one provenance record Refresh looked at and changed (Applied) or
// could not move and wants a human to look at (Applied false, Reason says
// why, From == To).
type Change struct {
	Path    string `json:"path"`          // JSON path of the status value, e.g. cells[3].prov.status
	Line    int    `json:"line"`          // 1-based line of the status value in the file
	PR      string `json:"pr,omitempty"`  // InferenceX PR number
	Run     string `json:"run,omitempty"` // run as cited (id, id/attempts/n or URL)
	From    string `json:"from"`
	To      string `json:"to"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason"`
}

// Refresh reads the provenance records of an AgentX snippet (the text of a
// docs/src/snippets/agentx/<org>/<model>.jsx file: "export const agentx =
// {…};", a JSON object literal after the generated-file header), asks GitHub
// for the state of each cited InferenceX PR (GET pulls/{n}) and Actions run
// (GET actions/runs/{id}[/attempts/{n}]), and returns the text with only the
// status string values changed (every other byte kept) plus the list of
// changes. Statuses only move forward (in-progress → verified-pr → verified);
// "verified" records are not looked up. A record is moved to verified-pr when
// its run completed with conclusion "success", to verified when in addition
// its PR is merged. Records that cannot move (no run cited, run failed, PR
// closed unmerged) come back as Changes with Applied false.
//
// The InferenceX repository is source.repo (https://github.com/OWNER/NAME).
// Any API error fails the whole refresh (nothing half-updated). Both the new
// format (cell.prov + per-point overrides) and the older one (per-point
// status/pr/runUrl) are read.
func (c *Client) Refresh(ctx context.Context, src []byte) (_ []byte, _ []Change, err error) {
	defer launch.RecoverInput("snippet", &err)
	out, changes, err := c.refresh(ctx, src)
	if err != nil {
		return nil, nil, c.red.wrap(err)
	}
	for i := range changes {
		ch := &changes[i]
		for _, f := range []*string{&ch.Path, &ch.PR, &ch.Run, &ch.From, &ch.To, &ch.Reason} {
			*f = c.red.String(*f)
		}
	}
	return out, changes, nil
}

func (c *Client) refresh(ctx context.Context, src []byte) ([]byte, []Change, error) {
	root, err := parseSnippet(src)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadSnippet, err)
	}
	repoURL := root.get("source").get("repo")
	if repoURL == nil || repoURL.kind != 's' {
		return nil, nil, fmt.Errorf("%w: source.repo missing (want the InferenceX repository URL)", ErrBadSnippet)
	}
	ixRepo, err := repoFromURL(repoURL.str)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: source.repo: %v", ErrBadSnippet, err)
	}
	var recs []provRecord
	collectProv(root, "", provCtx{}, &recs)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].status.start < recs[j].status.start })
	prs := map[string]LinkState{}
	runs := map[string]runState{}
	var changes []Change
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, r := range recs {
		ch := Change{Path: r.path, Line: lineOf(src, r.status.start), PR: r.pr, Run: r.run, From: r.status.str, To: r.status.str}
		if r.status.str == ProvVerified {
			continue
		}
		if r.run == "" {
			ch.Reason = "no run cited: cannot verify; regenerate with the run"
			changes = append(changes, ch)
			continue
		}
		rs, ok := runs[r.run]
		if !ok {
			if rs, err = c.runState(ctx, ixRepo, r.run); err != nil {
				return nil, nil, fmt.Errorf("%s (line %d): %w", r.path, ch.Line, err)
			}
			runs[r.run] = rs
		}
		target := r.status.str
		if rs.success {
			target = ProvVerifiedPR
			if r.pr != "" {
				ps, ok := prs[r.pr]
				if !ok {
					n, err := strconv.Atoi(r.pr)
					if err != nil || n <= 0 {
						return nil, nil, fmt.Errorf("%w: %s (line %d): bad pr %q", ErrBadSnippet, r.path, ch.Line, r.pr)
					}
					if ps, err = c.prStatus(ctx, LinkState{Repo: ixRepo, Number: n}); err != nil {
						return nil, nil, fmt.Errorf("%s (line %d): %w", r.path, ch.Line, err)
					}
					prs[r.pr] = ps
				}
				switch ps.State {
				case StateMerged:
					target = ProvVerified
				case StateClosedUnmerged:
					ch.Reason = fmt.Sprintf("InferenceX PR #%s was closed without merging", r.pr)
				}
			}
		} else {
			ch.Reason = fmt.Sprintf("run %s: %s", r.run, rs.summary)
		}
		if provRank[target] > provRank[r.status.str] {
			ch.To, ch.Applied = target, true
			switch target {
			case ProvVerified:
				ch.Reason = fmt.Sprintf("run %s succeeded and InferenceX PR #%s is merged", r.run, r.pr)
			case ProvVerifiedPR:
				ch.Reason = fmt.Sprintf("run %s succeeded; InferenceX PR #%s not merged yet", r.run, r.pr)
			}
			q, _ := jsonMarshal(target)
			edits = append(edits, edit{r.status.start, r.status.end, string(q)})
		}
		if ch.Applied || ch.Reason != "" {
			changes = append(changes, ch)
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out, changes, nil
}

type runState struct {
	success bool
	summary string
}

// runState reads an Actions run: "<id>", "<id>/attempts/<n>" or a run / job
// URL (…/actions/runs/<id>[/attempts/<n>|/job/<j>]).
func (c *Client) runState(ctx context.Context, repo, run string) (runState, error) {
	s := run
	if i := strings.Index(s, "/actions/runs/"); i >= 0 {
		s = s[i+len("/actions/runs/"):]
	}
	parts := strings.Split(strings.Trim(s, "/"), "/")
	id, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || id <= 0 {
		return runState{}, fmt.Errorf("run %q: want <id>, <id>/attempts/<n> or an actions/runs URL", run)
	}
	attempt := 0
	if len(parts) >= 3 && parts[1] == "attempts" {
		if attempt, err = strconv.Atoi(parts[2]); err != nil || attempt <= 0 {
			return runState{}, fmt.Errorf("run %q: bad attempt", run)
		}
	}
	owner, name, err := splitRepo(repo)
	if err != nil {
		return runState{}, err
	}
	var status, concl string
	if attempt > 0 {
		wr, _, err := c.gh.Actions.GetWorkflowRunAttempt(ctx, owner, name, id, attempt, nil)
		if err != nil {
			return runState{}, fmt.Errorf("run %s: %w", run, err)
		}
		status, concl = wr.GetStatus(), wr.GetConclusion()
	} else {
		wr, _, err := c.gh.Actions.GetWorkflowRunByID(ctx, owner, name, id)
		if err != nil {
			return runState{}, fmt.Errorf("run %s: %w", run, err)
		}
		status, concl = wr.GetStatus(), wr.GetConclusion()
	}
	if status == "" {
		return runState{}, fmt.Errorf("run %s: answer without status", run)
	}
	if status != "completed" {
		return runState{summary: "not completed (" + status + ")"}, nil
	}
	return runState{success: concl == "success", summary: "concluded " + concl}, nil
}

// repoFromURL turns https://github.com/OWNER/NAME into OWNER/NAME.
func repoFromURL(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return "", fmt.Errorf("%q is not a repository URL", u)
	}
	segs := strings.Split(strings.Trim(pu.Path, "/"), "/")
	if len(segs) != 2 {
		return "", fmt.Errorf("%q is not a repository URL", u)
	}
	o, n, err := splitRepo(segs[0] + "/" + strings.TrimSuffix(segs[1], ".git"))
	if err != nil {
		return "", err
	}
	return o + "/" + n, nil
}

// provRecord is one status value with the PR and run that govern it.
type provRecord struct {
	path    string
	status  *jnode
	pr, run string
}

type provCtx struct{ pr, run string }

// collectProv finds every object with a provenance "status" value. A cell's
// "prov" object is inherited by the cell's points; source.prs entries take
// their PR number from the key.
func collectProv(n *jnode, path string, ctx provCtx, out *[]provRecord) {
	switch n.kind {
	case 'a':
		for i, it := range n.items {
			collectProv(it, fmt.Sprintf("%s[%d]", path, i), ctx, out)
		}
	case 'o':
		own := ctx
		if pv := n.get("prov"); pv != nil && pv.kind == 'o' {
			own = mergeCtx(own, pv)
		}
		self := mergeCtx(own, n)
		if st := n.get("status"); st != nil && st.kind == 's' {
			if _, ok := provRank[st.str]; ok {
				*out = append(*out, provRecord{path: join(path, "status"), status: st, pr: self.pr, run: self.run})
			}
		}
		for i, k := range n.keys {
			child := n.vals[i]
			cctx := own
			if k == "prov" {
				continue // handled above through its own status
			}
			if path == "source.prs" {
				cctx.pr = k
			}
			collectProv(child, join(path, k), cctx, out)
		}
		if pv := n.get("prov"); pv != nil && pv.kind == 'o' {
			if st := pv.get("status"); st != nil && st.kind == 's' {
				if _, ok := provRank[st.str]; ok {
					c := mergeCtx(ctx, pv)
					*out = append(*out, provRecord{path: join(join(path, "prov"), "status"), status: st, pr: c.pr, run: c.run})
				}
			}
		}
	}
}

func mergeCtx(c provCtx, n *jnode) provCtx {
	if v := n.get("pr"); v != nil && (v.kind == 's' || v.kind == 'n') {
		c.pr = v.str
	}
	for _, k := range []string{"run", "runUrl"} {
		if v := n.get(k); v != nil {
			if v.kind == 's' {
				c.run = v.str
			} else if v.kind == 'z' {
				c.run = ""
			}
		}
	}
	return c
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	if path == "source.prs" {
		return fmt.Sprintf("%s[%q]", path, key)
	}
	return path + "." + key
}

// jnode is a JSON value with its byte span in the source.
type jnode struct {
	kind       byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	str        string
	start, end int
	keys       []string
	vals       []*jnode
	items      []*jnode
}

func (n *jnode) get(k string) *jnode {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, kk := range n.keys {
		if kk == k {
			return n.vals[i]
		}
	}
	return nil
}

// parseSnippet finds "export const <name> = {" and parses the object literal
// that follows as JSON, keeping byte offsets. Errors carry line:col.
func parseSnippet(src []byte) (*jnode, error) {
	i := bytes.Index(src, []byte("export const "))
	if i < 0 {
		return nil, errors.New("snippet: no \"export const … = {\" found")
	}
	eq := bytes.IndexByte(src[i:], '=')
	if eq < 0 {
		return nil, fmt.Errorf("snippet:%d:%d: no \"=\" after export const", lineOf(src, i), colOf(src, i))
	}
	start := i + eq + 1
	for start < len(src) && (src[start] == ' ' || src[start] == '\n' || src[start] == '\t' || src[start] == '\r') {
		start++
	}
	if start >= len(src) || src[start] != '{' {
		return nil, fmt.Errorf("snippet:%d:%d: want an object literal", lineOf(src, start), colOf(src, start))
	}
	dec := json.NewDecoder(bytes.NewReader(src[start:]))
	dec.UseNumber()
	n, err := parseValue(dec, src, start)
	if err != nil {
		var se *json.SyntaxError
		off := start
		if errors.As(err, &se) {
			off += int(se.Offset)
		} else {
			off += int(dec.InputOffset())
		}
		return nil, fmt.Errorf("snippet:%d:%d: %w", lineOf(src, off), colOf(src, off), err)
	}
	return n, nil
}

func parseValue(dec *json.Decoder, src []byte, base int) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	end := base + int(dec.InputOffset())
	switch t := tok.(type) {
	case json.Delim:
		n := &jnode{start: end - 1}
		switch t {
		case '{':
			n.kind = 'o'
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := parseValue(dec, src, base)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", k, err)
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
		case '[':
			n.kind = 'a'
			for dec.More() {
				v, err := parseValue(dec, src, base)
				if err != nil {
					return nil, fmt.Errorf("[%d]: %w", len(n.items), err)
				}
				n.items = append(n.items, v)
			}
		default:
			return nil, fmt.Errorf("unexpected %q", t)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		n.end = base + int(dec.InputOffset())
		return n, nil
	case string:
		// Find the opening quote: scan back over the literal.
		s := end - 2
		for s >= 0 && !(src[s] == '"' && backslashesBefore(src, s)%2 == 0) {
			s--
		}
		if s < 0 || end > len(src) || src[end-1] != '"' {
			return nil, errors.New("string literal not found")
		}
		return &jnode{kind: 's', str: t, start: s, end: end}, nil
	case json.Number:
		return &jnode{kind: 'n', str: t.String(), end: end}, nil
	case bool:
		return &jnode{kind: 'b', str: strconv.FormatBool(t), end: end}, nil
	case nil:
		return &jnode{kind: 'z', end: end}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func backslashesBefore(src []byte, i int) int {
	n := 0
	for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
		n++
	}
	return n
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:min(off, len(src))], []byte("\n")) + 1 }

func colOf(src []byte, off int) int {
	off = min(off, len(src))
	return off - (bytes.LastIndexByte(src[:off], '\n') + 1) + 1
}
