package infx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// DefaultSrtSlurmVersion is the srt-slurm injection profile used when
// Options.SrtSlurmVersion is empty: the newest release of
// infx/srtslurm/releases.yaml (NVIDIA/srt-slurm main).
var DefaultSrtSlurmVersion = srtslurm.Newest()

// Options configure Render.
type Options struct {
	// SrtSlurmVersion picks the flags and env srt-slurm injects
	// (shared/spec/srt-slurm.md §0): a ref of infx/srtslurm/releases.yaml,
	// DefaultSrtSlurmVersion (the newest release) when empty.
	SrtSlurmVersion string
	// ScriptEnv adds to or overrides the environment a single-node script
	// runs with ("NAME=value").
	ScriptEnv []string
	// ScriptTimeout and ScriptSteps bound a script run (defaults
	// DefaultScriptTimeout, DefaultScriptSteps).
	ScriptTimeout time.Duration
	ScriptSteps   int
	// OnPoint, when set, is called by RenderAll for every point after its
	// outcome is known, with the deployment when it rendered (nil
	// otherwise; out-of-scope points are not rendered): e.g. `signoff` fingerprints each point's render at
	// a PR's base and head. Calls come from RenderAll's goroutine, in
	// point order.
	OnPoint func(r PointResult, d *launch.Deployment)

	// ctx is the caller's context (Render, RenderAll): every script run
	// of the rendering stops when it is done.
	ctx context.Context
	// cpus, when set, is the slot the rendering holds among those of the
	// points rendered at once (Prerender, RenderAll): it gives it back
	// while it waits for another point's work (followBatchOnce).
	cpus cpuSlots
	// noHoles runs every batch node task with its own values
	// (batchholes.go): the tests that compare the two set it.
	noHoles bool
	// harnesses, when set, keeps the workflow side of the point being
	// rendered (render sets it): its inputs once, its launch step once
	// per runner name (workflow.go pointHarness).
	harnesses *pointHarness
}

// cpuSlots holds one token per point being rendered, at most one per CPU
// (newCPUSlots): a point takes one before it starts and gives it back when
// it ends, or while it waits for work another point is doing, so that a CPU
// never idles behind a wait. nil: no bound (a lone Render).
type cpuSlots chan struct{}

// newCPUSlots is the bound for GOMAXPROCS points at once.
func newCPUSlots() cpuSlots { return make(cpuSlots, max(1, runtime.GOMAXPROCS(0))) }

// cpuSlots is the Workspace's bound for the points its Prerender calls
// render at once, shared by calls made at the same time (a caller
// prerendering ahead in the background while it prerenders a part).
func (ws *Workspace) cpuSlots() cpuSlots {
	ws.slotsOnce.Do(func() { ws.slots = newCPUSlots() })
	return ws.slots
}

// acquire takes a slot, waiting for one.
func (s cpuSlots) acquire() {
	if s != nil {
		s <- struct{}{}
	}
}

// release gives a slot back.
func (s cpuSlots) release() {
	if s != nil {
		<-s
	}
}

// Render renders one point into the processes it starts. Recipes go
// through package infx/srtslurm with the master entry's model and image;
// scripts run in the RunScript sandbox with the point's environment.
// Errors: ErrNotRenderable (wrapped, with the point's note) for a status
// other than StatusOK; recipe and script errors carry file:line:col;
// ctx.Err() when ctx is done before the rendering finished (script runs
// stop at once).
func (ws *Workspace) Render(ctx context.Context, p Point, opt Options) (launch.Deployment, error) {
	if err := ctx.Err(); err != nil {
		return launch.Deployment{}, err
	}
	opt.ctx = ctx
	if p.Kind == KindScript && len(p.Launchers) > 0 && p.Script != "" {
		// The launchers choose the script: the cited one changes only a
		// note (citedScriptNote), so the point renders as the one that
		// cites none, which its other parts render too (one rendering,
		// one memo entry and one run of its launchers for both).
		q := p
		q.Script = ""
		d, err := ws.Render(ctx, q, opt)
		if err == nil {
			if note, ok := ws.citedScriptNote(p, d.Source.File); ok {
				d.Notes = append(d.Notes, note)
			}
		}
		return d, err
	}
	key, keyed := "", false
	if ws.remember.Load() {
		key, keyed = ws.memoKey(p, opt)
	}
	if keyed {
		// one rendering of a point at a time: a Render of a point another
		// is rendering waits for it (giving its CPU slot back) and takes
		// its outcome from the memo, or renders it when it was not kept
		for {
			ws.memoMu.Lock()
			if m, ok := ws.memo[key]; ok {
				ws.memoMu.Unlock()
				return m.d.Clone(), m.err
			}
			busy, inFlight := ws.inflight[key]
			if !inFlight {
				done := make(chan struct{})
				if ws.inflight == nil {
					ws.inflight = map[string]chan struct{}{}
				}
				ws.inflight[key] = done
				ws.memoMu.Unlock()
				defer func() {
					ws.memoMu.Lock()
					delete(ws.inflight, key)
					ws.memoMu.Unlock()
					close(done)
				}()
				break
			}
			ws.memoMu.Unlock()
			opt.cpus.release()
			select {
			case <-busy:
			case <-ctx.Done():
			}
			opt.cpus.acquire()
			if err := ctx.Err(); err != nil {
				return launch.Deployment{}, err
			}
		}
	}
	var pack *renderPack
	if keyed {
		pack = ws.pack(p.ConfigKey)
	}
	if pack != nil {
		if data, ok := pack.get(key); ok {
			if d, ok := decodeDeployment(data); ok {
				ws.diskHits.Add(1)
				ws.memoPut(p.ConfigKey, key, renderMemo{d: d.Clone()})
				return d, nil
			}
		}
	}
	d, err := ws.render(p, opt, nil)
	if cerr := ctx.Err(); cerr != nil && err != nil {
		return launch.Deployment{}, cerr
	}
	if keyed && memoizable(err) {
		ws.memoPut(p.ConfigKey, key, renderMemo{d: d.Clone(), err: err})
	}
	if pack != nil && err == nil {
		pack.add(key) // written from the memo when the key is done (renderpack.go)
	}
	return d, err
}

