package cookbook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Selection is one choice on the AgentX page: cell index, point index,
// router ("sglang" | "dynamo") and KV tier ("none" | "hicache" | "mooncake").
type Selection struct {
	Cell, Point int
	Router, KV  string
}

// Selections returns every selection the page offers, in the oracle's line
// order (../shared/golden/agentx README): cells in file order, points in
// order, routers in Object.keys(cell.routers).sort() order, then KV tiers in
// the page's button order none, hicache, mooncake — the tiers of
// cell.kv.available plus the point's measured tier.
func (f *File) Selections() []Selection {
	var out []Selection
	for ci := range f.Cells {
		c := &f.Cells[ci]
		routers := sortedRouters(c)
		for pi := range c.Points {
			for _, r := range routers {
				for _, t := range kvTiers {
					if t == c.Points[pi].KV || slices.Contains(c.KV.Available, t) {
						out = append(out, Selection{Cell: ci, Point: pi, Router: r, KV: t})
					}
				}
			}
		}
	}
	return out
}

// Measured returns the selection the point was measured with: router =
// cell.submitted, KV tier = point.kv. Indexes are not checked (Decode does).
func (f *File) Measured(cell, point int) Selection {
	s := Selection{Cell: cell, Point: point}
	if cell >= 0 && cell < len(f.Cells) {
		c := &f.Cells[cell]
		s.Router = c.Submitted
		if point >= 0 && point < len(c.Points) {
			s.KV = c.Points[point].KV
		}
	}
	return s
}

// DefaultCell is the cell the page shows first (spec (b) "Selection state"):
// the first hardware (in `hardware` order) that has cells, the first
// checkpoint (in `checkpoints` order) among that hardware's cells, and the
// first cell in file order with that hardware and checkpoint. Falls back to
// 0 when no hardware/checkpoint entry matches a cell.
func (f *File) DefaultCell() int {
	for _, hw := range f.Hardware {
		for _, ck := range f.Checkpoints {
			for i := range f.Cells {
				if f.Cells[i].HW == hw.ID && f.Cells[i].Ckpt == ck.ID {
					return i
				}
			}
		}
	}
	return 0
}

