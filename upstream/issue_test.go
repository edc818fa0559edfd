package upstream

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// TestTrackingIssue: FindIssue prefers the open issue carrying the marker
// and names the others; an issue without the marker is not the tracker;
// SaveIssue writes only what differs, refuses a body over GitHub's limit
// before any request, and opens none when there is nothing to track.
func TestTrackingIssue(t *testing.T) {
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.Token = "tok-123456789"
	r := s.AddRepo("o/n", "main", map[string]string{"a": "a"})
	const marker = "<!-- tracker -->"
	r.Issues = []*fakegithub.Issue{
		{Number: 1, Title: "old", Body: marker + "\nold", State: "closed", Labels: []string{"drift"}},
		{Number: 2, Title: "cur", Body: marker + "\ncur", State: "open", Labels: []string{"drift"}},
		{Number: 3, Title: "x", Body: "no marker", State: "open", Labels: []string{"drift"}},
	}
	c, err := New(Options{APIURL: s.URL, Token: s.Token, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tr, err := c.FindIssue(ctx, "o/n", 0, "drift", marker)
	if err != nil || tr.Issue == nil || tr.Issue.Number != 2 || len(tr.Others) != 1 || tr.Others[0] != 1 {
		t.Fatalf("find: %+v %v", tr, err)
	}
	n := len(s.Requests)
	is, act, err := c.SaveIssue(ctx, "o/n", tr.Issue, "cur", marker+"\ncur", "drift", true)
	if err != nil || act != IssueUnchanged || is.Number != 2 || len(s.Requests) != n {
		t.Fatalf("unchanged: %v %v, %d requests", act, err, len(s.Requests)-n)
	}
	if _, _, err := c.SaveIssue(ctx, "o/n", tr.Issue, "cur", marker+strings.Repeat("x", MaxIssueBody), "drift", true); err == nil || len(s.Requests) != n {
		t.Fatalf("too long: %v, %d requests", err, len(s.Requests)-n)
	}
	if _, act, err := c.SaveIssue(ctx, "o/n", tr.Issue, "cur", marker+"\nnew", "drift", false); err != nil || act != IssueClosed || r.Issues[1].State != "closed" || r.Issues[1].Body != marker+"\nnew" {
		t.Fatalf("close: %v %v %+v", act, err, r.Issues[1])
	}
	if is, act, err := c.SaveIssue(ctx, "o/n", nil, "t", marker, "drift", false); err != nil || act != IssueNone || is != nil || len(r.Issues) != 3 {
		t.Fatalf("nothing to track: %v %v", act, err)
	}
	if _, err := c.FindIssue(ctx, "o/n/x", 0, "drift", marker); !errors.Is(err, ErrIssueRepo) {
		t.Errorf("bad repo: %v", err)
	}
	if _, err := c.FindIssue(ctx, "o/n", 9, "drift", marker); err == nil {
		t.Error("a missing issue number: no error")
	}
}
