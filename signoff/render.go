package signoff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// pointID names a point of a config key: master row and concurrency.
type pointID struct{ Row, Conc int }

// keyRender is one config key rendered at one commit: every in-scope
// point's outcome, its deployment when it rendered, and the key's master
// entry in canonical form.
type keyRender struct {
	framework string
	inScope   bool
	entry     string // canonical JSON of the master entry, position left out
	points    map[pointID]pointRender
	files     map[string]bool // the files the rendered deployments name (repository-relative)
	named     []string        // the single-node scripts its rows name by the launchers' rule (infx.Workspace.ScriptCandidates)
	rendered  bool            // its points were rendered
	master    string          // the master config file holding its entry
}

type pointRender struct {
	status string
	reason string
	d      *launch.Deployment
	fp     string
}

// tree is one materialized commit: its workspace and its keys.
type tree struct {
	dir  string
	ws   *infx.Workspace
	keys map[string]*keyRender
}

// loadTree opens the InferenceX tree at dir (with the srt-slurm checkouts
// of copt) and reads every config key's master entry (nothing rendered
// yet).
func loadTree(dir string, copt coverage.Options) (*tree, error) {
	ws, err := infx.Open(dir)
	if err != nil {
		return nil, err
	}
	// recipes a launcher submits from its srt-slurm clone render from the
	// checkouts given, as in the coverage run
	ws.SrtSlurmDir, ws.SrtSlurmVersion, ws.SrtSlurmForks = copt.SrtSlurmDir, copt.SrtSlurmVersion, copt.SrtSlurmForks
	t := &tree{dir: dir, ws: ws, keys: map[string]*keyRender{}}
	for _, k := range ws.ConfigKeys() {
		e, err := ws.Entry(k)
		if err != nil {
			t.keys[k] = &keyRender{points: map[pointID]pointRender{}, files: map[string]bool{}, entry: "error: " + strip(err.Error(), dir)}
			continue
		}
		kr := &keyRender{framework: e.Framework, inScope: infx.InScope(e.Framework), entry: canonicalEntry(e),
			points: map[pointID]pointRender{}, files: map[string]bool{}, named: ws.ScriptCandidates(k)}
		if p := e.Pos.File; p != "" {
			// the master config is read through the entry (compared
			// as such), not as a file every key of it depends on
			kr.master = rel(p, dir)
		}
		t.keys[k] = kr
	}
	return t, nil
}

// render renders the in-scope keys of t among keys (every point, through
// RenderAll) into t.keys; the tree's own path is replaced by "<tree>" in
// what is compared (two commits are materialized in two directories).
func (t *tree) render(ctx context.Context, keys []string, opt infx.Options) error {
	dir, out := t.dir, t.keys
	var todo []string
	for _, k := range keys {
		// out-of-scope keys too: RenderAll names their files without
		// rendering them (a change to one is then no shared change)
		if kr := out[k]; kr != nil && kr.framework != "" {
			kr.rendered = true
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	opt.OnPoint = func(r infx.PointResult, d *launch.Deployment) {
		kr := out[r.ConfigKey]
		if kr == nil {
			return
		}
		pr := pointRender{status: string(r.Status), reason: strip(r.Reason, dir), d: d}
		if d != nil {
			pr.fp = fingerprint(d, dir)
			for _, f := range deploymentFiles(d) {
				if f := rel(f, dir); f != kr.master {
					kr.files[f] = true
				}
			}
		} else {
			// positions left out: a launcher edited above the line that
			// decides leaves the outcome the same
			pr.fp = "status " + pr.status + ": " + positionRe.ReplaceAllString(pr.reason, "")
		}
		if r.File != "" {
			kr.files[rel(r.File, dir)] = true
		}
		kr.points[pointID{r.Row, r.Concurrency}] = pr
	}
	_, err := t.ws.RenderAll(ctx, todo, opt)
	return err
}

// positionRe is a ":line" or ":line:col" after a file name.
var positionRe = regexp.MustCompile(`:\d+(?::\d+)?\b`)

// rel is p relative to the tree dir (slash-separated), p itself when it
// is already relative.
func rel(p, dir string) string {
	p = strings.TrimPrefix(p, dir+"/")
	return strings.TrimPrefix(p, "./")
}

// strip replaces the tree directory in s by "<tree>".
// canonicalEntry is a master entry as compared between two commits: its
// JSON form with every position left out — the entry's, its rows' and
// its settings' (a "pos" object anywhere) — so an entry that moved, or
// is read from another directory, is the same entry.
func canonicalEntry(e *infx.Entry) string {
	b, err := json.Marshal(e)
	if err != nil {
		return "error: " + err.Error()
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "error: " + err.Error()
	}
	out, err := json.Marshal(dropPositions(v))
	if err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}

// dropPositions removes every "pos" and "refPos" member from the objects
// of v (a decoded JSON value), in place, and returns v.
func dropPositions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "pos")
		delete(x, "refPos")
		for _, m := range x {
			dropPositions(m)
		}
	case []any:
		for _, m := range x {
			dropPositions(m)
		}
	}
	return v
}