// CellIndex finds a cell by id, or by decimal index.
func (f *File) CellIndex(idOrIndex string) (int, error) {
	for i := range f.Cells {
		if f.Cells[i].ID == idOrIndex {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(idOrIndex); err == nil {
		if n < 0 || n >= len(f.Cells) {
			return 0, fmt.Errorf("%s: cell index %d out of range (%d cells)", f.Name, n, len(f.Cells))
		}
		return n, nil
	}
	return 0, fmt.Errorf("%s: no cell with id %q", f.Name, idOrIndex)
}

// Block is one decoded process as the page shows it: its title (what the
// page writes after "# "), kind, worker role ("" for non-workers: null in
// the oracle) and shell text (lines joined by "\n", no trailing newline).
type Block struct {
	Title string
	Kind  string
	Role  string
	Text  string
}

// Decoded is one decoded selection. The first fields are exactly the
// oracle's (../shared/golden/agentx/<org>/<model>.jsx.golden.jsonl: file,
// cell, cellId, point, router, kv, measured, blocks, copyAll); Deployment is
// the same processes in the launch model, each arg and env var tagged with
// its Origin (cookbook / patch / kv-derived, with the JSON path).
type Decoded struct {
	File     string // path relative to docs/src/snippets/agentx/
	Cell     int
	CellID   string
	Point    int
	Router   string
	KV       string
	Measured bool // router == cell.submitted && kv == point.kv
	Blocks   []Block
	CopyAll  string // the "⧉ Copy all" clipboard text, no trailing newline

	Deployment launch.Deployment

	textAt []int // offset of Blocks[i].Text in CopyAll (for OracleJSON)
}

// Decode decodes one selection exactly as the page does (spec (b) steps
// 1–6): the materialized base (step 1), the point's patch (2, 3), the KV
// tier transform (4), shell text (5), titles and the copy-all text (6).
// Errors (*Error) name the bad selection: index out of range, unknown
// router, unknown or unavailable KV tier.
func (f *File) Decode(sel Selection) (*Decoded, error) {
	if sel.Cell < 0 || sel.Cell >= len(f.Cells) {
		return nil, &Error{File: f.Name, Msg: fmt.Sprintf("cell index %d out of range (%d cells)", sel.Cell, len(f.Cells))}
	}
	c := &f.Cells[sel.Cell]
	cp := jpath{"cells", sel.Cell}
	if sel.Point < 0 || sel.Point >= len(c.Points) {
		return nil, &Error{File: f.Name, Path: cp.with("points").String(), Msg: fmt.Sprintf("point index %d out of range (%d points)", sel.Point, len(c.Points))}
	}
	pt := &c.Points[sel.Point]
	base, ok := f.base[sel.Cell][sel.Router]
	if !ok {
		return nil, &Error{File: f.Name, Path: cp.with("routers").String(), Msg: fmt.Sprintf("unknown router %q (have %s)", sel.Router, strings.Join(sortedRouters(c), ", "))}
	}
	if !knownTier(sel.KV) {
		return nil, &Error{File: f.Name, Msg: fmt.Sprintf("unknown KV tier %q (want none, hicache or mooncake)", sel.KV)}
	}
	if sel.KV != pt.KV && !slices.Contains(c.KV.Available, sel.KV) {
		why := c.KV.Unavailable[sel.KV]
		if why == "" {
			why = "not in kv.available"
		}
		return nil, &Error{File: f.Name, Path: cp.with("kv").String(), Msg: fmt.Sprintf("KV tier %q is unavailable for cell %s: %s", sel.KV, c.ID, why)}
	}

	blocks := base
	if pb, ok := f.pointBlocks[routerPoint{sel.Cell, sel.Point, sel.Router}]; ok {
		blocks = pb
	}
	// Own copies of the processes; the KV transform edits them in place,
	// so workers get room for the args and env it may add.
	extraA, extraE := 0, 0
	if sel.KV != pt.KV {
		extraA = len(f.kv.mooncakeArgs) + len(f.kv.hicacheArgs[sel.Cell])
		extraE = len(f.kv.mooncakeEnv) + len(f.kv.mooncakeDecodeEnv)
	}
	procs := f.kvTransform(sel, cloneProcesses(blocks, extraA, extraE))

	d := &Decoded{
		File: f.Rel, Cell: sel.Cell, CellID: c.ID, Point: sel.Point, Router: sel.Router, KV: sel.KV,
		Measured: sel.Router == c.Submitted && sel.KV == pt.KV,
		Blocks:   make([]Block, len(procs)),
	}
	d.Deployment = launch.Deployment{
		Source: launch.Source{
			File: f.RepoPath, Commit: "sha256:" + f.SHA256,
			CellID: c.ID, Cell: sel.Cell, Point: sel.Point, Router: sel.Router, KV: sel.KV,
			ConfigKey: c.ConfigKey, Recipe: f.recipeOf(c, pt), Selector: pt.Override,
		},
		Engine: "sglang", Model: c.Ckpt, Hardware: c.HW,
		Processes: procs,
	}
	rt := c.Routers[sel.Router]
	// Build the copy-all body in one buffer; block texts are substrings.
	body := make([]byte, 0, textSize(procs))
	type span struct{ lo, hi int }
	spans := make([]span, len(procs))
	for i := range procs {
		p := &procs[i]
		title := Title(p.Kind, p.Role)
		if i > 0 {
			body = append(body, "\n\n"...)
		}
		body = append(body, "# "...)
		body = append(body, title...)
		body = append(body, '\n')
		lo := len(body)
		body = launch.AppendFormat(body, p)
		spans[i] = span{lo, len(body)}
		d.Blocks[i] = Block{Title: title, Kind: string(p.Kind), Role: string(p.Role)}
	}
	// Placeholders: the body first, then the router's files (name, content).
	var names []string
	names = scanPlaceholders(names, body)
	for _, k := range rt.Files {
		if fe, ok := f.Files.Lookup(k); ok {
			names = scanPlaceholders(names, fe.Name)
			names = scanPlaceholders(names, fe.Content)
		}
	}
	var b strings.Builder
	if len(names) > 0 {
		b.Grow(len(body) + 80*len(names))
		b.WriteString("# Set per node before running the commands below\n")
		for _, n := range names {
			b.WriteString("export ")
			b.WriteString(n)
			b.WriteString("=<")
			b.WriteString(PlaceholderDescription(n))
			b.WriteString(">\n")
		}
		b.WriteByte('\n')
	} else {
		b.Grow(len(body))
	}
	head := b.Len()
	b.Write(body)
	d.CopyAll = b.String()
	d.textAt = make([]int, len(procs))
	for i := range procs {
		p := &procs[i]
		text := d.CopyAll[head+spans[i].lo : head+spans[i].hi]
		d.Blocks[i].Text = text
		d.textAt[i] = head + spans[i].lo
		for _, k := range rt.Files {
			if fe, ok := f.Files.Lookup(k); ok && fe.Name != "" && strings.Contains(text, fe.Name) && !slices.Contains(p.Files, fe.Name) {
				p.Files = append(p.Files, fe.Name)
			}
		}
	}
	return d, nil
}

// textSize estimates the length of the copy-all body of procs (quoting may
// add a few bytes per value).
func textSize(procs []launch.Process) int {
	n := 0
	for i := range procs {
		p := &procs[i]
		n += 48 + len(p.Program)
		for _, l := range p.Preamble {
			n += len(l) + 1
		}
		for _, e := range p.Env {
			n += len(e.Name) + len(e.Value) + 6
		}
		for _, a := range p.Args {
			n += len(a.Flag) + 6
			for _, v := range a.Values {
				n += len(v) + 3
			}
		}
	}
	return n
}

// cloneProcesses deep-copies the blocks' processes (in four allocations)
// so that the KV transform may edit them and callers may modify a Decoded's
// Deployment without touching the File's shared blocks. Worker processes
// get room for extraA more args and extraE more env vars; the result has
// room for one more process.
func cloneProcesses(blocks []mblock, extraA, extraE int) []launch.Process {
	na, ne, nv := 0, 0, 0
	for i := range blocks {
		p := &blocks[i].p
		na += len(p.Args)
		ne += len(p.Env)
		if p.Kind == launch.KindWorker {
			na += extraA
			ne += extraE
		}
		for _, a := range p.Args {
			nv += len(a.Values)
		}
	}
	out := make([]launch.Process, len(blocks), len(blocks)+1)
	args := make([]launch.Arg, 0, na)
	env := make([]launch.EnvVar, 0, ne)
	vals := make([]string, 0, nv)
	for i := range blocks {
		p := &blocks[i].p
		q := *p
		xa, xe := 0, 0
		if p.Kind == launch.KindWorker {
			xa, xe = extraA, extraE
		}
		if p.Args != nil {
			lo := len(args)
			for _, a := range p.Args {
				vlo := len(vals)
				vals = append(vals, a.Values...)
				if a.Values != nil {
					a.Values = vals[vlo:len(vals):len(vals)]
				}
				args = append(args, a)
			}
			q.Args = args[lo : len(args) : len(args)+xa]
			args = args[:len(args)+xa]
		}
		if p.Env != nil || xe > 0 {
			lo := len(env)
			env = append(env, p.Env...)
			q.Env = env[lo : len(env) : len(env)+xe]
			env = env[:len(env)+xe]
		}
		q.Ports = slices.Clone(p.Ports)
		q.Preamble = slices.Clone(p.Preamble)
		q.Files = nil
		out[i] = q
	}
	return out
}

// routerPoint keys the patched blocks of one point and router.
type routerPoint struct {
	cell, point int
	router      string
}

// preparePoints applies every point's patches (points >= 1) once.
func (f *File) preparePoints() {
	f.pointBlocks = map[routerPoint][]mblock{}
	for ci := range f.Cells {
		c := &f.Cells[ci]
		for pi := 1; pi < len(c.Points); pi++ {
			for _, rp := range c.Points[pi].Patch {
				base, ok := f.base[ci][rp.Router]
				if !ok || rp.Null {
					continue
				}
				f.pointBlocks[routerPoint{ci, pi, rp.Router}] = f.patched(Selection{Cell: ci, Point: pi, Router: rp.Router}, base)
			}
		}
	}
}

// patched applies the point's patch for the router to the base blocks
// (spec (b) step 2). Point 0 is the base itself.
func (f *File) patched(sel Selection, base []mblock) []mblock {
	if sel.Point == 0 {
		return base
	}
	rp := f.Cells[sel.Cell].Points[sel.Point].Patch.For(sel.Router)
	if rp == nil || rp.Null {
		return base
	}
	pp := jpath{"cells", sel.Cell, "points", sel.Point, "patch", sel.Router}.String()
	if rp.Replace != nil {
		out := make([]mblock, len(rp.Replace))
		for i := range rp.Replace {
			out[i] = fromEntry(&rp.Replace[i], launch.OriginPatch, pp+".replace["+itoa(i)+"]")
		}
		return out
	}
	out := make([]mblock, len(base))
	for i := range base {
		var d *Diff
		if i < len(rp.Blocks) {
			d = rp.Blocks[i]
		}
		out[i] = applyDiff(base[i], d, launch.OriginPatch, pp+"["+itoa(i)+"]")
	}
	return out
}

// kvSettings are the settings the KV transform adds, with their origins,
// computed once per file.
type kvSettings struct {
	hicacheArgs       [][]launch.Arg // per cell
	mooncakeArgs      []launch.Arg
	mooncakeEnv       []launch.EnvVar
	mooncakeDecodeEnv []launch.EnvVar
	master            map[string]mblock // per router
}

func (f *File) prepareKV() {
	f.kv.hicacheArgs = make([][]launch.Arg, len(f.Cells))
	for ci := range f.Cells {
		if h := f.Cells[ci].KV.HiCache; h != nil {
			f.kv.hicacheArgs[ci] = args(h.Args, launch.OriginKVDerived, jpath{"cells", ci, "kv", "hicache", "args"}.String())
		}
	}
	if m := f.KVMooncake; m != nil {
		f.kv.mooncakeArgs = args(m.Args, launch.OriginKVDerived, "kvMooncake.args")
		f.kv.mooncakeEnv = envVars(m.Env, launch.OriginKVDerived, "kvMooncake.env")
		f.kv.mooncakeDecodeEnv = envVars(m.DecodeEnv, launch.OriginKVDerived, "kvMooncake.decode_env")
		f.kv.master = map[string]mblock{}
		for r, b := range m.Master {
			f.kv.master[r] = fromEntry(&b, launch.OriginKVDerived, "kvMooncake.master"+keyPath(r))
		}
	}
}

// isKVFlag reports the worker flags the KV transform removes.
func isKVFlag(flag string) bool {
	return flag == "--enable-hierarchical-cache" || strings.HasPrefix(flag, "--hicache-") ||
		flag == "--enable-unified-cache-external-linker" || flag == "--unified-cache-external-linker-backend"
}

// storeOnlyEnv are the env vars removed from workers when leaving a measured
// mooncake tier.
var storeOnlyEnv = [...]string{"MOONCAKE_MASTER", "MOONCAKE_TE_META_DATA_SERVER", "MOONCAKE_GLOBAL_SEGMENT_SIZE", "MOONCAKE_STANDALONE_STORAGE"}

// kvTransform switches the blocks from the point's measured KV tier to the
// selected one (spec (b) step 4). No-op when they are equal.
func (f *File) kvTransform(sel Selection, procs []launch.Process) []launch.Process {
	c := &f.Cells[sel.Cell]
	source, target := c.Points[sel.Point].KV, sel.KV
	if source == target {
		return procs
	}
	// procs are owned by this decode: filter and edit them in place.
	out := procs[:0]
	for i := range procs {
		p := procs[i]
		if source == launch.KVMooncake && (p.Kind == launch.KindMooncakeMaster || p.Kind == launch.KindMooncakeStore) {
			continue
		}
		if p.Kind == launch.KindWorker {
			na := p.Args[:0]
			for _, a := range p.Args {
				if !isKVFlag(a.Flag) {
					na = append(na, a)
				}
			}
			ne := p.Env[:0]
			for _, e := range p.Env {
				if source == launch.KVMooncake && slices.Contains(storeOnlyEnv[:], e.Name) {
					continue
				}
				ne = append(ne, e)
			}
			kept, keptEnv := len(na), len(ne)
			addArgs := func(add []launch.Arg) {
				for _, x := range add {
					if !hasFlag(na, x.Flag) {
						na = append(na, x)
					}
				}
			}
			addEnv := func(add []launch.EnvVar) {
				for _, x := range add {
					if !hasEnv(ne, x.Name) {
						ne = append(ne, x)
					}
				}
			}
			if p.Role == launch.RoleAgg || p.Role == launch.RolePrefill {
				switch target {
				case launch.KVHiCache:
					addArgs(f.kv.hicacheArgs[sel.Cell])
				case launch.KVMooncake:
					addArgs(f.kv.mooncakeArgs)
					addEnv(f.kv.mooncakeEnv)
				}
			} else if target == launch.KVMooncake {
				addEnv(f.kv.mooncakeDecodeEnv)
			}
			sortAppended(na, kept, cmpWorkerArgs)
			sortAppended(ne, keptEnv, cmpEnv)
			p.Args, p.Env = na, ne
		}
		out = append(out, p)
	}
	if target == launch.KVMooncake {
		master := cloneProcesses([]mblock{f.kv.master[sel.Router]}, 0, 0)[0]
		at := slices.IndexFunc(out, func(p launch.Process) bool { return p.Kind == launch.KindWorker })
		if at < 0 {
			at = max(len(out)-1, 0) // the page's splice(-1, 0, master)
		}
		out = slices.Insert(out, at, master)
	}
	return out
}

// Title is the block title the page prints after "# " (spec (b) step 6):
// workers by role (Worker, Prefill worker, Decode worker), other kinds from a
// fixed table, an unknown kind titled with the kind itself.
func Title(k launch.Kind, r launch.Role) string {
	switch k {
	case launch.KindWorker:
		switch r {
		case launch.RolePrefill:
			return "Prefill worker"
		case launch.RoleDecode:
			return "Decode worker"
		}
		return "Worker"
	case launch.KindEtcd:
		return "etcd — Dynamo control plane"
	case launch.KindNATS:
		return "NATS — Dynamo KV-event plane"
	case launch.KindMooncakeMaster:
		return "Mooncake master"
	case launch.KindMooncakeStore:
		return "Mooncake store"
	case launch.KindDynamoFrontend:
		return "Dynamo frontend (OpenAI API)"
	case launch.KindSGLangRouter:
		return "SGLang router (OpenAI API)"
	case launch.KindNginx:
		return "nginx — optional frontend load balancer"
	}
	return string(k)
}

// placeholderDescriptions are the page's descriptions of the fixed
// placeholders (spec (b) step 6).
var placeholderDescriptions = map[string]string{
	"NODE_RANK":          "rank of this node within its worker (0 on the worker's first node)",
	"NODE_IP":            "IP of the node the command runs on",
	"ETCD_IP":            "node running etcd",
	"NATS_IP":            "node running NATS",
	"MOONCAKE_MASTER_IP": "node running mooncake_master",
	"AGG_HEAD_IP":        "first node of this worker",
	"PREFILL_HEAD_IP":    "first node of this prefill worker",
	"DECODE_HEAD_IP":     "first node of this decode worker",
	"IB_DEVICES":         "the node's RDMA NICs",
	"EFA_DEVICES":        "EFA device filter (AWS EFA fabrics only)",
}

// PlaceholderDescription returns the description the copy-all header gives
// placeholder name (without "$"), or "" when the page does not describe it
// (and so leaves it out of the header). AGG_<n>_HEAD_IP /
// PREFILL_<n>_HEAD_IP / DECODE_<n>_HEAD_IP → "first node of <role> worker
// <n>"; FRONTEND_<n>_IP → "node of frontend <n>".
func PlaceholderDescription(name string) string {
	if d, ok := placeholderDescriptions[name]; ok {
		return d
	}
	for _, role := range [...]string{"AGG", "PREFILL", "DECODE"} {
		if n, ok := strings.CutPrefix(name, role+"_"); ok {
			if n, ok = strings.CutSuffix(n, "_HEAD_IP"); ok && isDigits(n) {
				return "first node of " + strings.ToLower(role) + " worker " + n
			}
		}
	}
	if n, ok := strings.CutPrefix(name, "FRONTEND_"); ok {
		if n, ok = strings.CutSuffix(n, "_IP"); ok && isDigits(n) {
			return "node of frontend " + n
		}
	}
	return ""
}

func containsName[S string | []byte](names []string, n S) bool {
	for _, x := range names {
		if x == string(n) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// scanPlaceholders appends to names every described `$[A-Z][A-Z0-9_]*`
// placeholder of s not yet in names, in order of first occurrence.
func scanPlaceholders[S string | []byte](names []string, s S) []string {
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) || s[i+1] < 'A' || s[i+1] > 'Z' {
			continue
		}
		j := i + 2
		for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
			j++
		}
		n := s[i+1 : j]
		i = j - 1
		if !containsName(names, n) && PlaceholderDescription(string(n)) != "" {
			names = append(names, string(n))
		}
	}
	return names
}

// OracleJSON returns the selection as one line of the oracle format, without
// the newline: keys file, cell, cellId, point, router, kv, measured,
// blocks[{title, kind, role, text}], copyAll; strings escaped as
// JSON.stringify does (raw UTF-8, no HTML escaping), role null when empty.
func (d *Decoded) OracleJSON() []byte {
	return d.AppendOracleJSON(nil)
}

// AppendOracleJSON appends OracleJSON() to dst.
func (d *Decoded) AppendOracleJSON(dst []byte) []byte {
	dst = append(dst, `{"file":`...)
	dst = appendJSString(dst, d.File)
	dst = append(dst, `,"cell":`...)
	dst = strconv.AppendInt(dst, int64(d.Cell), 10)
	dst = append(dst, `,"cellId":`...)
	dst = appendJSString(dst, d.CellID)
	dst = append(dst, `,"point":`...)
	dst = strconv.AppendInt(dst, int64(d.Point), 10)
	dst = append(dst, `,"router":`...)
	dst = appendJSString(dst, d.Router)
	dst = append(dst, `,"kv":`...)
	dst = appendJSString(dst, d.KV)
	dst = append(dst, `,"measured":`...)
	dst = strconv.AppendBool(dst, d.Measured)
	dst = append(dst, `,"blocks":[`...)
	// Block texts are substrings of CopyAll, and JSON escaping works
	// character by character: the escaped texts written for the blocks are
	// copied into the escaped copy-all text instead of escaping them twice.
	var marks []int // start, end of each block text in CopyAll
	if len(d.textAt) == len(d.Blocks) && utf8.ValidString(d.CopyAll) {
		marks = make([]int, 0, 2*len(d.Blocks))
		for i, b := range d.Blocks {
			at := d.textAt[i]
			if at < 0 || at+len(b.Text) > len(d.CopyAll) || (len(marks) > 0 && at < marks[len(marks)-1]) || d.CopyAll[at:at+len(b.Text)] != b.Text {
				marks = nil
				break
			}
			marks = append(marks, at, at+len(b.Text))
		}
	}
	escAt := make([]int, 0, len(marks)) // start, end of each escaped text in dst
	for i, b := range d.Blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"title":`...)
		dst = appendJSString(dst, b.Title)
		dst = append(dst, `,"kind":`...)
		dst = appendJSString(dst, b.Kind)
		dst = append(dst, `,"role":`...)
		if b.Role == "" {
			dst = append(dst, "null"...)
		} else {
			dst = appendJSString(dst, b.Role)
		}
		dst = append(dst, `,"text":`...)
		if marks != nil {
			dst = append(dst, '"')
			lo := len(dst)
			dst = appendEscaped(dst, b.Text)
			escAt = append(escAt, lo, len(dst))
			dst = append(dst, '"')
		} else {
			dst = appendJSString(dst, b.Text)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"copyAll":`...)
	if marks == nil {
		dst = appendJSString(dst, d.CopyAll)
		return append(dst, '}')
	}
	dst = append(dst, '"')
	prev := 0
	for i := 0; i < len(marks); i += 2 {
		dst = appendEscaped(dst, d.CopyAll[prev:marks[i]])
		dst = append(dst, dst[escAt[i]:escAt[i+1]]...)
		prev = marks[i+1]
	}
	dst = appendEscaped(dst, d.CopyAll[prev:])
	dst = append(dst, '"')
	return append(dst, '}')
}

// MarshalJSON gives OracleJSON (use an Encoder with SetEscapeHTML(false) to
// keep '<' and '>' raw, as the oracle has them).
func (d *Decoded) MarshalJSON() ([]byte, error) { return d.OracleJSON(), nil }

// appendJSString appends s quoted as JavaScript's JSON.stringify does:
// `"` and `\` escaped, \b \f \n \r \t, other control characters as \u00xx,
// everything else raw (invalid UTF-8 becomes U+FFFD).
func appendJSString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\ufffd")
	}
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}

// appendEscaped appends the JSON.stringify escaping of valid UTF-8 s,
// without quotes.
func appendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if jsSafe[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// jsSafe[c] reports whether byte c is written as is inside a JSON string
// (multi-byte UTF-8 sequences are already known to be valid).
var jsSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
