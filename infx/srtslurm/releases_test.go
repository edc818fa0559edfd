package srtslurm

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlFields maps the yaml names of profile's fields (and nginxTpl's,
// as "nginx.<name>") to their values in p.
func yamlFields(p profile) map[string]any {
	out := map[string]any{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			tag := v.Type().Field(i).Tag.Get("yaml")
			if tag == "" {
				continue
			}
			if v.Field(i).Kind() == reflect.Struct {
				walk(prefix+tag+".", v.Field(i))
				continue
			}
			out[prefix+tag] = v.Field(i).Interface()
		}
	}
	walk("", reflect.ValueOf(p))
	return out
}

// TestReleaseTableIsTheSource: every profile is the fold of releases.yaml,
// re-read here generically (a map per entry, no profile type involved):
// the first release from all fields off, each later one from the one above
// it, each branch from its base. Every stated change really changes a
// value, every field the table can state is a field the renderer reads,
// and Newest is the last release of the file.
func TestReleaseTableIsTheSource(t *testing.T) {
	var doc struct {
		Releases []map[string]any `yaml:"releases"`
		Branches []map[string]any `yaml:"branches"`
	}
	if err := yaml.Unmarshal(releasesYAML, &doc); err != nil {
		t.Fatal(err)
	}
	zero := yamlFields(profile{})
	apply := func(prev map[string]any, e map[string]any) map[string]any {
		next := map[string]any{}
		for k, v := range prev {
			next[k] = v
		}
		changes, _ := e["changes"].(map[string]any)
		for k, v := range changes {
			keys := map[string]any{k: v}
			if sub, ok := v.(map[string]any); ok {
				keys = map[string]any{}
				for sk, sv := range sub {
					keys[k+"."+sk] = sv
				}
			}
			for key, val := range keys {
				if _, ok := zero[key]; !ok {
					t.Errorf("%v: %s is not a profile field", e["ref"], key)
				}
				if reflect.DeepEqual(prev[key], val) {
					t.Errorf("%v: %s: %v restates the predecessor's value", e["ref"], key, val)
				}
				next[key] = val
			}
		}
		return next
	}
	check := func(ref string, want map[string]any) {
		t.Helper()
		p, err := lookupProfile(ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if p.name != ref {
			t.Errorf("%s renders as %q", ref, p.name)
		}
		if got := yamlFields(p); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: profile %v\nwant (the fold of releases.yaml) %v", ref, got, want)
		}
	}
	folded := map[string]map[string]any{}
	prev := zero
	for _, e := range doc.Releases {
		ref := e["ref"].(string)
		prev = apply(prev, e)
		folded[ref] = prev
		check(ref, prev)
		if src, _ := e["source"].(string); !strings.HasPrefix(src, "NVIDIA/srt-slurm ") {
			t.Errorf("%s: source %q does not name NVIDIA/srt-slurm", ref, src)
		}
	}
	for _, e := range doc.Branches {
		ref := e["ref"].(string)
		base, ok := folded[e["base"].(string)]
		if !ok {
			t.Fatalf("%s: base %v", ref, e["base"])
		}
		folded[ref] = apply(base, e)
		check(ref, folded[ref])
	}
	last := doc.Releases[len(doc.Releases)-1]["ref"].(string)
	if Newest() != last {
		t.Errorf("Newest() = %q, the table's last release is %q", Newest(), last)
	}
	for _, ref := range []string{"", "main", TagCommit(last)[:8]} {
		if p, err := lookupProfile(ref); err != nil || p.name != last || !reflect.DeepEqual(yamlFields(p), folded[last]) {
			t.Errorf("lookupProfile(%q) = %q, %v; want the newest release %s", ref, p.name, err, last)
		}
	}
	// every field the table states is one the renderer has a use for:
	// a field no release or branch ever sets would be dead
	set := map[string]bool{}
	for _, f := range folded {
		for k, v := range f {
			if !reflect.DeepEqual(v, zero[k]) {
				set[k] = true
			}
		}
	}
	for k := range zero {
		if !set[k] {
			t.Errorf("profile field %s is set by no release", k)
		}
	}
}