// PersistRenders makes a Workspace that remembers renders (RememberRenders)
// also keep each point it renders without error in dir across runs (package
// runcache), in its config key's render pack (renderpack.go: written by
// Forget and FlushRenders, which a caller calls when it is done): the key is
// the executable, the point's complete input (the memo's key) and the path
// (as given and absolute) and content of every tree a
// rendering reads — the checkout and the srt-slurm checkouts
// (runcache.TreeDigest), digested at the first Render;
// a tree that cannot be digested (a link out of it) turns it off. A rendering
// is stored with its runcache.DeepDigest and read back only when its JSON
// decodes to a deployment with that digest — deeply equal to it
// (encodeDeployment, decodeDeployment) — so one read back is exactly the
// one rendered; errors and statuses (unsupported, time limit, …) are
// rendered again. Call it before
// the first Render, with the same condition as RememberRenders: nothing
// changes the trees while ws is in use.
func (ws *Workspace) PersistRenders(dir *runcache.Dir) { ws.disk = dir }

// PersistedRenders counts the renders PersistRenders read from its
// directory (hits) and wrote to it (stored) so far.
func (ws *Workspace) PersistedRenders() (hits, stored int64) {
	return ws.diskHits.Load(), ws.diskStored.Load()
}

// treesDigest sets *k to the digest of the trees renderings read, the
// part of every render pack's key (packKey) they give, and reports whether
// there is one (PersistRenders, the trees digested).
func (ws *Workspace) treesDigest(k *runcache.Key) bool {
	if ws.disk == nil {
		return false
	}
	ws.treeOnce.Do(func() {
		dirs := []string{ws.Root, ws.SrtSlurmDir}
		for _, f := range ws.SrtSlurmForks {
			dirs = append(dirs, f.Dir)
		}
		h := ws.disk.NewKey("infx-trees/1")
		for _, d := range dirs {
			if d == "" {
				h.Add("")
				continue
			}
			abs, err := filepath.Abs(d)
			if err != nil {
				return
			}
			sum, err := ws.TreeDigests.TreeDigest(d)
			if err != nil {
				return
			}
			// as given and absolute: a rendering names files under the
			// directory as it was given
			h.Add(d).Add(abs).AddBytes(sum[:])
		}
		sum := h.Sum()
		ws.trees = sum[:]
	})
	if ws.trees == nil {
		return false
	}
	copy(k[:], ws.trees)
	return true
}

// encodeDeployment is d as a rendering is stored: runcache.DeepDigest of
// d, then d's JSON; ok false when d has no JSON or no digest. Whether the
// JSON loses nothing (decoding it gives a deployment deeply equal to d:
// every field, nil and empty apart) is checked when it is read
// (decodeDeployment), not here: a run that stores every rendering it
// makes spent 0.4 CPU-s decoding them to check (issue 24, main job with an
// empty cache).
func encodeDeployment(d launch.Deployment) (data []byte, ok bool) {
	sum, ok := runcache.DeepDigest(d)
	if !ok {
		return nil, false
	}
	js, err := json.Marshal(d)
	if err != nil {
		return nil, false
	}
	return append(sum[:], js...), true
}

// decodeDeployment is the deployment encodeDeployment stored in data, ok
// only when it decodes to a deployment whose runcache.DeepDigest is the
// stored one: deeply equal to the one stored, so a rendering read back is
// the one rendered (one whose JSON lost something is rendered again).
func decodeDeployment(data []byte) (launch.Deployment, bool) {
	var want runcache.Key
	if len(data) < len(want) {
		return launch.Deployment{}, false
	}
	copy(want[:], data)
	var d launch.Deployment
	if json.Unmarshal(data[len(want):], &d) != nil {
		return launch.Deployment{}, false
	}
	if got, ok := runcache.DeepDigest(d); !ok || got != want {
		return launch.Deployment{}, false
	}
	return d, true
}

