package exclusions_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// classesGolden is the committed table of TestCorpusPolicyClasses.
const classesGolden = "testdata/policy-classes.golden.tsv"

// seenSetting is what the complete-tree run compared of one setting key:
// its distinct values (either side) and whether it occurs in a
// single-node key (or one whose master entry is not known).
type seenSetting struct {
	values     map[string]bool
	singleNode bool
}

// TestCorpusPolicyClasses runs the main job once on the complete trees
// (InferenceX, srt-slurm, the cookbook pages and AgentX snippets, the vLLM
// recipes; every config key, the current policy so every key is compared)
// and records every flag and env var of every compared role pair, then
// classifies each under every policy version of policies.yaml: the golden
// table testdata/policy-classes.golden.tsv (setting × policy → class and
// deciding rule; -update rewrites it). A setting whose class depends on its
// value gets one line per value. Under a single-node policy a setting seen
// only in multi-node or disaggregated keys is n/a.
func TestCorpusPolicyClasses(t *testing.T) {
	ix := testutil.UpstreamInferenceX(t)
	opt := coverage.Options{InfxDir: ix,
		CookbookDirs:   []string{testutil.SharedPath(t, "corpus/upstream/sglang-docs"), testutil.SharedPath(t, "corpus/sglang")},
		SrtSlurmDir:    testutil.SharedPath(t, "corpus/upstream/srt-slurm"),
		VLLMRecipesDir: testutil.SharedPath(t, "corpus/vllm-recipes"), AllowUnverified: true}
	ws, err := infx.Open(ix)
	if err != nil {
		t.Fatal(err)
	}
	single := map[string]bool{}
	isSingle := func(key string) bool {
		if key == "" {
			return true
		}
		s, ok := single[key]
		if !ok {
			e, err := ws.Entry(key)
			s = err != nil || !e.Multinode && !e.Disagg
			single[key] = s
		}
		return s
	}
	seen := map[string]*seenSetting{}
	opt.OnSetting = func(s compare.Seen) {
		if s.Kind != "flag" && s.Kind != "env" {
			return
		}
		ss := seen[s.Key]
		if ss == nil {
			ss = &seenSetting{values: map[string]bool{}}
			seen[s.Key] = ss
		}
		for _, v := range []*string{s.Upstream, s.InferenceX} {
			if v != nil {
				ss.values[*v] = true
			}
		}
		if isSingle(s.ConfigKey) {
			ss.singleNode = true
		}
	}
	if _, err := coverage.Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 100 {
		t.Fatalf("%d settings seen, want the complete trees' flags and env vars", len(seen))
	}
	got := classesTable(seen)
	if *testutil.Update {
		if err := os.WriteFile(classesGolden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(classesGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after checking):\n%s", filepath.Base(classesGolden), testutil.LineDiff(got, want))
	}
}

// classesTable renders the table: a header naming every policy version,
// then one line per setting (per value when the class depends on it),
// sorted; each cell "major (rule)", "informational (rule)", "n/a (scope)"
// or "counts" (a policy that counts every setting).
func classesTable(seen map[string]*seenSetting) []byte {
	pols := exclusions.Policies()
	var b strings.Builder
	b.WriteString("# Class of every flag and env var the complete-tree run compares, under each policy version\n")
	b.WriteString("# (exclusions/policies.yaml; TestCorpusPolicyClasses, -update rewrites). value \"*\": every value seen.\n")
	b.WriteString("setting\tvalue")
	for _, p := range pols {
		b.WriteString("\t" + p.ID)
	}
	b.WriteString("\n")
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cell := func(p *exclusions.PolicySpec, ss *seenSetting, key string, vals ...string) string {
		if !p.InScope(ss.singleNode) {
			return "n/a (" + p.Scope + ")"
		}
		if p.Strictness != exclusions.StrictMajor {
			return "counts"
		}
		c := p.Classify(key, vals...)
		class, rule := exclusions.StrictClassInformational, c.Rule
		if c.Major {
			class = exclusions.StrictClassMajor
		}
		if rule == "" {
			rule = "-"
		}
		return fmt.Sprintf("%s (%s)", class, rule)
	}
	for _, k := range keys {
		ss := seen[k]
		vals := make([]string, 0, len(ss.values))
		for v := range ss.values {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		// one line for the key when no policy's class depends on the value
		byValue := false
		for i := range pols {
			base := cell(&pols[i], ss, k)
			for _, v := range vals {
				if cell(&pols[i], ss, k, v) != base {
					byValue = true
				}
			}
		}
		if !byValue {
			b.WriteString(k + "\t*")
			for i := range pols {
				b.WriteString("\t" + cell(&pols[i], ss, k))
			}
			b.WriteString("\n")
			continue
		}
		for _, v := range vals {
			b.WriteString(k + "\t" + strings.NewReplacer("\t", " ", "\n", " ").Replace(v))
			for i := range pols {
				b.WriteString("\t" + cell(&pols[i], ss, k, v))
			}
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}