// TestReleaseValues: real values of a few refs, as the spec §0 table
// states them.
func TestReleaseValues(t *testing.T) {
	get := func(ref string) profile {
		t.Helper()
		p, err := lookupProfile(ref)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	v45, v58, v68 := get("v1.0.45"), get("v1.0.58"), get("v1.0.68")
	if v45.NCCLPort || !v58.NCCLPort || v45.DPPerNodeDefault || !v68.DPPerNodeDefault || !v45.DirectVLLM || v45.Mooncake != 4 ||
		v45.HTTPBase != 6100 || v45.HTTPStep != 32 || v45.DefaultRP != "tcp" || !v45.Nginx.Keepalive || v45.NumaField || !v68.NumaField {
		t.Errorf("v1.0.45 %+v\nv1.0.58 %+v\nv1.0.68 %+v", v45, v58, v68)
	}
	v25, v26, v28, v31 := get("v1.0.25"), get("v1.0.26"), get("v1.0.28"), get("v1.0.31")
	if !v25.PublishDefault || v26.PublishDefault || v25.Mooncake != 2 || v28.Mooncake != 3 || v28.VLLMPortUnset || !v31.VLLMPortUnset ||
		!v31.DPLaunchSelector || v31.DirectVLLM || v25.Nginx.Keepalive || !v25.Nginx.Affinity {
		t.Errorf("v1.0.25 %+v\nv1.0.26 %+v\nv1.0.28 %+v\nv1.0.31 %+v", v25, v26, v28, v31)
	}
	sa, af, a9, c1 := get("sa-submission"), get("aflowers"), get("a98738de"), get("c1fb6989")
	if sa.name != "sa-submission-q2-2026" || sa.HTTPBase != 30000 || sa.HTTPStep != 1 || sa.DefaultRP != "nats" || !sa.RPFlag ||
		sa.PopModelPath || sa.Flock || sa.Mooncake != 0 || sa.NatsPayloadField || sa.Nginx != (nginxTpl{}) {
		t.Errorf("sa-submission %+v", sa)
	}
	if af.name != "aflowers/vllm-gb200-v0.20.0" || af.HTTPStep != 1000 || af.RPFlag || !af.EnvRPNats || !af.DPRPCFromRecipe ||
		!af.AflowersDotted || af.NIXLBlock || !af.PopModelPath || af.DPRPCBase != 13345 || af.SysPortBase != 8081 {
		t.Errorf("aflowers %+v", af)
	}
	if a9.Nginx != (nginxTpl{Ulimit: true, Affinity: true}) || c1.Nginx != (nginxTpl{Ulimit: true}) || a9.Mooncake != 1 ||
		a9.RPFlag || !a9.EnvRPNats || a9.DeviceIDs || a9.TrtServe || a9.PublishDefault {
		t.Errorf("a98738de %+v\nc1fb6989 %+v", a9, c1)
	}
	if got := get("c180328"); got.name != "c180328" || !reflect.DeepEqual(yamlFields(got), yamlFields(get("v1.0.38"))) {
		t.Errorf("c180328 (the commit of v1.0.38) = %+v", got)
	}
	if n, err := ProfileFor("c180328b98c3793ca84a1e24a030f90545eb7d5d"); n != "v1.0.38" || err != nil {
		t.Errorf("ProfileFor(c180328b…) = %q, %v", n, err)
	}
	if n, err := ProfileFor("a98738de9b2233459b5456e9ed71af09ce893f92"); n != "a98738de" || err != nil {
		t.Errorf("ProfileFor(a98738de…) = %q, %v", n, err)
	}
	if got, want := KnownVersions(), []string{"main", "sa-submission-q2-2026", "aflowers/vllm-gb200-v0.20.0", "a98738de", "c1fb6989",
		"c1b6b5c9", "c180328b", "04e87fcc", "217f9438"}; !slices.Equal(got, want) {
		t.Errorf("KnownVersions() = %v, want %v", got, want)
	}
	known := "(known: v1.0.25 … " + Newest() + ", [main sa-submission-q2-2026 aflowers/vllm-gb200-v0.20.0 a98738de c1fb6989 c1b6b5c9 c180328b 04e87fcc 217f9438])"
	for v, want := range map[string]string{
		"v1.0.24":  `srt-slurm version "v1.0.24" is not covered ` + known,
		"v1.0.6":   `srt-slurm version "v1.0.6" is not covered ` + known,
		"de59739b": `unknown srt-slurm version "de59739b" ` + known,
		"a98738d":  `unknown srt-slurm version "a98738d" ` + known,
	} {
		if err := CheckVersion(v); err == nil || err.Error() != want {
			t.Errorf("CheckVersion(%s) = %v, want %s", v, err, want)
		}
	}
	if TagCommit("v1.0.68") != "c88ef731636890ff6385a783e152c1790e15b194" || TagCommit("a98738de") != "" || TagCommit("main") != "" {
		t.Errorf("TagCommit")
	}
	// the releases the error messages name as adding a field
	for _, c := range []struct {
		has  func(profile) bool
		want string
	}{
		{func(p profile) bool { return p.CargoPatches }, "cb651682, v1.0.36"},
		{func(p profile) bool { return p.Mooncake >= 4 }, "607e01b8, v1.0.35"},
		{func(p profile) bool { return p.NumaField }, "c8d6fd17, v1.0.64"},
		{func(p profile) bool { return p.DirectVLLM }, "c180328b, v1.0.38"},
		{func(profile) bool { return false }, "no release"},
	} {
		if got := addedIn(c.has); got != c.want {
			t.Errorf("addedIn = %q, want %q", got, c.want)
		}
	}
}

// TestAddARelease: a release is one entry. Appending v1.0.69 (its commit,
// its source, one change) to the embedded table makes it the newest, with
// v1.0.68's profile plus that change; the branches do not move.
func TestAddARelease(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal(releasesYAML, &root); err != nil {
		t.Fatal(err)
	}
	var entry yaml.Node
	if err := yaml.Unmarshal([]byte("ref: v1.0.69\ncommit: 0123456789abcdef0123456789abcdef01234567\n"+
		"source: NVIDIA/srt-slurm src/srtctl/backends/sglang.py at v1.0.69\nchanges:\n  http_port_step: 64\n"), &entry); err != nil {
		t.Fatal(err)
	}
	top := root.Content[0]
	for i := 0; i < len(top.Content); i += 2 {
		if top.Content[i].Value == "releases" {
			top.Content[i+1].Content = append(top.Content[i+1].Content, entry.Content[0])
		}
	}
	data, err := yaml.Marshal(&root)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := parseReleases("test", data)
	if err != nil {
		t.Fatal(err)
	}
	old := loadReleases()
	if tab.newest().Ref != "v1.0.69" || old.newest().Ref == "v1.0.69" {
		t.Fatalf("newest %s", tab.newest().Ref)
	}
	want := old.newest().prof
	want.HTTPStep, want.name = 64, "v1.0.69"
	if !reflect.DeepEqual(tab.newest().prof, want) {
		t.Errorf("v1.0.69 = %+v, want %+v", tab.newest().prof, want)
	}
	olds := append(slices.Clone(old.releases), old.branches...)
	news := append(slices.Clone(tab.releases[:len(old.releases)]), tab.branches...)
	for i, r := range olds {
		n := news[i]
		if n.Ref != r.Ref || n.Commit != r.Commit || !reflect.DeepEqual(n.prof, r.prof) {
			t.Errorf("adding a release moved %s: %+v", r.Ref, n.prof)
		}
	}
}

// TestReleaseTableErrors: what parseReleases refuses.
func TestReleaseTableErrors(t *testing.T) {
	const c1 = "0123456789abcdef0123456789abcdef01234567"
	head := "releases:\n- ref: v1.0.1\n  commit: " + c1 + "\n  source: NVIDIA/srt-slurm x at v1.0.1\n"
	for doc, want := range map[string]string{
		head + "  changes:\n    nccl_portt: true\n":                                                    "field nccl_portt not found",
		head + "  changes:\n    nccl_port: false\n":                                                    "no field differs from the predecessor",
		head + "  colour: red\n":                                                                       "field colour not found",
		"releases:\n- ref: v1.0.1\n  commit: " + c1 + "\n  source: x\n":                                "needs ref, commit",
		head + "- ref: 01234567\n  commit: " + c1 + "\n  source: NVIDIA/srt-slurm x at 01234567\n":     "not named by its tag",
		head + "- ref: deadbeef\n  commit: " + c1 + "\n  source: NVIDIA/srt-slurm x at deadbeef\n":     "named by its tag or its 8-digit commit",
		head + "- ref: v1.0.1\n  commit: " + c1 + "\n  source: NVIDIA/srt-slurm x at v1.0.1\n":         `name "v1.0.1" used twice`,
		head + "branches:\n- ref: b\n  base: v9\n  commit: " + c1 + "\n  source: NVIDIA/srt-slurm b\n": `base "v9" is not a release`,
		"releases: []\n": "no releases",
	} {
		if _, err := parseReleases("t", []byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s\n→ %v, want %q", doc, err, want)
		}
	}
}