// RememberRenders makes Render remember each distinct point's outcome for
// the rest of ws's life (a memo keyed by the point's complete input, not
// by file contents): call it only when nothing changes the checkout, the
// srt-slurm checkouts or the files they read while ws is in use — a run
// over fixed trees, as coverage.Run's own Workspace and the render
// command's. On the same promise the script sandbox keeps what it stats
// and reads in the trees (sandbox.Cache.FixTrees). Off by default: a
// caller that edits files between renders (a mutation suite reusing one
// Workspace) gets a fresh rendering and a fresh read every time. Safe for
// concurrent use.
func (ws *Workspace) RememberRenders() {
	ws.remember.Store(true)
	// the same promise lets the sandbox keep what it reads from the trees
	ws.sn.scripts.FixTrees()
}

// renderMemo is one remembered rendering (Workspace.Render).
type renderMemo struct {
	d   launch.Deployment
	err error
}

// memoKey is the whole input of one Render call besides the checkout
// (fixed for a Workspace's life): every field of the point, the exported
// ones and those the JSON form leaves out (worker blocks, the row's
// concurrencies, the launcher's recipe edits, setup script and container
// aliases), the rendering options that change a result, and the
// Workspace's srt-slurm checkouts (a caller may set them after Open).
// keyed is false when the key cannot be formed: the point is then rendered
// without the memo.
func (ws *Workspace) memoKey(p Point, opt Options) (key string, keyed bool) {
	b, err := json.Marshal(struct {
		P          Point
		Prefill    *WorkerBlock
		Decode     *WorkerBlock
		RowConc    []int
		Edits      []RecipeEdit
		Setup      string
		Containers map[string]string
		Version    string
		Env        []string
		Timeout    time.Duration
		Steps      int
		SrtDir     string
		SrtVersion string
		Forks      []SrtSlurmCheckout
	}{p, p.Prefill, p.Decode, p.RowConcurrencies, p.edits, p.setupScript, p.containers,
		opt.SrtSlurmVersion, opt.ScriptEnv, opt.ScriptTimeout, opt.ScriptSteps,
		ws.SrtSlurmDir, ws.SrtSlurmVersion, ws.SrtSlurmForks})
	if err != nil {
		return "", false
	}
	return string(b), true
}

// memoizable reports whether a rendering's outcome may be handed out
// again: a wall-clock backstop (ErrScriptTimeLimit, StatusTimeLimit) or an
// interrupted run says nothing about the point and is never kept.
func memoizable(err error) bool {
	if err == nil {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrScriptTimeLimit) {
		return false
	}
	var pe *PointError
	return !errors.As(err, &pe) || pe.Status != StatusTimeLimit
}

func (ws *Workspace) memoPut(configKey, key string, m renderMemo) {
	ws.memoMu.Lock()
	defer ws.memoMu.Unlock()
	if ws.memo == nil {
		ws.memo = map[string]renderMemo{}
		ws.memoOf = map[string][]string{}
	}
	if _, had := ws.memo[key]; !had {
		ws.memoOf[configKey] = append(ws.memoOf[configKey], key)
	}
	ws.memo[key] = m
}

// Forget drops what ws keeps of the points of a config key: their
// remembered renderings (RememberRenders) and the launcher runs and batch
// jobs they made (followBatchOnce), which only later points of the key
// could reuse. A caller that is
// done with a key (coverage, once it judged it) calls it so that memory
// follows the keys in hand, not every key seen. Nothing it drops changes
// an answer: a later Render of one of the key's points renders it again
// (the same outcome, at the cost of the work), and Prerender skips the
// key's points from then on. With PersistRenders, the key's render pack is
// written first (flushPack). Safe for concurrent use.
func (ws *Workspace) Forget(configKey string) {
	ws.flushPack(configKey) // PersistRenders: written before the memo drops them
	ws.memoMu.Lock()
	if ws.forgotten == nil {
		ws.forgotten = map[string]bool{}
	}
	ws.forgotten[configKey] = true
	for _, k := range ws.memoOf[configKey] {
		delete(ws.memo, k)
	}
	delete(ws.memoOf, configKey)
	ws.memoMu.Unlock()
	ws.snInit()
	ws.sn.mu.Lock()
	for _, k := range ws.sn.runsOf[configKey] {
		delete(ws.sn.runs, k)
	}
	delete(ws.sn.runsOf, configKey)
	ws.sn.mu.Unlock()
	ws.batchMu.Lock()
	for _, k := range ws.batchOf[configKey] {
		// a point waiting on a job being followed holds it: its outcome
		// still reaches the point
		delete(ws.batchJobs, k)
	}
	delete(ws.batchOf, configKey)
	ws.batchMu.Unlock()
	ws.parsedMu.Lock()
	delete(ws.parsed, configKey)
	ws.parsedMu.Unlock()
}

