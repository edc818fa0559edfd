package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// mainJob is the main job on the complete trees of ../shared with every
// source (the command DEVELOPERS.md has every closing run).
func mainJob(t *testing.T) Options {
	t.Helper()
	return completeTrees(t)
}

func runJSON(t *testing.T, opt Options) (*report.Report, []byte) {
	t.Helper()
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.PrintJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	return rep, b.Bytes()
}

// quietRun is the main job run once per test binary on a quiet machine
// (no Options.PageCache), shared by the tests that compare with it.
var quietRun struct {
	once sync.Once
	rep  *report.Report
	json []byte
	err  error
}

// fullRun is the main job's report and JSON (quietRun).
func fullRun(t *testing.T) (*report.Report, []byte) {
	t.Helper()
	opt := mainJob(t)
	quietRun.once.Do(func() {
		rep, err := Run(context.Background(), opt)
		if err != nil {
			quietRun.err = err
			return
		}
		var b bytes.Buffer
		quietRun.rep, quietRun.err = rep, report.PrintJSON(&b, rep)
		quietRun.json = b.Bytes()
	})
	if quietRun.err != nil {
		t.Fatal(quietRun.err)
	}
	return quietRun.rep, quietRun.json
}

// busyEnv makes the test binary a busy loop (TestBusyLoopHelper).
const busyEnv = "COOKBOOK_SYNC_BUSY_LOOP"

// TestBusyLoopHelper spins when started by underLoad; otherwise it does
// nothing.
func TestBusyLoopHelper(t *testing.T) {
	if os.Getenv(busyEnv) != "1" {
		return
	}
	// it ends with its parent (a killed test leaves no spinner behind)
	// and after an hour at most
	parent, start := os.Getppid(), time.Now()
	for x := 0; ; x++ {
		if x%(1<<24) == 0 && (os.Getppid() != parent || time.Since(start) > time.Hour) {
			return
		}
	}
}