func strip(s, dir string) string { return strings.ReplaceAll(s, dir, "<tree>") }

// deploymentFiles are the files a deployment names: its source file and
// the origin of every process and setting.
func deploymentFiles(d *launch.Deployment) []string {
	var out []string
	if d.Source.File != "" {
		out = append(out, d.Source.File)
	}
	for _, p := range d.Processes {
		if p.Origin.Path != "" {
			out = append(out, p.Origin.Path)
		}
		for _, a := range p.Args {
			if a.Origin.Path != "" {
				out = append(out, a.Origin.Path)
			}
		}
		for _, e := range p.Env {
			if e.Origin.Path != "" {
				out = append(out, e.Origin.Path)
			}
		}
	}
	for i, f := range out {
		// an origin may carry ":line"
		if j := strings.LastIndexByte(f, ':'); j > 0 && strings.Trim(f[j+1:], "0123456789") == "" {
			out[i] = f[:j]
		}
	}
	return out
}

// fpProcess is what a process fingerprint covers: everything that runs,
// nothing about where it was read from.
type fpProcess struct {
	Kind, Role, Program, Image string
	Args                       []string
	Env                        []string
	Workers, NodesPerWorker    int
	GPUsPerNode, Count, Nodes  int
	Ports, Preamble, Files     []string
	FileContents               []string
}

// fingerprint is the SHA-256 of the deployment's engine, model, hardware
// and processes (programs, images, arguments, environment, counts, files
// and their contents), origins left out and the tree directory replaced.
func fingerprint(d *launch.Deployment, dir string) string {
	v := struct {
		Engine, Model, Hardware string
		Processes               []fpProcess
	}{d.Engine, d.Model, d.Hardware, nil}
	for _, p := range d.Processes {
		v.Processes = append(v.Processes, processFP(p))
	}
	b, _ := json.Marshal(v)
	h := sha256.Sum256([]byte(strip(string(b), dir)))
	return hex.EncodeToString(h[:])
}

func processFP(p launch.Process) fpProcess {
	fp := fpProcess{Kind: string(p.Kind), Role: string(p.Role), Program: p.Program, Image: p.Image, Workers: p.Workers,
		NodesPerWorker: p.NodesPerWorker, GPUsPerNode: p.GPUsPerNode, Count: p.Count, Nodes: p.CountNodes,
		Ports: p.Ports, Preamble: p.Preamble, Files: p.Files}
	for _, a := range p.Args {
		fp.Args = append(fp.Args, strings.TrimSpace(a.Flag+" "+strings.Join(a.Values, " ")))
	}
	for _, e := range p.Env {
		fp.Env = append(fp.Env, e.Name+"="+e.Value)
	}
	for _, c := range p.FileContents {
		// what the file is and holds, not where it was read from
		fp.FileContents = append(fp.FileContents, c.Path+"\x00"+c.Content)
	}
	return fp
}

