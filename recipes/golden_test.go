package recipes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recipesRoot is the vllm-recipes corpus root,
// ../shared/corpus/vllm-recipes (testutil.SharedPath).
func recipesRoot(t testing.TB) string {
	t.Helper()
	return testutil.SharedPath(t, "corpus/vllm-recipes")
}

type kvPair struct {
	k string
	v json.RawMessage
}

// orderedObject decodes a JSON object keeping key order.
func orderedObject(raw json.RawMessage) ([]kvPair, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object: %s", raw)
	}
	var out []kvPair
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, kvPair{k: kt.(string), v: v})
	}
	return out, nil
}

func envJSON(env []EnvEntry) string {
	var parts []string
	for _, e := range env {
		k, _ := json.Marshal(e.Name)
		var v []byte
		switch e.Type {
		case "string":
			v, _ = json.Marshal(e.Value)
		default:
			v = []byte(e.Value)
		}
		parts = append(parts, string(k)+":"+string(v))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func envOracle(raw json.RawMessage) (string, error) {
	ps, err := orderedObject(raw)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, p := range ps {
		k, _ := json.Marshal(p.k)
		var c bytes.Buffer
		if err := json.Compact(&c, p.v); err != nil {
			return "", err
		}
		parts = append(parts, string(k)+":"+c.String())
	}
	return "{" + strings.Join(parts, ",") + "}", nil
}

func argvJSON(rc *RoleCommand) string {
	b, _ := json.Marshal(rc.Texts())
	return string(b)
}

func compactJSON(raw json.RawMessage) string {
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return string(raw)
	}
	// Re-marshal through []string to normalise escapes like \u003c.
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		b, _ := json.Marshal(ss)
		return string(b)
	}
	return c.String()
}

// checkRendering compares one generated JSON rendering with ours; it
// returns the mismatches.
func checkRendering(doc map[string]json.RawMessage, r *Rendering) []string {
	var bad []string
	cmp := func(what, want, got string) {
		if want != got {
			bad = append(bad, fmt.Sprintf("%s:\n  want %s\n  got  %s", what, want, got))
		}
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(doc[k], &s)
		return s
	}
	cmp("hardware", str("hardware"), r.Hardware)
	cmp("strategy", str("strategy"), r.Strategy)
	cmp("variant", str("variant"), r.Variant)
	cmp("deploy_type", str("deploy_type"), r.DeployType)
	cmp("node_count", string(doc["node_count"]), fmt.Sprint(r.NodeCount))
	cmp("docker_image", str("docker_image"), r.DockerImage)
	if w, err := envOracle(doc["env"]); err != nil {
		bad = append(bad, "env: "+err.Error())
	} else {
		cmp("env", w, envJSON(r.Env))
	}
	role := func(name string) *RoleCommand {
		if rc := r.Role(name); rc != nil {
			return rc
		}
		return &RoleCommand{}
	}
	workers := func() []string {
		var out []string
		for i := range r.Roles {
			if r.Roles[i].Name == "worker" {
				out = append(out, argvJSON(&r.Roles[i]))
			}
		}
		return out
	}
	switch r.DeployType {
	case "single_node":
		cmp("argv", compactJSON(doc["argv"]), argvJSON(role("single")))
		cmp("command", str("command"), role("single").Command())
	case "multi_node":
		cmp("head_argv", compactJSON(doc["head_argv"]), argvJSON(role("head")))
		cmp("head_command", str("head_command"), role("head").Command())
		var ws []json.RawMessage
		_ = json.Unmarshal(doc["worker_argvs"], &ws)
		got := workers()
		cmp("len(worker_argvs)", fmt.Sprint(len(ws)), fmt.Sprint(len(got)))
		for i := range ws {
			if i < len(got) {
				cmp(fmt.Sprintf("worker_argvs[%d]", i), compactJSON(ws[i]), got[i])
			}
		}
	case "pd_cluster":
		for _, name := range []string{"prefill", "decode"} {
			var obj map[string]json.RawMessage
			_ = json.Unmarshal(doc[name], &obj)
			rc := role(name)
			cmp(name+".argv", compactJSON(obj["argv"]), argvJSON(rc))
			var command string
			_ = json.Unmarshal(obj["command"], &command)
			cmp(name+".command", command, rc.Command())
			if w, err := envOracle(obj["env"]); err != nil {
				bad = append(bad, name+".env: "+err.Error())
			} else {
				cmp(name+".env", w, envJSON(rc.Env))
			}
			var meta struct {
				Nodes, TP, DPLocal, DPSize, PoolGpus int
				Parallelism                          string
			}
			_ = json.Unmarshal(doc[name], &meta)
			cmp(name+".meta", fmt.Sprintf("%d %s %d %d %d %d", meta.Nodes, meta.Parallelism, meta.TP, meta.DPLocal, meta.DPSize, meta.PoolGpus),
				fmt.Sprintf("%d %s %d %d %d %d", rc.Nodes, rc.Parallelism, rc.TP, rc.DPLocal, rc.DPSize, rc.PoolGPUs))
		}
		var router struct{ Command string }
		_ = json.Unmarshal(doc["router"], &router)
		cmp("router.command", router.Command, r.Router)
	case "kv_store_lb":
		cmp("serving_strategy", str("serving_strategy"), r.ServingStrategy)
		cmp("instances", string(doc["instances"]), fmt.Sprint(r.Instances))
		head := role("single")
		if r.Role("head") != nil {
			head = role("head")
		}
		cmp("vllm_argv", compactJSON(doc["vllm_argv"]), argvJSON(head))
		var ws []json.RawMessage
		_ = json.Unmarshal(doc["vllm_worker_argvs"], &ws)
		got := workers()
		cmp("len(vllm_worker_argvs)", fmt.Sprint(len(ws)), fmt.Sprint(len(got)))
		for i := range ws {
			if i < len(got) {
				cmp(fmt.Sprintf("vllm_worker_argvs[%d]", i), compactJSON(ws[i]), got[i])
			}
		}
		var router struct{ Command string }
		_ = json.Unmarshal(doc["router"], &router)
		cmp("router.command", router.Command, r.Router)
		var master, store struct{ Command string }
		_ = json.Unmarshal(doc["master"], &master)
		_ = json.Unmarshal(doc["store"], &store)
		cmp("master.command", master.Command, r.Master)
		cmp("store.command", store.Command, r.Store)
	}
	return bad
}

