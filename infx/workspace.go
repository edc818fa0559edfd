package infx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// Layout is the InferenceX repository layout (shared/spec/inferencex.md §0).
type Layout string

// Layouts.
const (
	// LayoutOld: configs/, benchmarks/, runners/ at the repository root
	// (SemiAnalysisAI/InferenceX at 843c6254).
	LayoutOld Layout = "old"
	// LayoutNew: everything under inferencex-e2e/ (srt-recipe-dir/srt-recipe,
	// schema-2 recipes, configs/srt-recipes/ lane blocks).
	LayoutNew Layout = "new"
)

// ErrNoMasterConfig: Open found no master config under the directory, in
// none of the places InferenceX's utils/constants.py MASTER_CONFIGS has
// named (see Open).
var ErrNoMasterConfig = errors.New("no InferenceX master config")

// Workspace is an opened InferenceX checkout: its layout and parsed master
// configs. It is read-only; Render never writes into it.
type Workspace struct {
	// Root is the directory given to Open.
	Root string
	// Base is the directory holding configs/ and benchmarks/: Root for the
	// old layout, Root/inferencex-e2e (or Root itself) for the new one.
	Base string
	// Layout is the detected layout.
	Layout Layout
	// Masters lists the master config files read, sorted.
	Masters []string
	// ConfigsDir is the directory the master configs were read from:
	// Base/configs, or Root/.github/configs at InferenceX commits before
	// 2026-07-02 (see Open).
	ConfigsDir string
	// SrtSlurmDir, when set, is a checkout of NVIDIA/srt-slurm whose
	// recipes/ directory resolves CONFIG_FILE=recipes/… references that are
	// not in the InferenceX checkout (otherwise such points are
	// StatusUpstreamOnly).
	SrtSlurmDir string
	// SrtSlurmVersion is the srt-slurm ref SrtSlurmDir is at, as the user
	// states it ("" = not stated); recipes read from SrtSlurmDir for a
	// launcher pinned to another ref carry a commit-drift note.
	SrtSlurmVersion string
	// SrtSlurmForks are checkouts of other srt-slurm repositories (forks
	// InferenceX launchers clone, e.g. functionstackx/srt-slurm-nv), one per
	// repository and ref (ParseSrtSlurmDir): a point whose launcher clones
	// a fork renders only with its checkout, and only when the checkout's
	// src/srtctl is identical to an NVIDIA/srt-slurm release's (forks.go).
	SrtSlurmForks []SrtSlurmCheckout
	// TreeDigests, when set, gives the trees' digests PersistRenders keys
	// renderings by (runcache.Digests: a caller that digests the same
	// trees for its own key shares them); nil digests them itself.
	TreeDigests *runcache.Digests

	// forkStates caches what each fork checkout is, by directory (fork;
	// guarded by forkMu: points render concurrently).
	forkMu     sync.Mutex
	forkStates map[string]*forkState

	// memo remembers each distinct Render call's outcome for the
	// Workspace's life once RememberRenders was called (Render; guarded by
	// memoMu): the AgentX, pages and vLLM parts of a coverage run render
	// many of the same points.
	memoMu sync.Mutex
	memo   map[string]renderMemo
	// memoOf lists the memo's keys by the config key of their point, and
	// forgotten the config keys Forget dropped (memoMu).
	memoOf    map[string][]string
	forgotten map[string]bool
	// inflight holds a channel per point being rendered, closed when its
	// rendering ends (Render; memoMu).
	inflight map[string]chan struct{}
	// slots bounds the points Prerender calls render at once (cpuSlots).
	slotsOnce sync.Once
	slots     cpuSlots
	remember  atomic.Bool // RememberRenders was called
	// disk keeps renders across runs (PersistRenders); trees is the
	// digest of the trees they read (treesDigest, once; nil: not known).
	disk     *runcache.Dir
	treeOnce sync.Once
	trees    []byte
	// diskHits and diskStored count PersistRenders' reads and writes.
	diskHits, diskStored atomic.Int64
	// packs are the render packs of the config keys rendered (renderpack.go;
	// guarded by packMu).
	packMu sync.Mutex
	packs  map[string]*renderPack

	// batchJobs shares each distinct batch job's outcome among the points
	// that submit it (followBatchOnce; guarded by batchMu); batchOf lists
	// their keys by the config key of the point that made them (Forget).
	batchMu   sync.Mutex
	batchJobs map[string]*batchJob
	batchOf   map[string][]string
	// parsed holds the srt-slurm recipes parsed for a config key's points
	// (parseRecipe, once RememberRenders was called; by config key, then
	// by file name and bytes; guarded by parsedMu): the points of a key's
	// rows read the same recipe, one parse for them all. Forget drops a
	// key's.
	parsedMu sync.Mutex
	parsed   map[string]map[string]parsedRecipe
	// clusterYAMLs keeps clusterContainers' answer by the text of the
	// srtslurm.yaml a launcher wrote (most points' launchers write the
	// same one; guarded by clusterMu): the maps are read, never written.
	clusterMu    sync.Mutex
	clusterYAMLs map[string]clusterYAML
	// holeRuns counts the node tasks run with holes (batchTask), holeUsed
	// those of them whose run was used: what the tests read.
	holeRuns, holeUsed atomic.Int64

	entries []*Entry
	byKey   map[string]*Entry
	// broken maps a config key that did not load to its problem (a
	// *PosError); warnings lists the same problems in file order.
	broken   map[string]error
	warnings []Warning
	// sn caches what single-node points read from the checkout's harness
	// (workflows, runners.yaml, launchers); see singlenode.go.
	sn snCache
}