// isForgotten reports whether Forget was called for the config key.
func (ws *Workspace) isForgotten(configKey string) bool {
	ws.memoMu.Lock()
	defer ws.memoMu.Unlock()
	return ws.forgotten[configKey]
}

// render is Render with an optional cache of loaded recipes (RenderAll).
func (ws *Workspace) render(p Point, opt Options, cache *recipeCache) (launch.Deployment, error) {
	if p.Status != StatusOK {
		return launch.Deployment{}, &PointError{Status: p.Status, Note: p.Note, Pos: p.RefPos}
	}
	opt.harnesses = &pointHarness{}
	d := launch.Deployment{
		Source: launch.Source{ConfigKey: p.ConfigKey, Row: p.Row, Concurrency: p.Concurrency, Selector: p.Selector},
		Engine: p.Engine, Model: p.Model, Hardware: p.Hardware,
	}
	switch p.Kind {
	case KindRecipe:
		version := opt.SrtSlurmVersion
		if version == "" {
			version = DefaultSrtSlurmVersion
		}
		cfg := srtConfigs{dir: ws.SrtSlurmDir, version: ws.SrtSlurmVersion, runs: version}
		if p.Multinode && len(p.Launchers) > 0 && p.LaneBlocks == nil {
			sub, err := ws.submission(p, opt)
			if err != nil {
				return launch.Deployment{}, err
			}
			var notes []string
			p, version, cfg, notes, err = ws.submittedPoint(p, sub, opt)
			if err != nil {
				return launch.Deployment{}, err
			}
			d.Notes = append(d.Notes, notes...)
		} else if p.Multinode && p.LaneBlocks == nil && ws.Layout == LayoutOld {
			d.Notes = append(d.Notes, fmt.Sprintf("no launcher of runner label %s is in the checkout (runners/launch_*.sh): the srt-slurm ref it clones and what it copies into the clone are not known; rendered from %s with srt-slurm %s",
				p.Runner, ws.rel(p.Recipe), version))
		}
		procs, sel, err := ws.renderRecipe(p, version, cfg, cache)
		if err != nil {
			return launch.Deployment{}, err
		}
		d.Source.File, d.Source.Recipe, d.Source.Selector = ws.rel(p.Recipe), p.RecipeRef, sel
		d.Source.SrtSlurm = version
		d.Processes = procs
	case KindScript:
		procs, file, notes, inherited, err := ws.renderScript(p, opt)
		if err != nil {
			return launch.Deployment{}, err
		}
		d.Source.File = file
		d.Processes = withPointImage(procs, p.Image)
		d.Notes = notes
		d.Inherited = inherited
	case KindBatch:
		procs, job, notes, err := ws.renderBatch(p, opt)
		if err != nil {
			return launch.Deployment{}, err
		}
		d.Source.File = job
		d.Processes = withPointImage(procs, p.Image)
		d.Notes = notes
	case KindLLMD:
		if err := ws.renderLLMD(p, &d); err != nil {
			return launch.Deployment{}, err
		}
	default:
		return launch.Deployment{}, fmt.Errorf("%w: %s", ErrNotRenderable, p.Note)
	}
	return d, nil
}

// withPointImage gives the engine workers of a script or batch rendering
// that name no image the master config entry's `image:` (img), the
// container they run in: every runners/launch_*.sh of InferenceX starts a
// single-node script inside $IMAGE (docker run / srun
// --container-image of the squash file `enroot import docker://$IMAGE`
// makes, '#' turned into '/'), and an AMD batch job's server container is
// `docker run "$DOCKER_IMAGE_NAME"` with DOCKER_IMAGE_NAME=$CONTAINER_IMAGE
// =$IMAGE (benchmarks/multi_node/amd_utils/job.slurm, submit.sh and the
// benchmarks/multi_node/*.sh that export CONTAINER_IMAGE=$IMAGE). The
// image is then compared like a multi-node worker's (package compare).
// procs is not changed (a rendering may be shared by points of other
// config keys): the result is a copy; img "" returns procs as they are.
func withPointImage(procs []launch.Process, img string) []launch.Process {
	if img == "" {
		return procs
	}
	out := append([]launch.Process(nil), procs...)
	for i := range out {
		if out[i].Kind == launch.KindWorker && out[i].Image == "" {
			out[i].Image = img
		}
	}
	return out
}

