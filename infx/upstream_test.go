package infx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// upstreamInfx is the complete InferenceX tree of ../shared (843c6254).
// INFERENCEX_UPSTREAM_DIR overrides it (a full checkout at 843c6254, e.g.
// one made from the library's mirror, when ../shared's copy lacks files).
func upstreamInfx(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("INFERENCEX_UPSTREAM_DIR"); d != "" {
		return d
	}
	d := filepath.Join("..", "..", "shared", "corpus", "upstream", "InferenceX")
	if _, err := os.Stat(filepath.Join("..", "..", "shared")); err != nil {
		t.Skip("SKIPPED: ../shared is absent: the upstream corpus test did not run")
	}
	return d
}

// hasScripts reports whether the tree holds the runner launchers and
// benchmark scripts (some copies of ../shared drop *.sh files).
func hasScripts(root string) bool {
	m, _ := filepath.Glob(filepath.Join(root, "runners", "launch_*.sh"))
	return len(m) > 0
}

// checkedFrameworks are the frameworks issue 8 requires rendered wherever
// their script or recipe is in the tree.
var checkedFrameworks = map[string]bool{"sglang": true, "vllm": true, "dynamo-sglang": true, "dynamo-vllm": true}

// knownHardwareGaps are the keys of InferenceX 843c6254 whose scripts read a
// machine fact no documented runner table gives (so the point is
// unsupported, never guessed), with the probe named in the reason: the AMD
// MEC firmware version (`rocm-smi --showfw`, which decides
// HSA_NO_SCRATCH_RECLAIM) and the free size of /dev/shm.
var knownHardwareGaps = map[string]string{
	"dsr1-fp8-mi300x-sglang":                "dsr1_fp8_mi300x.sh:28:10: rocm-smi --showfw in a value the script uses",
	"kimik3-fp4-mi355x-vllm-agentic-mtp":    "kimik3_fp4_mi355x_mtp.sh:95:15: rocm-smi --showfw in a value the script uses",
	"minimaxm3-fp4-mi355x-vllm-agentic-mtp": "minimaxm3_fp4_mi355x_mtp.sh:104:23: df -BG --output=avail /dev/shm in a value the script uses",
}

// TestCorpusUpstreamRenderAll renders every point of the complete
// InferenceX tree. Every point of an sglang, vllm, dynamo-sglang or
// dynamo-vllm key whose script or recipe is in the tree is rendered: the
// only other outcomes allowed are "not in the tree" (upstream-only, a
// missing recipe or script, with the path). Nothing is an error;
// out-of-scope frameworks are not rendered.
func TestCorpusUpstreamRenderAll(t *testing.T) {
	root := upstreamInfx(t)
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	scripts := hasScripts(root)
	if !scripts {
		t.Logf("LOUD: %s has no runners/launch_*.sh (this copy of the tree dropped its *.sh files): single-node points can only come out as missing; set INFERENCEX_UPSTREAM_DIR to a full checkout to render them", root)
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
	rendered := 0
	for _, k := range s.ConfigKeys {
		if !checkedFrameworks[k.Framework] {
			continue
		}
		for _, r := range k.Results {
			switch r.Status {
			case OutcomeRendered:
				rendered++
			case OutcomeUpstreamOnly:
			case OutcomeMissing:
				if !strings.Contains(r.Reason, "not in the checkout") && !strings.Contains(r.Reason, "no single-node script in the checkout") {
					t.Errorf("%s row %d conc %d: missing without the path: %s", k.ConfigKey, r.Row, r.Concurrency, r.Reason)
				}
			case OutcomeUnsupported:
				if why, ok := knownHardwareGaps[k.ConfigKey]; ok && strings.Contains(r.Reason, why) {
					continue
				}
				t.Errorf("%s (%s) row %d conc %d: %s: %s", k.ConfigKey, k.Framework, r.Row, r.Concurrency, r.Status, r.Reason)
			default:
				t.Errorf("%s (%s) row %d conc %d: %s: %s", k.ConfigKey, k.Framework, r.Row, r.Concurrency, r.Status, r.Reason)
			}
		}
	}
	if rendered == 0 {
		t.Error("no sglang/vllm/dynamo point rendered")
	}
	if s.OutOfScope == 0 {
		t.Error("no out-of-scope point (the tree has TRT-LLM and ATOM keys)")
	}
}