// Warning is the problem of one config key that did not load: where it is
// (1-based line and column), which key, and what is wrong without the
// position, e.g. {Pos: configs/amd-master.yaml:724:20, Key: "k", Msg:
// `k.kv-p2p-transfer: unknown value "x" (want one of: …)`}.
type Warning struct {
	Pos Pos    `json:"pos"`
	Key string `json:"key"`
	Msg string `json:"msg"`
}

// String gives "file:line:col: msg", the form the CLI prints to stderr.
func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }

// Open reads the master configs of the InferenceX checkout at root.
//
// Where the master configs are, first match wins:
//
//  1. root/inferencex-e2e/configs/*-master.yaml: the new layout;
//  2. root/configs/*-master.yaml: the old layout (new when root is itself
//     an inferencex-e2e tree, i.e. is named so or has configs/srt-recipes/
//     or infx/); InferenceX from 2026-07-02 (e9fc98807 "move configs to
//     root level") on;
//  3. root/.github/configs/*-master.yaml: the old layout before 2026-07-02.
//
// This follows InferenceX's own matrix code: utils/constants.py
// MASTER_CONFIGS, which run-sweep / process_changelog.py pass to
// utils/matrix_logic/validation.py load_config_files, names exactly
// amd-master.yaml and nvidia-master.yaml in .github/configs/ (then
// configs/), and runners.yaml (RUNNER_CONFIG) lives next to them. At every
// commit from 2026-06-01 to 2026-08-22 the *-master.yaml glob of that
// directory is exactly those two files. The deprecated/ subdirectory
// (configs/deprecated/, .github/configs/deprecated/ from 2026-06-20) holds
// retired keys that MASTER_CONFIGS does not list, so it is not read.
//
// A config key whose entry breaks the master schema (validate.go; the
// union of the schemas of that period, so that any commit loads) does not
// fail Open: Entry and Points return its positioned error when that key is
// asked for, ConfigKeys leaves it out, and Warnings lists it so the caller
// can report the keys it did not ask for. A key defined twice (in one file
// or in both) is such a problem too. Errors: no master config found; a
// master that cannot be read or is not YAML or not a mapping (PosError
// with file:line:col). With no master config at all the error wraps
// ErrNoMasterConfig.
func Open(root string) (*Workspace, error) {
	ws := &Workspace{Root: root}
	e2e := filepath.Join(root, "inferencex-e2e")
	if ms := masterFiles(filepath.Join(e2e, "configs")); len(ms) > 0 {
		ws.Base, ws.Layout, ws.Masters = e2e, LayoutNew, ms
		ws.ConfigsDir = filepath.Join(e2e, "configs")
	} else if ms := masterFiles(filepath.Join(root, "configs")); len(ms) > 0 {
		ws.Base, ws.Layout, ws.Masters = root, LayoutOld, ms
		ws.ConfigsDir = filepath.Join(root, "configs")
		if filepath.Base(filepath.Clean(root)) == "inferencex-e2e" || isDir(filepath.Join(root, "configs", "srt-recipes")) || isDir(filepath.Join(root, "infx")) {
			ws.Layout = LayoutNew
		}
	} else if ms := masterFiles(filepath.Join(root, ".github", "configs")); len(ms) > 0 {
		ws.Base, ws.Layout, ws.Masters = root, LayoutOld, ms
		ws.ConfigsDir = filepath.Join(root, ".github", "configs")
	} else {
		return nil, &PosError{File: root, Err: fmt.Errorf("%w (configs/*-master.yaml, .github/configs/*-master.yaml or inferencex-e2e/configs/*-master.yaml)", ErrNoMasterConfig)}
	}
	if err := ws.load(ws.Masters); err != nil {
		return nil, err
	}
	return ws, nil
}