// underLoad runs f with GOMAXPROCS=1 while busy loops (this test binary
// re-run as TestBusyLoopHelper) load every core 4× over.
func underLoad(t *testing.T, f func()) {
	t.Helper()
	var procs []*exec.Cmd
	for range 4 * runtime.NumCPU() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBusyLoopHelper$", "-test.timeout=0")
		cmd.Env = append(os.Environ(), busyEnv+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	f()
}

// TestCorpusSameAnswerUnderLoad: the main job on the complete trees gives
// byte-identical JSON reports on a quiet machine and with GOMAXPROCS=1
// while busy loops load every core 4× over — and so does a tree where a
// page snippet some key needs runs a long (finite, inside its step budget)
// loop first, whose report is the original's. Every limit that decides
// anything counts work; no backstop fires.
func TestCorpusSameAnswerUnderLoad(t *testing.T) {
	opt := mainJob(t)
	rep, quiet := fullRun(t)
	if rep.TimeLimit || len(rep.PageErrors) > 0 {
		t.Fatalf("quiet run: time limit %v, page errors %v", rep.TimeLimit, rep.PageErrors)
	}
	var loaded []byte
	underLoad(t, func() { _, loaded = runJSON(t, opt) })
	if !bytes.Equal(quiet, loaded) {
		t.Errorf("the report under load differs from the quiet one: %s", testutil.LineDiff(loaded, quiet))
	}
	t.Logf("headline: %s", report.Headline(rep))

	// A slow page: deepseek-v4.jsx (the dsv4 SGLang keys need it) first
	// counts to 5,000,000 (5 M of its 20 M steps); the keys needing it
	// get the rows of the full run, quiet and under load alike.
	slowDocs := copyDocs(t, opt.CookbookDirs[0])
	snip := filepath.Join(slowDocs, "docs/src/snippets/configs/deepseek-ai/deepseek-v4.jsx")
	src, err := os.ReadFile(snip)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snip, append([]byte("let slowN = 0;\nfor (let i = 0; i < 5000000; i++) slowN += i;\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	slow := opt
	slow.CookbookDirs = []string{slowDocs}
	slow.VLLMRecipesDir = ""
	slow.ConfigKeys = []string{"dsv4-*sglang*"}
	slowRep, slowQuiet := runJSON(t, slow)
	var slowLoaded []byte
	underLoad(t, func() { _, slowLoaded = runJSON(t, slow) })
	if !bytes.Equal(slowQuiet, slowLoaded) {
		t.Errorf("slow page: the report under load differs from the quiet one: %s", testutil.LineDiff(slowLoaded, slowQuiet))
	}
	keys := reportKeys(slowRep)
	if len(keys) < 5 || slowRep.TimeLimit {
		t.Fatalf("slow page: keys %v, time limit %v", keys, slowRep.TimeLimit)
	}
	for _, k := range keys {
		if keyRows(slowRep, k) != keyRows(rep, k) {
			t.Errorf("slow page: %s differs from the full run: %s", k, testutil.LineDiff([]byte(keyRows(slowRep, k)), []byte(keyRows(rep, k))))
		}
	}
	t.Logf("slow page: %d dsv4 SGLang keys as in the full run", len(keys))
}

// copyDocs copies the directory src into a temporary directory.
func copyDocs(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// keyRows is everything a report says of one config key: its cookbook
// points and its entries judged from the InferenceX side (JSON).
func keyRows(r *report.Report, key string) string {
	var b strings.Builder
	for _, p := range r.Points {
		if p.ConfigKey == key {
			j, _ := json.Marshal(p)
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	for _, k := range r.UpstreamKeys() {
		if k.ConfigKey == key {
			j, _ := json.Marshal(k)
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// reportKeys are the config keys a report judged, sorted.
func reportKeys(r *report.Report) []string {
	seen := map[string]bool{}
	for _, p := range r.Points {
		seen[p.ConfigKey] = true
	}
	for _, k := range r.UpstreamKeys() {
		seen[k.ConfigKey] = true
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	})
}

// TestCorpusKeyScopedExact: for every config key K the main job judges,
// ConfigKeys [K] gives K exactly the rows of the full run (each run makes
// its own choice of page snippets, scripts and recipes; they share only
// decoded snippets, pages.Cache), and a page snippet of another model made
// to throw or to never end leaves every key that does not need it as it
// was.
func TestCorpusKeyScopedExact(t *testing.T) {
	opt := mainJob(t)
	opt.PageCache = &pages.Cache{}
	full, _ := fullRun(t)
	keys := reportKeys(full)
	if len(keys) < 150 {
		t.Fatalf("%d keys judged: the main job judges every SGLang, vLLM and cookbook key", len(keys))
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan string)
	failures := map[string]string{}
	for range 2 {
		wg.Go(func() {
			for k := range next {
				o := opt
				o.ConfigKeys = []string{k}
				rep, err := Run(context.Background(), o)
				msg := ""
				switch {
				case err != nil:
					msg = err.Error()
				case keyRows(rep, k) != keyRows(full, k):
					msg = "rows differ: " + testutil.LineDiff([]byte(keyRows(rep, k)), []byte(keyRows(full, k)))
				case len(reportKeys(rep)) != 1:
					msg = fmt.Sprintf("the run judged %v", reportKeys(rep))
				}
				if msg != "" {
					mu.Lock()
					failures[k] = msg
					mu.Unlock()
				}
			}
		})
	}
	for _, k := range keys {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range failures {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Errorf("--config-key %s: %s", k, failures[k])
	}
	t.Logf("%d keys, each alone as in the full run", len(keys))

	// Snippets of models no InferenceX key serves, made to throw and to
	// loop for ever: no key needs them, so none runs and nothing changes.
	docs := copyDocs(t, opt.CookbookDirs[0])
	broken := map[string]string{
		"docs/src/snippets/autoregressive/nemotron3-ultra-deployment.jsx": "while (true) {}\n",
		"docs/src/snippets/autoregressive/ernie-45-deployment.jsx":        "throw new Error(\"broken on purpose\");\n",
	}
	for rel, pre := range broken {
		p := filepath.Join(docs, rel)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append([]byte(pre), src...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hostile := opt
	hostile.CookbookDirs = []string{docs, opt.CookbookDirs[1]}
	hostile.PageCache = nil
	for _, k := range []string{"dsv4-fp4-b200-sglang-agentic-hicache-mtp", "qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg"} {
		o := hostile
		o.ConfigKeys = []string{k}
		rep, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if keyRows(rep, k) != keyRows(full, k) || len(rep.PageErrors) > 0 || rep.TimeLimit {
			t.Errorf("%s beside broken snippets it does not need: page errors %v, time limit %v, %s", k, rep.PageErrors, rep.TimeLimit,
				testutil.LineDiff([]byte(keyRows(rep, k)), []byte(keyRows(full, k))))
		}
	}
	rep, err := Run(context.Background(), hostile)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(rep.Pages)
	b, _ := json.Marshal(full.Pages)
	if !bytes.Equal(a, b) || len(rep.PageErrors) > 0 {
		t.Errorf("the full run beside broken snippets no key needs: page errors %v, %s", rep.PageErrors, testutil.LineDiff(a, b))
	}
}

// TestCorpusRelativeInfxSameJSON: the checkouts named relative to the
// working directory or absolutely give the same JSON (issue 22: a
// relative --infx made 175 notes "the launchers run X.sh, not the cited
// X.sh" naming one file twice).
func TestCorpusRelativeInfxSameJSON(t *testing.T) {
	abs := mainJob(t)
	for _, d := range append([]string{abs.InfxDir, abs.SrtSlurmDir, abs.VLLMRecipesDir}, abs.CookbookDirs...) {
		if !filepath.IsAbs(d) {
			t.Fatalf("%s: want absolute paths from testutil.SharedPath", d)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(wd, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	abs.ConfigKeys = []string{"glm5.2-fp4-b300-sglang-agentic-mtp", "qwen3.5-fp8-h200-sglang*", "dsv4-fp4-b200-vllm", "dsr1-fp8-mi355x-sglang-disagg"}
	r := abs
	r.InfxDir, r.SrtSlurmDir, r.VLLMRecipesDir = rel(abs.InfxDir), rel(abs.SrtSlurmDir), rel(abs.VLLMRecipesDir)
	r.CookbookDirs = []string{rel(abs.CookbookDirs[0]), rel(abs.CookbookDirs[1])}
	_, a := runJSON(t, abs)
	_, b := runJSON(t, r)
	if !bytes.Equal(a, b) {
		t.Errorf("relative checkouts: the JSON differs: %s", testutil.LineDiff(b, a))
	}
	if m := regexp.MustCompile(`the launchers run (\S+), not the cited (\S+)`).FindAllStringSubmatch(string(b), -1); len(m) > 0 {
		for _, x := range m {
			if x[1] == x[2] {
				t.Errorf("a note names one script twice: %s", x[0])
			}
		}
	}
}
