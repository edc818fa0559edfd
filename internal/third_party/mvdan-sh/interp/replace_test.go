// cookbook-sync patch: anchored replacements.

package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestAnchoredReplace: ${x/#pat/with} and ${x/%pat/with} replace the
// longest match at the start or at the end only, as bash 5.2 does
// (outputs taken from bash); with // the # or % is a character
// (InferenceX benchmarks/multi_node/amd_utils/job.slurm:
// "${MODEL_PATH/#$MODEL_DIR//models}").
func TestAnchoredReplace(t *testing.T) {
	src := `V=abc; M=/models/x; D=/models; E=; echo "${V/#a/P}|${V/%c/S}|${V/#*//P}|${V//#a/P}|${V/#/P}|${V/%/S}|${V/\#a/P}|${M/#$D//mnt}|${V/%?/S}|${V/#b/P}|${V/%b/S}|${E/#/P}|${V/#a*/}|${V/%"c"/S}"`
	want := "Pbc|abS|/P|abc|Pabc|abcS|abc|/mnt/x|abS|abc|abc|P||abS\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "r.sh")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r, err := New(StdIO(nil, &buf, &buf))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if got := buf.String(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