// ScriptEnv is the environment a runner exports for a single-node script
// (InferenceX benchmark-tmpl.yml / runners/launch_*.sh; spec (c)): MODEL,
// MODEL_PREFIX, PRECISION, FRAMEWORK, IMAGE, TP, EP_SIZE, DP_ATTENTION,
// CONC, ISL, OSL, MAX_MODEL_LEN (ISL+OSL), SPEC_DECODING, EVAL_ONLY=false,
// PORT=8888, KV_OFFLOADING, TOTAL_CPU_DRAM_GB (agentic, see
// Point.TotalCPUDRAMGB), RESULT_DIR, RANDOM_RANGE_RATIO; extra entries
// ("NAME=value") override.
func ScriptEnv(p Point, extra []string) []string {
	ep := p.EP
	if ep == 0 {
		ep = 1
	}
	spec := p.SpecDecoding
	if spec == "" {
		spec = "none"
	}
	kv := p.KVOffloading
	if kv == "" {
		kv = "none"
	}
	env := []string{
		"MODEL=" + p.Model, "MODEL_PREFIX=" + p.ModelPrefix, "PRECISION=" + p.Precision,
		"FRAMEWORK=" + p.Framework, "IMAGE=" + p.Image, "RUNNER_TYPE=" + p.Runner,
		"TP=" + strconv.Itoa(p.TP), "EP_SIZE=" + strconv.Itoa(ep), "DP_ATTENTION=" + strconv.FormatBool(p.DPAttn),
		"CONC=" + strconv.Itoa(p.Concurrency), "SPEC_DECODING=" + spec, "EVAL_ONLY=false",
		"PORT=8888", "KV_OFFLOADING=" + kv, "RESULT_DIR=/workspace/results", "RANDOM_RANGE_RATIO=1.0",
	}
	if p.TotalCPUDRAMGB > 0 {
		env = append(env, "TOTAL_CPU_DRAM_GB="+strconv.Itoa(p.TotalCPUDRAMGB))
	}
	if p.ISL > 0 || p.OSL > 0 {
		env = append(env, "ISL="+strconv.Itoa(p.ISL), "OSL="+strconv.Itoa(p.OSL), "MAX_MODEL_LEN="+strconv.Itoa(p.ISL+p.OSL))
	}
	return sandbox.ApplyEnvOps(env, extra)
}

// Summary counts a run over config keys (RenderAll) and lists every
// config key with its points.
type Summary struct {
	Keys         int `json:"keys"`
	Points       int `json:"points"`
	Rendered     int `json:"rendered"`
	UpstreamOnly int `json:"upstreamOnly"`
	Missing      int `json:"missing"`
	Unsupported  int `json:"unsupported"`
	Ambiguous    int `json:"ambiguous"`
	// TimeLimit counts points the wall-clock backstop stopped
	// (StatusTimeLimit): re-run.
	TimeLimit int `json:"timeLimit,omitempty"`
	// OutOfScope counts points outside Check 3 (TRT-LLM incl. dynamo-trt,
	// ATOM, TileRT): RenderAll does not render them.
	OutOfScope int `json:"outOfScope"`
	Errors     int `json:"errors"`
	// Failures holds one line per render error: "key row N conc C: error".
	Failures []string `json:"failures,omitempty"`
	// ConfigKeys has one entry per config key rendered, in the order of
	// the keys given (Workspace.ConfigKeys by default).
	ConfigKeys []KeySummary `json:"configKeys,omitempty"`
}

// KeySummary is one config key of a RenderAll run: its counts and every
// point's outcome.
type KeySummary struct {
	ConfigKey string `json:"configKey"`
	Framework string `json:"framework"` // master `framework`
	// InScope: Check 3 covers the framework (see InScope).
	InScope      bool `json:"inScope"`
	Points       int  `json:"points"`
	Rendered     int  `json:"rendered"`
	UpstreamOnly int  `json:"upstreamOnly"`
	Missing      int  `json:"missing"`
	Unsupported  int  `json:"unsupported"`
	Ambiguous    int  `json:"ambiguous"`
	TimeLimit    int  `json:"timeLimit,omitempty"`
	OutOfScope   int  `json:"outOfScope"`
	Errors       int  `json:"errors"`
	// Results lists the points in Points order (rows in file order,
	// concurrencies in row order).
	Results []PointResult `json:"results"`
}

// Outcome is what happened to one point in a RenderAll run.
type Outcome string

// Point outcomes: OutcomeRendered for a rendered point, OutcomeError for a
// point whose recipe or script failed; otherwise the point's Status.
const (
	OutcomeRendered     Outcome = "rendered"
	OutcomeUpstreamOnly Outcome = Outcome(StatusUpstreamOnly)
	OutcomeMissing      Outcome = Outcome(StatusMissing)
	OutcomeUnsupported  Outcome = Outcome(StatusUnsupported)
	OutcomeAmbiguous    Outcome = Outcome(StatusAmbiguous)
	OutcomeOutOfScope   Outcome = Outcome(StatusOutOfScope)
	OutcomeTimeLimit    Outcome = Outcome(StatusTimeLimit)
	OutcomeError        Outcome = "error"
)