// load parses the master files in order into ws's entries, broken keys and
// warnings. Errors: a file that cannot be read, is not YAML or not a
// mapping.
func (ws *Workspace) load(files []string) error {
	var items []masterItem
	for _, m := range files {
		data, err := launch.ReadInput(m)
		if err != nil {
			return readError(m, err)
		}
		its, err := parseMaster(m, data)
		if err != nil {
			return err
		}
		items = append(items, its...)
	}
	ws.setItems(items)
	return nil
}

// readError turns a master config that cannot be read (missing, a
// dangling link, unreadable, a FIFO or device, too large) into a PosError
// naming the file, so that every command reports it as bad input.
func readError(file string, err error) error {
	var ie *PosError
	if errors.As(err, &ie) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &PosError{File: file, Msg: "master config cannot be read: " + pe.Err.Error(), Err: err}
	}
	return &PosError{File: file, Msg: "master config cannot be read: " + err.Error(), Err: err}
}

// setItems sets ws's entries, broken keys and warnings from the config keys
// of every master, in file order.
func (ws *Workspace) setItems(items []masterItem) {
	ws.byKey, ws.broken, ws.entries, ws.warnings = map[string]*Entry{}, map[string]error{}, nil, nil
	// A key's problem: its first definition's, else its first
	// redefinition's (validation.py load_config_files refuses a key
	// defined in two files; PyYAML would keep the last of one file).
	first := map[string]masterItem{}
	var order []string
	problem := map[string]error{}
	for _, it := range items {
		f, seen := first[it.key]
		switch {
		case !seen:
			first[it.key] = it
			order = append(order, it.key)
			if it.err != nil {
				problem[it.key] = it.err
			}
		case problem[it.key] != nil:
		case it.err != nil && it.pos.File == f.pos.File:
			problem[it.key] = it.err // parseMaster's "already defined at line"
		default:
			problem[it.key] = &PosError{File: it.pos.File, Line: it.pos.Line, Col: it.pos.Col,
				Err: fmt.Errorf("config key %q already defined at %s", it.key, f.pos)}
		}
	}
	for _, k := range order {
		if err := problem[k]; err != nil {
			ws.broken[k] = err
			ws.warnings = append(ws.warnings, warningOf(k, first[k].pos, err))
			continue
		}
		e := first[k].entry
		ws.byKey[k] = e
		ws.entries = append(ws.entries, e)
	}
}

// warningOf turns a key's problem into a Warning, at the problem's
// position when it has one, else at the key.
func warningOf(key string, at Pos, err error) Warning {
	w := Warning{Pos: at, Key: key, Msg: err.Error()}
	var pe *PosError
	if errors.As(err, &pe) {
		w.Msg = pe.Msg
		if w.Msg == "" && pe.Err != nil {
			w.Msg = pe.Err.Error()
		}
		if pe.Path != "" {
			w.Msg = pe.Path + ": " + w.Msg
		}
		if pe.Line > 0 {
			w.Pos = Pos{File: pe.File, Line: pe.Line, Col: pe.Col}
		}
	}
	return w
}

// Warnings returns the problems of every config key that did not load, in
// file order (the first problem of each key; a copy). Entry and Points
// return the same problem as the error for that key, so a caller that asks
// for some keys reports those as errors and the Warnings of the other keys
// (Warning.Key not asked for) on stderr.
func (ws *Workspace) Warnings() []Warning {
	return slices.Clone(ws.warnings)
}

// masterFiles lists dir/*-master.yaml, sorted (not subdirectories such as
// deprecated/).
func masterFiles(dir string) []string {
	ms, _ := filepath.Glob(filepath.Join(dir, "*-master.yaml"))
	sort.Strings(ms)
	return ms
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// rel gives p relative to Root when it is inside it (for messages).
func (ws *Workspace) rel(p string) string {
	return ws.relTo(ws.Root, p)
}

// ConfigKeys returns every config key that loaded, in master file order
// (sorted file names) and then file order; keys that did not load are in
// Warnings.
func (ws *Workspace) ConfigKeys() []string {
	out := make([]string, len(ws.entries))
	for i, e := range ws.entries {
		out[i] = e.Key
	}
	return out
}

// Entry returns the parsed master entry of key. Errors: the key's problem
// (a *PosError, file:line:col) when its entry breaks the master schema or
// the key is defined twice; ErrUnknownKey when no master defines it.
func (ws *Workspace) Entry(key string) (*Entry, error) {
	if err, ok := ws.broken[key]; ok {
		return nil, err
	}
	e, ok := ws.byKey[key]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, key)
	}
	return e, nil
}
