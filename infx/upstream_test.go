package infx

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// upstreamLedger counts what RenderAll cannot render yet on the complete
// InferenceX tree: one line per config key and reason of its unsupported
// or ambiguous points, plus the run's totals. Work that renders more
// lowers a count, which fails the test until it is recorded with -update.
const upstreamLedger = "testdata/upstream-renderall.ledger"

// TestCorpusUpstreamRenderAll renders every point of the complete
// InferenceX tree (../shared/corpus/upstream/InferenceX, 843c6254, every
// shell script included). Nothing is a render error; a missing script or
// recipe names the path; every in-scope point that is not rendered, not
// upstream-only and not missing (unsupported, ambiguous) is counted, by key
// and exact reason, in testdata/upstream-renderall.ledger with the totals:
// what is not supported yet today — srt-slurm forks without their checkout,
// AMD multi-node jobs, machine facts no runner table gives, a file of the
// container image — and nothing else.
func TestCorpusUpstreamRenderAll(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	if m, _ := filepath.Glob(filepath.Join(root, "runners", "launch_*.sh")); len(m) < 10 {
		t.Fatalf("%s: %d runners/launch_*.sh: the complete tree has them all", root, len(m))
	}
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("keys %d, points %d, rendered %d, upstream-only %d, missing %d, unsupported %d, ambiguous %d, out of scope %d, errors %d",
		s.Keys, s.Points, s.Rendered, s.UpstreamOnly, s.Missing, s.Unsupported, s.Ambiguous, s.OutOfScope, s.Errors)
	for _, f := range s.Failures {
		t.Errorf("render error: %s", f)
	}
	ledger := map[string]int{
		"total: keys": s.Keys, "total: points": s.Points, "total: rendered": s.Rendered, "total: upstream-only": s.UpstreamOnly,
		"total: missing": s.Missing, "total: unsupported": s.Unsupported, "total: ambiguous": s.Ambiguous, "total: out of scope": s.OutOfScope,
	}
	rendered := 0
	for _, k := range s.ConfigKeys {
		for _, r := range k.Results {
			switch r.Status {
			case OutcomeRendered:
				rendered++
			case OutcomeOutOfScope:
				if k.InScope {
					t.Errorf("%s (%s) row %d conc %d: out of scope, but the key is in scope", k.ConfigKey, k.Framework, r.Row, r.Concurrency)
				}
			case OutcomeUpstreamOnly:
				if !strings.Contains(r.Reason, "srt-slurm clone") {
					t.Errorf("%s row %d conc %d: upstream-only without the clone it is read from: %s", k.ConfigKey, r.Row, r.Concurrency, r.Reason)
				}
			case OutcomeMissing:
				if !strings.Contains(r.Reason, "not in the checkout") && !strings.Contains(r.Reason, "no single-node script in the checkout") {
					t.Errorf("%s row %d conc %d: missing without the path: %s", k.ConfigKey, r.Row, r.Concurrency, r.Reason)
				}
			case OutcomeUnsupported, OutcomeAmbiguous:
				ledger[fmt.Sprintf("%s %s (%s): %s", r.Status, k.ConfigKey, k.Framework, r.Reason)]++
			default:
				t.Errorf("%s (%s) row %d conc %d: %s: %s", k.ConfigKey, k.Framework, r.Row, r.Concurrency, r.Status, r.Reason)
			}
		}
	}
	if rendered == 0 || rendered != s.Rendered {
		t.Errorf("%d points rendered, the summary says %d", rendered, s.Rendered)
	}
	if s.OutOfScope == 0 {
		t.Error("no out-of-scope point (the tree has TRT-LLM and ATOM keys)")
	}
	testutil.CheckLedger(t, upstreamLedger, ledger)
}

// TestUpstreamLedgerReasons: every unsupported or ambiguous reason the
// ledger of TestCorpusUpstreamRenderAll allows is one of the kinds of
// input known not to be supported yet — since every AMD multi-node job
// and the kimik3 container patches are followed, only srt-slurm forks
// without their checkout —, so a new kind of failure can never be
// recorded into it by -update unnoticed.
func TestUpstreamLedgerReasons(t *testing.T) {
	led, err := testutil.ReadLedger(upstreamLedger)
	if err != nil {
		t.Fatal(err)
	}
	known := []string{
		// a launcher clones a fork of srt-slurm whose checkout is not given
		// (--srt-slurm-dir OWNER/NAME@REF=DIR: the note names it)
		"it renders only from its checkout, with the rules of the NVIDIA/srt-slurm release",
	}
	n := 0
	for what := range led {
		if strings.HasPrefix(what, "total: ") {
			continue
		}
		n++
		ok := false
		for _, k := range known {
			ok = ok || strings.Contains(what, k)
		}
		if !ok {
			t.Errorf("%s: an unsupported reason of no known kind: %s", upstreamLedger, what)
		}
	}
	if n == 0 {
		t.Errorf("%s lists no reason", upstreamLedger)
	}
}
