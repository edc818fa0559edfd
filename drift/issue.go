package drift

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The tracking issue (`drift --issue`): one per repository, found by
// IssueMarker, its body the run's table and, hidden, the run's state — the
// previous state of the next run when no --state file is kept.

// IssueMarker is the hidden marker the tracking issue's body starts with.
const IssueMarker = "<!-- cookbook-sync-drift-tracking-issue -->"

// IssueLabel is the label the tracking issue is opened with (found by it).
const IssueLabel = "cookbook-drift"

// DefaultIssueTitle is the tracking issue's title unless one is given.
const DefaultIssueTitle = "Cookbook drift: the SGLang cookbook and vLLM recipes against InferenceX"

// stateOpen and stateClose delimit the hidden state block: the Snapshot's
// JSON, gzipped, in base64 lines of 76 characters.
const (
	stateOpen  = "<!-- cookbook-sync-drift-state v1"
	stateClose = "-->"
)

// maxStateBlock bounds the hidden state (characters): a body keeps room
// for its table.
const maxStateBlock = 40000

// IssueBody is the tracking issue's body for res under title, at most limit
// characters: the marker, the Markdown table (PrintMarkdown, its rows cut
// to fit) and the hidden state. Errors: a state too large to hide (then the
// issue cannot carry the state: keep a --state file).
func IssueBody(res *Result, title string, limit int) (string, error) {
	block, err := stateBlock(res.Snapshot())
	if err != nil {
		return "", err
	}
	head := IssueMarker + "\n## " + title + "\n\n"
	foot := "\n<sub>Written by `cookbook-sync drift`; edited in place on every run and closed when every deployment is in sync. The hidden block below is the state the next run compares with.</sub>\n\n" + block
	var table strings.Builder
	room := limit - len([]rune(head)) - len([]rune(foot))
	if room < 1000 {
		return "", fmt.Errorf("the issue body has %d characters left for its table (the state takes %d): keep the state in a state file instead", room, len(block))
	}
	if err := PrintMarkdown(&table, res, room); err != nil {
		return "", err
	}
	return head + table.String() + foot, nil
}

// stateBlock is the hidden block holding s.
func stateBlock(s *Snapshot) (string, error) {
	data, err := s.Marshal()
	if err != nil {
		return "", err
	}
	var z bytes.Buffer
	w, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(data); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	enc := base64.StdEncoding.EncodeToString(z.Bytes())
	var b strings.Builder
	b.WriteString(stateOpen + "\n")
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\n" + stateClose + "\n")
	if b.Len() > maxStateBlock {
		return "", fmt.Errorf("the state of %d deployments takes %d characters in the issue body (at most %d): keep it in a state file instead", len(s.Items), b.Len(), maxStateBlock)
	}
	return b.String(), nil
}

// ErrNoIssueState is StateFromIssue's error for a body without a state
// block (an issue written by hand, or by another tool).
var ErrNoIssueState = errors.New("the tracking issue holds no state")

// StateFromIssue reads the hidden state of a tracking issue's body. Errors:
// ErrNoIssueState; a block that does not decode or parse (never trusted:
// the caller treats the run as a first one and says so).
func StateFromIssue(body string) (*Snapshot, error) {
	_, rest, ok := strings.Cut(body, stateOpen)
	if !ok {
		return nil, ErrNoIssueState
	}
	enc, _, ok := strings.Cut(rest, stateClose)
	if !ok {
		return nil, errors.New("the tracking issue's state block is not closed")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(enc), ""))
	if err != nil {
		return nil, fmt.Errorf("the tracking issue's state: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("the tracking issue's state: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("the tracking issue's state: %w", err)
	}
	return ParseSnapshot("the tracking issue's state", data)
}

// Tracking reports whether the tracking issue stays open: something is
// drifted (new or not, accepted or not). Everything in sync (or not
// knowable: pinned commits not available) closes it.
func (res *Result) Tracking() bool {
	for _, it := range res.Items {
		if it.State.Drifted() {
			return true
		}
	}
	return false
}