// PointResult is one point's outcome in a RenderAll run.
type PointResult struct {
	ConfigKey   string  `json:"configKey"`
	Row         int     `json:"row"`
	Concurrency int     `json:"concurrency"`
	Scenario    string  `json:"scenario"`
	Kind        Kind    `json:"kind"`
	Status      Outcome `json:"status"`
	// Recipe is the recipe reference as written (Point.RecipeRef) and
	// Selector its selector; for a rendered bundle without a selector,
	// Selector is the variant the point's TP/CONC picked.
	Recipe   string `json:"recipe,omitempty"`
	Selector string `json:"selector,omitempty"`
	// File is the file rendered (repository-relative recipe or script);
	// ScriptsTried the script paths looked for when it is missing.
	File         string   `json:"file,omitempty"`
	ScriptsTried []string `json:"scriptsTried,omitempty"`
	// Reason explains a status other than rendered (Point.Note or the
	// render error, with file:line:col).
	Reason string `json:"reason,omitempty"`
	// Pos is the master-config position of the point's recipe reference
	// (or its row).
	Pos Pos `json:"pos"`
}

// RenderAll renders every point of every config key (or of keys, when
// given) and counts the outcomes; Summary.ConfigKeys lists each key's
// points with their outcome. Render errors are counted and listed, never
// fatal; only an unknown key is an error, and ctx.Err() when ctx is done
// before every point was rendered (the summary so far is not returned).
func (ws *Workspace) RenderAll(ctx context.Context, keys []string, opt Options) (Summary, error) {
	opt.ctx = ctx
	if keys == nil {
		keys = ws.ConfigKeys()
	}
	var s Summary
	cache := &recipeCache{}
	points := make([][]Point, len(keys))
	for i, k := range keys {
		pts, err := ws.Points(k)
		if err != nil {
			return s, err
		}
		points[i] = pts
	}
	scripts := ws.streamScripts(points, opt, cache)
	defer scripts.stop()
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		pts := points[i]
		e, _ := ws.Entry(k)
		ks := KeySummary{ConfigKey: k, Framework: e.Framework, InScope: InScope(e.Framework)}
		s.Keys++
		for _, p := range pts {
			s.Points++
			ks.Points++
			r := PointResult{ConfigKey: k, Row: p.Row, Concurrency: p.Concurrency, Scenario: p.Scenario, Kind: p.Kind,
				Status: Outcome(p.Status), Recipe: p.RecipeRef, Selector: p.Selector, Reason: p.Note, Pos: p.RefPos}
			if p.Script != "" {
				r.File = ws.rel(p.Script)
			} else if p.Recipe != "" {
				r.File = ws.rel(p.Recipe)
			}
			r.ScriptsTried = p.Scripts
			if !p.InScope {
				// Check 3 covers vLLM/SGLang only: not rendered, not a failure.
				s.OutOfScope++
				ks.OutOfScope++
				r.Status, r.Reason = OutcomeOutOfScope, p.Framework+" is outside Check 3 (vLLM/SGLang only)"
				if opt.OnPoint != nil {
					opt.OnPoint(r, nil)
				}
				ks.Results = append(ks.Results, r)
				continue
			}
			var rendered *launch.Deployment
			switch p.Status {
			case StatusUpstreamOnly:
				s.UpstreamOnly++
				ks.UpstreamOnly++
			case StatusMissing:
				s.Missing++
				ks.Missing++
			case StatusUnsupported:
				s.Unsupported++
				ks.Unsupported++
			default:
				var d launch.Deployment
				var err error
				if r, ok := scripts.take(p); ok {
					d, err = r.d, r.err
				} else {
					d, err = ws.render(p, opt, cache)
				}
				var pe *PointError
				switch {
				case errors.As(err, &pe):
					r.Status, r.Reason = Outcome(pe.Status), pe.Note
					switch pe.Status {
					case StatusUnsupported:
						s.Unsupported++
						ks.Unsupported++
					case StatusAmbiguous:
						s.Ambiguous++
						ks.Ambiguous++
					case StatusMissing:
						s.Missing++
						ks.Missing++
					case StatusUpstreamOnly:
						s.UpstreamOnly++
						ks.UpstreamOnly++
					case StatusTimeLimit:
						s.TimeLimit++
						ks.TimeLimit++
					}
				case err != nil:
					s.Errors++
					ks.Errors++
					s.Failures = append(s.Failures, fmt.Sprintf("%s row %d conc %d: %v", p.ConfigKey, p.Row, p.Concurrency, err))
					r.Status, r.Reason = OutcomeError, err.Error()
				default:
					s.Rendered++
					ks.Rendered++
					r.Status, r.Reason = OutcomeRendered, ""
					if p.Kind == KindRecipe {
						r.Selector = d.Source.Selector
					} else {
						r.File = d.Source.File
					}
					rendered = &d
				}
			}
			if opt.OnPoint != nil {
				opt.OnPoint(r, rendered)
			}
			ks.Results = append(ks.Results, r)
		}
		s.ConfigKeys = append(s.ConfigKeys, ks)
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	return s, nil
}

// scriptResult is a pre-rendered script or batch-job point.
type scriptResult struct {
	d   launch.Deployment
	err error
}