// renderChanges says what changed in a key's render from base to head:
// points added and removed, point outcomes, and per role the settings
// whose values differ (deduplicated over the key's points, at most max
// lines; the last says how many more).
func renderChanges(base, head *keyRender, dirBase, dirHead string, max int) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	ids := map[pointID]bool{}
	for id := range base.points {
		ids[id] = true
	}
	for id := range head.points {
		ids[id] = true
	}
	sorted := make([]pointID, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Row != sorted[j].Row {
			return sorted[i].Row < sorted[j].Row
		}
		return sorted[i].Conc < sorted[j].Conc
	})
	var added, removed []string
	for _, id := range sorted {
		b, inB := base.points[id]
		h, inH := head.points[id]
		switch {
		case !inB:
			added = append(added, fmt.Sprintf("row %d conc %d", id.Row, id.Conc))
		case !inH:
			removed = append(removed, fmt.Sprintf("row %d conc %d", id.Row, id.Conc))
		case b.fp == h.fp:
		case b.d == nil || h.d == nil:
			add(fmt.Sprintf("outcome: %s → %s", outcome(b), outcome(h)))
		default:
			for _, s := range deploymentDiff(b.d, h.d, dirBase, dirHead) {
				add(s)
			}
		}
	}
	if len(added) > 0 {
		out = append([]string{"points added: " + joinCapped(added, 6)}, out...)
	}
	if len(removed) > 0 {
		out = append([]string{"points removed: " + joinCapped(removed, 6)}, out...)
	}
	if base.entry != head.entry && len(out) == 0 {
		out = append(out, "master-config entry changed")
	}
	if len(out) > max {
		n := len(out) - max
		out = append(out[:max], fmt.Sprintf("… %d more", n))
	}
	return out
}

func outcome(p pointRender) string {
	if p.d != nil {
		return "rendered"
	}
	if p.reason != "" {
		return p.status + " (" + p.reason + ")"
	}
	return p.status
}

func joinCapped(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
}

// deploymentDiff lists the differences of two renders of one point:
// per process (matched by kind, role and order) the program, image,
// arguments and environment that differ ("agg: --mem-fraction-static 0.85
// → 0.9", "decode: env X (absent) → 1"), and a count of processes.
func deploymentDiff(a, b *launch.Deployment, dirA, dirB string) []string {
	var out []string
	if a.Model != b.Model {
		out = append(out, fmt.Sprintf("model %s → %s", a.Model, b.Model))
	}
	type slot struct {
		kind, role string
		n          int
	}
	index := func(d *launch.Deployment) (map[slot]launch.Process, []slot) {
		m := map[slot]launch.Process{}
		var order []slot
		count := map[[2]string]int{}
		for _, p := range d.Processes {
			k := [2]string{string(p.Kind), string(p.Role)}
			s := slot{k[0], k[1], count[k]}
			count[k]++
			m[s] = p
			order = append(order, s)
		}
		return m, order
	}
	pa, oa := index(a)
	pb, ob := index(b)
	name := func(s slot) string {
		n := s.role
		if n == "" {
			n = s.kind
		}
		if s.n > 0 {
			n += fmt.Sprintf("#%d", s.n+1)
		}
		return n
	}
	for _, s := range ob {
		if _, ok := pa[s]; !ok {
			out = append(out, name(s)+": process added ("+pb[s].Program+")")
		}
	}
	for _, s := range oa {
		x := pa[s]
		y, ok := pb[s]
		if !ok {
			out = append(out, name(s)+": process removed ("+x.Program+")")
			continue
		}
		fx, fy := processFP(x), processFP(y)
		if fx.Program != fy.Program {
			out = append(out, fmt.Sprintf("%s: program %s → %s", name(s), fx.Program, fy.Program))
		}
		if fx.Image != fy.Image {
			out = append(out, fmt.Sprintf("%s: image %s → %s", name(s), orAbsent(fx.Image), orAbsent(fy.Image)))
		}
		ao, am := argMap(x)
		bo, bm := argMap(y)
		eao, eam := envMap(x)
		ebo, ebm := envMap(y)
		for _, d := range append(settingDiff(ao, am, bo, bm, ""), settingDiff(eao, eam, ebo, ebm, "env ")...) {
			out = append(out, name(s)+": "+strip(strip(d, dirA), dirB))
		}
		if fx.Workers != fy.Workers || fx.Count != fy.Count || fx.NodesPerWorker != fy.NodesPerWorker || fx.GPUsPerNode != fy.GPUsPerNode {
			out = append(out, fmt.Sprintf("%s: workers %d×%d nodes×%d GPUs → %d×%d nodes×%d GPUs", name(s),
				max(fx.Workers, fx.Count), fx.NodesPerWorker, fx.GPUsPerNode, max(fy.Workers, fy.Count), fy.NodesPerWorker, fy.GPUsPerNode))
		}
		if strip(strings.Join(fx.FileContents, "\n"), dirA) != strip(strings.Join(fy.FileContents, "\n"), dirB) {
			out = append(out, fileChanges(name(s), x.FileContents, y.FileContents, dirA, dirB)...)
		}
	}
	return out
}

