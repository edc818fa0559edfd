package srtslurm

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// pairsRecipe is one (recipe, selector) cited by ../shared/corpus/pairs/PAIRS.tsv.
type pairsRecipe struct{ path, selector string }

// readPairs returns the distinct YAML recipes of PAIRS.tsv (columns
// recipe_path and override_selector) in file order, and the cited ones
// absent from the pairs tree.
func readPairs(t testing.TB, dir string) (present, absent []pairsRecipe) {
	f, err := os.Open(filepath.Join(dir, "PAIRS.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var col map[string]int
	seen := map[pairsRecipe]bool{}
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if col == nil {
			col = map[string]int{}
			for i, c := range fields {
				col[c] = i
			}
			continue
		}
		p := pairsRecipe{fields[col["recipe_path"]], fields[col["override_selector"]]}
		if !strings.HasSuffix(p.path, ".yaml") || seen[p] {
			continue
		}
		seen[p] = true
		if _, err := os.Stat(filepath.Join(dir, "inferencex", p.path)); err != nil {
			absent = append(absent, p)
			continue
		}
		present = append(present, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return present, absent
}

// TestCorpusPairs renders every YAML recipe cited in
// ../shared/corpus/pairs/PAIRS.tsv that exists under pairs/inferencex, for
// its selector, with the default srt-slurm version.
func TestCorpusPairs(t *testing.T) {
	dir := testutil.SharedPath(t, "corpus/pairs")
	present, absent := readPairs(t, dir)
	if len(present) == 0 {
		t.Fatal("no recipes found")
	}
	ok2 := 0
	for _, p := range present {
		r, err := Load(filepath.Join(dir, "inferencex", p.path))
		if err != nil {
			t.Errorf("%s: %v", p.path, err)
			continue
		}
		out, err := r.Render(p.selector, Options{})
		if err != nil {
			t.Errorf("%s:%s: %v", p.path, p.selector, err)
			continue
		}
		if len(out.Deployment.Workers(launch.RoleAgg))+len(out.Deployment.Workers(launch.RolePrefill)) == 0 {
			t.Errorf("%s:%s: no workers rendered", p.path, p.selector)
		}
		ok2++
	}
	t.Logf("pairs: %d (recipe, selector) rendered of %d present; %d cited YAML recipes absent from the pairs tree", ok2, len(present), len(absent))
}

// TestCorpusNewLayoutBundle: the newer-layout bundle (schema 2, base +
// override_*) with override_tp4_tp4_c8 and override_tp2_tp2_c72 gives the
// same per-role commands as the old layout's flat schema-1 files for the
// same benchmark points (../shared/spec/inferencex.md (b), real example
// pair 2). Env may differ only in SGLANG_SIMULATE_ACC_*, which the new
// launcher injects instead of the recipe.
func TestCorpusNewLayoutBundle(t *testing.T) {
	root := testutil.SharedPath(t, "corpus/inferencex")
	bundle := filepath.Join(root, "_newer-layout/inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp4/agentx/disagg-variants.yaml")
	flatDir := filepath.Join(root, "benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp4/agentic")
	br, err := Load(bundle)
	if err != nil {
		t.Fatal(err)
	}
	for sel, glob := range map[string]string{
		"override_tp4_tp4_c8":  "disagg-gb300-1p1d-tp4-tp4-c8-*.yaml",
		"override_tp2_tp2_c72": "disagg-gb300-1p1d-tp2-tp2-c72-*.yaml",
	} {
		t.Run(sel, func(t *testing.T) {
			m, _ := filepath.Glob(filepath.Join(flatDir, glob))
			if len(m) != 1 {
				t.Fatalf("flat file %s: %d matches", glob, len(m))
			}
			fr, err := Load(m[0])
			if err != nil {
				t.Fatal(err)
			}
			want, err := fr.Render("", Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := br.Render(sel, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Schema != 2 || want.Schema != 1 {
				t.Errorf("schemas %d/%d, want 2/1", got.Schema, want.Schema)
			}
			for _, role := range []launch.Role{launch.RolePrefill, launch.RoleDecode} {
				g, w := got.Deployment.Workers(role), want.Deployment.Workers(role)
				if len(g) != 1 || len(w) != 1 {
					t.Fatalf("%s: %d/%d worker blocks", role, len(g), len(w))
				}
				ga, wa := strings.Join(g[0].Argv(), " "), strings.Join(w[0].Argv(), " ")
				if ga != wa {
					t.Errorf("%s argv:\n got %s\nwant %s", role, ga, wa)
				}
				if g[0].Workers != w[0].Workers || g[0].NodesPerWorker != w[0].NodesPerWorker || g[0].GPUsPerNode != w[0].GPUsPerNode {
					t.Errorf("%s topology: got %d×%d nodes×%d GPUs, want %d×%d×%d", role,
						g[0].Workers, g[0].NodesPerWorker, g[0].GPUsPerNode, w[0].Workers, w[0].NodesPerWorker, w[0].GPUsPerNode)
				}
				envOf := func(p launch.Process) string {
					var s []string
					for _, e := range p.Env {
						if !strings.HasPrefix(e.Name, "SGLANG_SIMULATE_ACC_") {
							s = append(s, e.Name+"="+e.Value)
						}
					}
					sort.Strings(s)
					return strings.Join(s, "\n")
				}
				if envOf(g[0]) != envOf(w[0]) {
					t.Logf("%s env differs beyond SGLANG_SIMULATE_ACC_* (bundle revision 0f3de2c3):\n got %s\nwant %s", role, envOf(g[0]), envOf(w[0]))
				}
				// every recipe flag of the bundle names its override or base path
				for _, a := range g[0].Args {
					if a.Origin.Kind == launch.OriginRecipe && !strings.HasPrefix(a.Origin.Path, "base.") && !strings.HasPrefix(a.Origin.Path, sel+".") {
						t.Errorf("%s %s: origin %q", role, a.Flag, a.Origin.Path)
					}
				}
			}
		})
	}
}

// BenchmarkRenderPairs loads and renders every YAML recipe cited in
// ../shared/corpus/pairs/PAIRS.tsv (one op = the whole set).
func BenchmarkRenderPairs(b *testing.B) {
	dir := testutil.SharedPath(b, "corpus/pairs")
	present, _ := readPairs(b, dir)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range present {
			r, err := Load(filepath.Join(dir, "inferencex", p.path))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Render(p.selector, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCorpusAllRecipes renders every srt-slurm recipe in
// ../shared/corpus/inferencex (both layouts, plus the upstream NVIDIA
// copies), ../shared/corpus/srt-slurm and ../shared/corpus/pairs/inferencex,
// for every selector, with the
// default version and with v1.0.31 and sa-submission-q2-2026.
func TestCorpusAllRecipes(t *testing.T) {
	root := testutil.SharedPath(t, "corpus")
	var files []string
	for _, sub := range []string{"inferencex", "srt-slurm", "pairs/inferencex"} {
		filepath.WalkDir(filepath.Join(root, sub), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") &&
				(strings.Contains(p, "srt-slurm-recipes/") || strings.Contains(p, "/recipes/")) {
				files = append(files, p)
			}
			return nil
		})
	}
	n, variants := 0, 0
	for _, f := range files {
		r, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		n++
		for _, sel := range r.Selectors() {
			for _, v := range []string{"", "v1.0.31", "sa-submission-q2-2026"} {
				out, err := r.Render(sel, Options{Version: v})
				if err != nil {
					if v != "" && (strings.Contains(err.Error(), "dynamo.wheel") || strings.Contains(err.Error(), "is not in srt-slurm")) {
						continue // the recipe needs a newer srt-slurm (fails there too)
					}
					t.Errorf("%s:%s (%s): %v", f, sel, v, err)
					continue
				}
				if v == "" {
					variants++
				}
				_ = out.Text()
			}
		}
	}
	t.Logf("%d recipe files, %d variants rendered", n, variants)
}

// TestCorpusVLLMDataParallel checks the vLLM DP layouts and port counters
// against the values ../shared/spec/srt-slurm.md §4.2 and §7 give for
// vllm/deepseek-v4/8k1k/disagg-gb200-low-latency.yaml (prefill DP8×TP1 on
// node1–node2, decode TP8 on node3–node4, node0 dedicated to etcd/NATS).
func TestCorpusVLLMDataParallel(t *testing.T) {
	dir := testutil.SharedPath(t, "corpus/srt-slurm")
	r, err := Load(filepath.Join(dir, "benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/8k1k/disagg-gb200-low-latency.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type proc struct{ kv, nixl, dev, flags string }
	collect := func(v string) (pre, dec []proc) {
		out, err := r.Render("", Options{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range out.Steps {
			if s.Kind != launch.KindWorker {
				continue
			}
			kv, _ := launch.LookupEnv(s.Env, "DYN_VLLM_KV_EVENT_PORT")
			nx, _ := launch.LookupEnv(s.Env, "VLLM_NIXL_SIDE_CHANNEL_PORT")
			dev, _ := launch.Lookup(s.Args, "--device-ids")
			p := proc{kv, nx, strings.Join(dev, ","), strings.Join(s.Argv(), " ")}
			if s.Role == launch.RolePrefill {
				pre = append(pre, p)
			} else {
				dec = append(dec, p)
			}
		}
		return
	}
	pre, dec := collect("")
	if len(pre) != 2 || pre[0].kv != "5200" || pre[1].kv != "5204" || pre[0].nixl != "5400" || pre[1].nixl != "5400" {
		t.Errorf("main prefill %+v", pre)
	}
	if len(dec) != 2 || dec[0].kv != "5208" || dec[0].nixl != "5408" || dec[1].kv != "5209" || dec[1].nixl != "5409" {
		t.Errorf("main decode %+v", dec)
	}
	if len(pre) > 0 && !strings.Contains(pre[0].flags, "--device-ids 0,1,2,3 --data-parallel-size-local 4 --data-parallel-start-rank 0 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 8400 --data-parallel-hybrid-lb") {
		t.Errorf("main prefill flags %s", pre[0].flags)
	}
	pre, dec = collect("v1.0.31")
	if len(pre) != 8 {
		t.Fatalf("v1.0.31: %d prefill processes, want 8 (one per GPU)", len(pre))
	}
	for i, p := range pre {
		if p.kv != strconv.Itoa(5200+i) || p.nixl != "5400" || p.dev != strconv.Itoa(i%4) {
			t.Errorf("v1.0.31 prefill %d: %+v", i, p)
		}
	}
	if !strings.Contains(pre[0].flags, "--disaggregation-mode prefill --device-ids 0 --data-parallel-rank 0 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 8400 --request-plane tcp") {
		t.Errorf("v1.0.31 prefill flags %s", pre[0].flags)
	}
	if len(dec) != 2 || dec[0].kv != "5208" || dec[0].nixl != "5408" || dec[1].kv != "5209" || dec[1].nixl != "5409" {
		t.Errorf("v1.0.31 decode %+v", dec)
	}
}