// Prerender renders the script and batch-job points among pts that can
// be rendered (StatusOK) on every CPU at once, through Render, so that a
// Workspace that remembers renders (RememberRenders) answers the caller's
// Render of each of them, made later in its own order, from the memo: the
// caller's output is then the same as on one CPU. Outcomes are not
// returned; one the memo does not keep (a time limit) is rendered again
// when asked for. Without RememberRenders it only costs time.
func (ws *Workspace) Prerender(ctx context.Context, pts []Point, opt Options) {
	ws.PrerenderPaced(ctx, pts, opt, nil)
}

// PrerenderEvery is Prerender for every point of pts that can be
// rendered (StatusOK), srt-slurm recipe points included, on every CPU at
// once (one at a time on one CPU): for a caller that wants a set of
// points in the memo before it does something else (coverage's vLLM part
// renders its points before it indexes the recipes, then
// ReleaseScripts). Same contract as Prerender.
func (ws *Workspace) PrerenderEvery(ctx context.Context, pts []Point, opt Options) {
	var todo []Point
	for _, p := range pts {
		if p.Status == StatusOK && (p.Kind == KindScript || p.Kind == KindBatch || p.Kind == KindRecipe) {
			todo = append(todo, p)
		}
	}
	// (on one CPU too: the points are wanted in the memo now)
	eachOnAllCPUs(ctx, todo, ws.cpuSlots(), nil, func(p Point, cpus cpuSlots) {
		if ws.isForgotten(p.ConfigKey) {
			return
		}
		o := opt
		o.cpus = cpus
		_, _ = ws.Render(ctx, p, o)
	})
}

// ReleaseScripts drops what the Workspace keeps for rendering more
// points — the prepared (parsed, marked) scripts its sandbox runs share
// and the launcher runs kept for a config key's later points — and keeps
// the renderings (the memo). A caller that has rendered every point it
// will ask for (PrerenderEvery) releases them before building something
// large of its own, so the two are never held together; a later Render
// prepares and runs again what it needs, with the same outcome. Safe for
// concurrent use.
func (ws *Workspace) ReleaseScripts() {
	ws.sn.scripts.Release()
	ws.snInit()
	ws.sn.mu.Lock()
	clear(ws.sn.runs)
	clear(ws.sn.runsOf)
	ws.sn.mu.Unlock()
}

// PrerenderPaced is Prerender with the caller's pace: before a point
// starts (holding no CPU), pace(p) is called and may wait — for the
// caller to catch up, so that what is rendered ahead and held in the memo
// stays within the caller's window; false skips the point. A nil pace
// never waits. The points start in order; the pace changes when they are
// rendered, never what the memo holds for them.
func (ws *Workspace) PrerenderPaced(ctx context.Context, pts []Point, opt Options, pace func(Point) bool) {
	var todo []Point
	for _, p := range pts {
		if (p.Kind == KindScript || p.Kind == KindBatch) && p.Status == StatusOK {
			todo = append(todo, p)
		}
	}
	if runtime.GOMAXPROCS(0) < 2 {
		return // one CPU: the caller renders them in order anyway
	}
	eachOnAllCPUs(ctx, todo, ws.cpuSlots(), pace, func(p Point, cpus cpuSlots) {
		if ws.isForgotten(p.ConfigKey) {
			return // its caller is done with the key (Forget)
		}
		o := opt
		o.cpus = cpus
		_, _ = ws.Render(ctx, p, o)
	})
}

// eachOnAllCPUs calls fn for every point, in order, each on its own
// goroutine holding one of the slots of cpus (fn may give it back while it
// waits), and returns when all calls have; once ctx (nil: never) is done
// no further point is started. pace (nil: none) is asked first, holding no
// slot: false skips the point.
func eachOnAllCPUs(ctx context.Context, pts []Point, cpus cpuSlots, pace func(Point) bool, fn func(Point, cpuSlots)) {
	var wg sync.WaitGroup
	for _, p := range pts {
		if pace != nil && !pace(p) {
			continue
		}
		cpus.acquire()
		if ctx != nil && ctx.Err() != nil {
			cpus.release()
			break
		}
		wg.Go(func() {
			defer cpus.release()
			growStack(stackFrames)
			fn(p, cpus)
		})
	}
	wg.Wait()
}

// stackFrames is how many growStack frames a rendering goroutine starts
// with (each stackFrame bytes, 256 KiB in all): about the stack a point's
// rendering reaches (the shell interpreter recurses once per nested
// statement, function, sourced file and child script), taken in one
// step. Issue 24, render --all on the complete trees under callgrind, the
// default collector settings: stack growth 1.22 → 0.75 G instructions of
// 36.5 G (3.4 → 2.1%); the slowest key's run (its points rendered on
// the judges' goroutines) stays at 13.07 G with 256 or 512 KiB.
const stackFrames = 8

// stackFrame is the size of one growStack frame, under the compiler's
// bound for a local array kept on the stack.
const stackFrame = 32 << 10

