package infx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
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
	// SrtSlurmDir, when set, is a checkout of NVIDIA/srt-slurm whose
	// recipes/ directory resolves CONFIG_FILE=recipes/… references that are
	// not in the InferenceX checkout (otherwise such points are
	// StatusUpstreamOnly).
	SrtSlurmDir string

	entries []*Entry
	byKey   map[string]*Entry
	// dramMiB is runners.yaml hardware[label].available-cpu-dram-mib.
	dramMiB map[string]int
}

// Open reads the master configs of the InferenceX checkout at root, detecting
// the layout: root/inferencex-e2e/configs/*-master.yaml (new), or
// root/configs/*-master.yaml (new when root is itself an inferencex-e2e tree,
// i.e. has configs/srt-recipes/ or infx/, else old). Errors: no master config
// found; a master that does not parse (PosError with file:line:col); a config
// key defined twice.
func Open(root string) (*Workspace, error) {
	ws := &Workspace{Root: root, byKey: map[string]*Entry{}}
	e2e := filepath.Join(root, "inferencex-e2e")
	if ms := masterFiles(e2e); len(ms) > 0 {
		ws.Base, ws.Layout, ws.Masters = e2e, LayoutNew, ms
	} else if ms := masterFiles(root); len(ms) > 0 {
		ws.Base, ws.Layout, ws.Masters = root, LayoutOld, ms
		if filepath.Base(filepath.Clean(root)) == "inferencex-e2e" || isDir(filepath.Join(root, "configs", "srt-recipes")) || isDir(filepath.Join(root, "infx")) {
			ws.Layout = LayoutNew
		}
	} else {
		return nil, fmt.Errorf("%s: no InferenceX master config (configs/*-master.yaml or inferencex-e2e/configs/*-master.yaml)", root)
	}
	ws.dramMiB = loadRunnerDRAM(ws.Base)
	for _, m := range ws.Masters {
		data, err := launch.ReadInput(m)
		if err != nil {
			return nil, err
		}
		es, err := parseMaster(m, data)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if prev, dup := ws.byKey[e.Key]; dup {
				return nil, &PosError{File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col, Err: fmt.Errorf("config key %q already defined at %s", e.Key, prev.Pos)}
			}
			ws.byKey[e.Key] = e
			ws.entries = append(ws.entries, e)
		}
	}
	return ws, nil
}

func masterFiles(dir string) []string {
	ms, _ := filepath.Glob(filepath.Join(dir, "configs", "*-master.yaml"))
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
	if r, err := filepath.Rel(ws.Root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// ConfigKeys returns every config key of every master config, in master file
// order (sorted file names) and then file order.
func (ws *Workspace) ConfigKeys() []string {
	out := make([]string, len(ws.entries))
	for i, e := range ws.entries {
		out[i] = e.Key
	}
	return out
}

// Entry returns the parsed master entry of key (ErrUnknownKey if none).
func (ws *Workspace) Entry(key string) (*Entry, error) {
	e, ok := ws.byKey[key]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, key)
	}
	return e, nil
}