// TestGoldenVLLMGenerated checks every JSON rendering under
// <root>/_generated/public/ whose model YAML is in <root> against our
// command synthesis: equal argv and env for every role.
func TestGoldenVLLMGenerated(t *testing.T) {
	root := recipesRoot(t)
	pub := filepath.Join(root, "_generated", "public")
	site, err := LoadSite(root)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*Rendering{}
	treeOf := map[string]bool{}
	for _, r := range site.Renderings() {
		treeOf[r.Tree] = true
		for _, p := range r.Paths {
			byPath[p] = r
		}
	}
	// A tree's recipe is in root when <tree>.json names it (hf_id, or
	// meta.derived_from for a promoted variant checkpoint) and
	// models/<id>.yaml exists; a tree without a document falls back to our
	// own enumeration.
	known := map[string]bool{}
	for _, tr := range site.trees() {
		known[tr.id] = true
	}
	inRoot := map[string]bool{}
	treeInRoot := func(tree string) bool {
		if v, ok := inRoot[tree]; ok {
			return v
		}
		v := known[tree] || site.recipeIDs[tree]
		if data, err := os.ReadFile(filepath.Join(pub, filepath.FromSlash(tree)+".json")); err == nil {
			var doc struct {
				HFID string `json:"hf_id"`
				Meta struct {
					DerivedFrom string `json:"derived_from"`
				} `json:"meta"`
			}
			if json.Unmarshal(data, &doc) == nil && doc.HFID != "" {
				id := doc.HFID
				if doc.Meta.DerivedFrom != "" {
					id = doc.Meta.DerivedFrom
				}
				_, err := os.Stat(filepath.Join(root, "models", filepath.FromSlash(id)+".yaml"))
				v = err == nil
			}
		}
		inRoot[tree] = v
		return v
	}
	// Files present per tree, and the hardware ids each tree has files for
	// (the corpus keeps a hardware cut), for the reverse check below.
	present := map[string]bool{}
	treeHW := map[string]map[string]bool{}
	var files, checked, passed, skipped int
	err = filepath.WalkDir(pub, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		files++
		rel, _ := filepath.Rel(pub, p)
		rel = filepath.ToSlash(rel)
		parts := strings.Split(strings.TrimSuffix(rel, ".json"), "/")
		if len(parts) < 2 || parts[0] == "strategies" || parts[0] == "kv_store" {
			skipped++
			return nil
		}
		tree := parts[0] + "/" + parts[1]
		if !treeInRoot(tree) {
			skipped++
			return nil
		}
		present[rel] = true
		checked++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if len(parts) == 2 {
			if rc, ok := doc["recommended_command"]; ok {
				doc = nil
				_ = json.Unmarshal(rc, &doc)
			} else {
				if byPath[rel] != nil {
					t.Errorf("%s: no recommended_command, we render one", rel)
				} else {
					passed++
				}
				return nil
			}
		}
		var hw string
		_ = json.Unmarshal(doc["hardware"], &hw)
		if treeHW[tree] == nil {
			treeHW[tree] = map[string]bool{}
		}
		treeHW[tree][hw] = true
		r := byPath[rel]
		if r == nil {
			t.Errorf("%s: we render nothing for this file", rel)
			return nil
		}
		if bad := checkRendering(doc, r); len(bad) > 0 {
			t.Errorf("%s:\n%s", rel, strings.Join(bad, "\n"))
			return nil
		}
		passed++
		return nil
	})
	// Reverse: every rendering we produce for a tree and hardware the corpus
	// keeps must exist there.
	extra := 0
	for p, r := range byPath {
		if treeHW[r.Tree][r.Hardware] && !present[p] {
			extra++
			if extra <= 20 {
				t.Errorf("%s: we render it, the site build did not", p)
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated JSON: %d files, %d checked (model YAML in root), %d passing, %d global/other skipped", files, checked, passed, skipped)
}