// fileChanges names each file a process reads whose content the range
// changed (by path: added, removed, or changed with its first differing
// line, base → head, each side at most 120 characters).
func fileChanges(role string, a, b []launch.FileContent, dirA, dirB string) []string {
	at := map[string]string{}
	for _, f := range a {
		at[rel(f.Path, dirA)] = f.Content
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range b {
		p := rel(f.Path, dirB)
		seen[p] = true
		old, ok := at[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: file %s added", role, p))
		case old != f.Content:
			la, lb := firstDiffLine(old, f.Content)
			out = append(out, fmt.Sprintf("%s: file %s: %s → %s", role, p, la, lb))
		}
	}
	for _, f := range a {
		if p := rel(f.Path, dirA); !seen[p] {
			out = append(out, fmt.Sprintf("%s: file %s removed", role, p))
		}
	}
	if len(out) == 0 {
		out = append(out, role+": file contents changed") // same paths and contents, other order
	}
	return out
}

// firstDiffLine is the first line where a and b differ, trimmed, each at
// most 120 characters; "(absent)" past a side's end.
func firstDiffLine(a, b string) (string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		x, y := "(absent)", "(absent)"
		if i < len(la) {
			x = strings.TrimSpace(la[i])
		}
		if i < len(lb) {
			y = strings.TrimSpace(lb[i])
		}
		if x != y {
			return report.ClipEnd(x, 120), report.ClipEnd(y, 120)
		}
	}
	return "", ""
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// argMap maps each flag (or positional argument, keyed by position) to
// its values joined.
func argMap(p launch.Process) ([]string, map[string]string) {
	m := map[string]string{}
	var order []string
	pos := 0
	for _, a := range p.Args {
		k := a.Flag
		if k == "" {
			k = fmt.Sprintf("argument %d", pos)
			pos++
		}
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		v := strings.Join(a.Values, " ")
		if v == "" && a.Flag != "" {
			v = "(set)"
		}
		m[k] = v
	}
	return order, m
}

func envMap(p launch.Process) ([]string, map[string]string) {
	m := map[string]string{}
	var order []string
	for _, e := range p.Env {
		if _, ok := m[e.Name]; !ok {
			order = append(order, e.Name)
		}
		m[e.Name] = e.Value
	}
	return order, m
}

// settingDiff lists "name old → new" for every setting whose value differs
// (absent on one side: "(absent)"), in head order then base-only ones.
func settingDiff(aOrder []string, a map[string]string, bOrder []string, b map[string]string, prefix string) []string {
	var out []string
	for _, k := range bOrder {
		va, ok := a[k]
		if !ok {
			va = "(absent)"
		}
		if va != b[k] || !ok {
			out = append(out, fmt.Sprintf("%s%s %s → %s", prefix, k, va, b[k]))
		}
	}
	for _, k := range aOrder {
		if _, ok := b[k]; !ok {
			out = append(out, fmt.Sprintf("%s%s %s → (absent)", prefix, k, a[k]))
		}
	}
	return out
}