// growStack grows the calling goroutine's stack to hold n frames of
// stackFrame bytes, then returns 0: a new goroutine starts with a small
// stack (the runtime's average), and the runtime grows it by doubling,
// copying every frame and adjusting its pointers each time, deep in the
// interpreter's recursion. Grown here, at the goroutine's start, each
// copy moves a few shallow frames. Nothing a rendering computes changes.
//
//go:noinline
func growStack(n int) byte {
	var pad [stackFrame]byte
	if n <= 1 {
		return pad[n&1]
	}
	return growStack(n-1) + pad[n%stackFrame]
}

// scriptWindow bounds the script and batch-job points streamScripts
// renders ahead of RenderAll's loop, per CPU: what is rendered and not yet
// taken is held, so memory follows the window, not the checkout.
const scriptWindow = 8

// scriptStream is the script and batch-job points of a RenderAll run,
// rendered on every CPU ahead of its loop (streamScripts), taken in the
// loop's order (take).
type scriptStream struct {
	todo    []Point
	results []scriptSlot
	// slots holds a token per rendered point not yet taken (at most
	// scriptWindow per CPU); quit stops the feeder.
	slots chan struct{}
	quit  chan struct{}
	once  sync.Once
	next  int // the next point take expects (they come in order)
}

// scriptSlot is one point's outcome; done is closed when it is there.
type scriptSlot struct {
	done chan struct{}
	scriptResult
}

// streamScripts starts rendering the in-scope single-node script points,
// batch-job points and srt-slurm recipe points of points (batch-job
// points first, the rest in their order) on every CPU at once (each runs
// the workflow step, launchers and scripts in its own sandboxes; the
// Workspace caches and the recipe cache are safe for concurrent use),
// never more than scriptWindow script and recipe points per CPU ahead of
// what take has returned. The caller takes every one of them in order, or
// calls stop. (Recipe points rendered by the caller's loop, one at a
// time, left one CPU idle at the end of the run.)
func (ws *Workspace) streamScripts(points [][]Point, opt Options, cache *recipeCache) *scriptStream {
	var todo []Point
	for _, pts := range points {
		for _, p := range pts {
			if p.InScope && (p.Kind == KindScript || p.Kind == KindBatch || p.Kind == KindRecipe) && p.Status == StatusOK {
				todo = append(todo, p)
			}
		}
	}
	cpus := max(1, runtime.GOMAXPROCS(0))
	st := &scriptStream{todo: todo, results: make([]scriptSlot, len(todo)),
		slots: make(chan struct{}, scriptWindow*cpus), quit: make(chan struct{})}
	for j := range todo {
		st.results[j].done = make(chan struct{})
	}
	slots := newCPUSlots()
	o := opt
	o.cpus = slots
	// Batch-job points first: following a job runs its whole sbatch
	// script and every srun step (seconds), a script point a few
	// milliseconds; started last, in their place, they made a tail of one
	// busy CPU. Their outcomes are few and held until taken, outside the
	// window (which bounds the many script points); outcomes never depend
	// on the order.
	var order []int
	for j, p := range todo {
		if p.Kind == KindBatch {
			order = append(order, j)
		}
	}
	for j, p := range todo {
		if p.Kind != KindBatch {
			order = append(order, j)
		}
	}
	go func() {
		for n, j := range order {
			if todo[j].Kind != KindBatch {
				select {
				case st.slots <- struct{}{}:
				case <-st.quit:
					return
				}
			}
			if opt.ctx != nil && opt.ctx.Err() != nil {
				// nothing more is started: what is left says so
				for _, k := range order[n:] {
					st.results[k].scriptResult = scriptResult{err: opt.ctx.Err()}
					close(st.results[k].done)
				}
				return
			}
			slots.acquire()
			select {
			case <-st.quit:
				slots.release()
				return
			default:
			}
			go func() {
				defer slots.release()
				growStack(stackFrames)
				d, err := ws.render(todo[j], o, cache)
				st.results[j].scriptResult = scriptResult{d, err}
				close(st.results[j].done)
			}()
		}
	}()
	return st
}

// take is p's outcome when p is the stream's next point (ok), waiting
// for it; the stream then forgets it. RenderAll asks for the points in the
// order streamScripts listed them, so each gets its own outcome.
func (st *scriptStream) take(p Point) (scriptResult, bool) {
	j := st.next
	if j >= len(st.todo) || st.todo[j].ConfigKey != p.ConfigKey || st.todo[j].Row != p.Row ||
		st.todo[j].Concurrency != p.Concurrency || st.todo[j].Scenario != p.Scenario {
		// not a streamed point: rendered by the caller
		return scriptResult{}, false
	}
	st.next++
	<-st.results[j].done
	r := st.results[j].scriptResult
	st.results[j].scriptResult = scriptResult{}
	// a rendered script point holds a token (taken before it was
	// started, so one is there); a batch-job point, or a point never
	// started (the context was done), holds none
	if p.Kind != KindBatch {
		select {
		case <-st.slots:
		default:
		}
	}
	return r, true
}

// stop ends the feeder (RenderAll's return): points already started
// finish in the background and are dropped.
func (st *scriptStream) stop() { st.once.Do(func() { close(st.quit) }) }
