package upstream

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// TestRetryRules checks which answers are retried and how long each wait is
// (GitHub REST docs, "Rate limits for the REST API").
func TestRetryRules(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		fault  fakegithub.Fault
		waits  []time.Duration
		wantOK bool
	}{
		{"5xx backoff", fakegithub.Fault{Count: 2, Status: 500}, []time.Duration{time.Second, 2 * time.Second}, true},
		{"503 Retry-After", fakegithub.Fault{Count: 1, Status: 503, Header: map[string]string{"Retry-After": "5"}}, []time.Duration{5 * time.Second}, true},
		{"429 Retry-After", fakegithub.Fault{Count: 1, Status: 429, Header: map[string]string{"Retry-After": "3"}}, []time.Duration{3 * time.Second}, true},
		{"403 Retry-After date", fakegithub.Fault{Count: 1, Status: 403, Header: map[string]string{"Retry-After": now.Add(20 * time.Second).Format(http.TimeFormat)}}, []time.Duration{20 * time.Second}, true},
		{"403 secondary, no Retry-After", fakegithub.Fault{Count: 1, Status: 403, Body: `{"message":"You have exceeded a secondary rate limit"}`}, []time.Duration{time.Minute}, true},
		{"403 primary exhausted", fakegithub.Fault{Count: 1, Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0",
			"X-RateLimit-Reset": strconv.FormatInt(now.Add(10*time.Second).Unix(), 10)}, Body: `{"message":"API rate limit exceeded"}`}, []time.Duration{11 * time.Second}, true},
		{"403 forbidden is final", fakegithub.Fault{Count: 1, Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, nil, false},
		{"404 is final", fakegithub.Fault{Count: 1, Status: 404, Body: `{"message":"Not Found"}`}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := statusFake(t)
			f := tc.fault
			f.Path = `/pulls/45111$`
			s.AddFault(&f)
			rec := &sleepRec{}
			c, err := New(Options{APIURL: s.URL, Sleep: rec.sleep, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			st, err := c.Status(context.Background(), "https://github.com/sgl-project/sglang/pull/45111")
			if (err == nil) != tc.wantOK || st.OK() != tc.wantOK {
				t.Errorf("state %s, err %v", st.State, err)
			}
			if len(rec.waits) != len(tc.waits) {
				t.Fatalf("waits %v, want %v", rec.waits, tc.waits)
			}
			for i := range tc.waits {
				if rec.waits[i] != tc.waits[i] {
					t.Errorf("waits %v, want %v", rec.waits, tc.waits)
				}
			}
		})
	}
}

// TestNetworkErrorsRetriedForReads: a connection error is retried for GETs
// (with backoff) and then reported; the state is unknown.
func TestNetworkErrorsRetriedForReads(t *testing.T) {
	rec := &sleepRec{}
	c, err := New(Options{APIURL: "http://127.0.0.1:1/", Sleep: rec.sleep, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(context.Background(), "https://github.com/a/b/pull/1")
	if err == nil || st.State != StateUnknown {
		t.Errorf("%+v %v", st, err)
	}
	if len(rec.waits) != 2 || rec.waits[0] != time.Second || rec.waits[1] != 2*time.Second {
		t.Errorf("waits %v", rec.waits)
	}
}
