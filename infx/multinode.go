package infx

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"go.yaml.in/yaml/v3"
)

// SrtSlurmRepo is the repository InferenceX launchers clone srt-slurm from
// when they do not use a fork (runners/launch_*.sh: git clone
// https://github.com/NVIDIA/srt-slurm.git).
const SrtSlurmRepo = "NVIDIA/srt-slurm"

// Submission is how a multi-node point reaches srtctl, as its launchers
// run it (InferenceX runners/launch_*.sh, multi-node branch): the srt-slurm
// repository and ref they clone, the InferenceX directories they copy into
// the clone's recipes/, and the recipe they submit with `srtctl apply -f`.
type Submission struct {
	// Repo is the cloned repository (owner/name on GitHub, else the URL);
	// Ref the ref it runs ("" = the default branch at run time); RefAt
	// where the launcher writes it.
	Repo  string `json:"repo"`
	Ref   string `json:"ref,omitempty"`
	RefAt Pos    `json:"refAt"`
	// Launchers are the launchers (and runner names) that were run; they
	// agree on everything above and below.
	Launchers []string `json:"launchers"`
	// File is the srtctl -f path as given (relative to the clone), without
	// the selector; Selector the part after ':'.
	File     string `json:"file"`
	Selector string `json:"selector,omitempty"`
	ApplyAt  Pos    `json:"applyAt"`
	// InCheckout is true when the file is one the launcher copied from the
	// InferenceX checkout (Recipe is then its path there); false when it
	// is the clone's own file at Ref (upstream-only).
	InCheckout bool   `json:"inCheckout"`
	Recipe     string `json:"recipe,omitempty"`
	// CloneRel is File's path inside the clone ("recipes/…").
	CloneRel string `json:"cloneRel"`
	// Edits are what the launcher does to the recipe file between its copy
	// (or clone) and srtctl apply, in order: `sed -i EXPR
	// "${CONFIG_FILE%%:*}"`, appends (`printf … >> "$CONFIG_PATH"`) and
	// rewrites (`cat > "$CONFIG_PATH"`).
	Edits []RecipeEdit `json:"edits,omitempty"`
	// SetupScript replaces the recipe's setup_script (SrtctlApply).
	SetupScript string `json:"setupScript,omitempty"`
	runner      string // the runner name the launcher ran for
	// Containers is the `containers:` map of the srtslurm.yaml the
	// launcher writes (alias → image file on the cluster), nil when it
	// writes none; ClusterYAML names the file.
	Containers  map[string]string `json:"containers,omitempty"`
	ClusterYAML string            `json:"clusterYaml,omitempty"`
}

// editsKey is the launcher's edits with the runner name it ran for
// replaced by a placeholder: launchers name the job after the runner
// (`sed -i "s/^name:.*/name: \"${RUNNER_NAME}\"/"`), which is the same
// edit on every runner.
func (s *Submission) editsKey() string {
	var b strings.Builder
	for _, e := range s.Edits {
		k := e.Kind + "\x00" + strings.Join(e.Args, "\x00") + "\x00" + e.Text
		if s.runner != "" {
			k = strings.ReplaceAll(k, s.runner, "<runner>")
		}
		b.WriteString(k + "\x01")
	}
	return b.String()
}

// RefText is the ref as a reader needs it: "main" when the launcher takes
// the default branch.
func (s *Submission) RefText() string {
	if s.Ref == "" {
		return "default branch (main)"
	}
	return s.Ref
}

// submission runs the point's launchers (the workflow's multi-node launch
// step, for the first and last runner name of each launcher) up to their
// srtctl apply and returns where the recipe comes from. The launchers must
// agree (else StatusAmbiguous); a launcher that cannot be followed to its
// srtctl apply makes the point unsupported.
func (ws *Workspace) submission(p Point, opt Options) (*Submission, error) {
	facts, _ := shellutil.FactsFor(p.Runner)
	ws.snInit()
	if ws.sn.runnersErr != nil {
		return nil, ws.sn.runnersErr
	}
	type outcome struct {
		sub    *Submission
		who    string
		reason string
	}
	var outs []outcome
	for _, l := range ws.existingLaunchers(p.Runner) {
		// the two runner names' runs from one with holes when it never
		// looks at them (launcherHoleRuns), else each name's own
		holed, _, useHoles := ws.launcherHoleRuns(p, l, endsOf(l.runners), facts, opt, holeUseSrtctl, false, false)
		for i, rn := range endsOf(l.runners) {
			who := fmt.Sprintf("%s (runner %s)", l.rel, rn)
			var run *ScriptRun
			if useHoles {
				run = holed[i][0]
			} else {
				var err error
				if run, _, err = ws.runLauncher(p, l, rn, facts, opt); err != nil {
					return nil, limitStatus(p, err)
				}
			}
			if run.Srtctl == nil {
				reason := endReason(run)
				if run.Stop == nil {
					// The launcher's own end, not the workflow step's
					// (which then fails on the missing results).
					for i := range run.Scripts {
						if st := &run.Scripts[i]; ws.relTo(ws.Base, st.File) == l.rel && (st.Exit != 0 || st.ExitAt.Line > 0) {
							reason = startEnd(st)
						}
					}
				}
				outs = append(outs, outcome{who: who, reason: reason})
				continue
			}
			sub, err := ws.resolveSubmission(p, run)
			if err != nil {
				return nil, err
			}
			sub.Launchers, sub.runner = []string{who}, rn
			outs = append(outs, outcome{sub: sub, who: who})
		}
	}
	var ok []outcome
	var refused []string
	for _, o := range outs {
		if o.sub == nil {
			refused = append(refused, o.who+" submits nothing: "+o.reason)
			continue
		}
		ok = append(ok, o)
	}
	if len(refused) > 0 {
		return nil, &PointError{Status: StatusUnsupported, Note: strings.Join(refused, "; "), Pos: p.RefPos}
	}
	if len(ok) == 0 {
		return nil, &PointError{Status: StatusUnsupported, Note: "no launcher of runner label " + p.Runner + " in the checkout", Pos: p.RefPos}
	}
	first := ok[0].sub
	for _, o := range ok[1:] {
		s := o.sub
		if s.Repo != first.Repo || s.Ref != first.Ref || s.File != first.File || s.Selector != first.Selector || s.Recipe != first.Recipe ||
			s.SetupScript != first.SetupScript || !maps.Equal(s.Containers, first.Containers) || s.editsKey() != first.editsKey() {
			return nil, &PointError{Status: StatusAmbiguous, Pos: p.RefPos, Note: fmt.Sprintf(
				"the launchers of runner label %s submit differently: %s submits %s from %s@%s; %s submits %s from %s@%s",
				p.Runner, ok[0].who, first.File, first.Repo, first.RefText(), o.who, s.File, s.Repo, s.RefText())}
		}
		first.Launchers = append(first.Launchers, o.who)
	}
	return first, nil
}

// resolveSubmission reads a launcher run that reached srtctl apply: the
// clone the apply runs in, the file it names (a copy from the checkout, or
// the clone's own), and the sed edits made to it.
func (ws *Workspace) resolveSubmission(p Point, run *ScriptRun) (*Submission, error) {
	ap := run.Srtctl
	file, sel := splitSelector(ap.File)
	s := &Submission{File: file, Selector: sel, ApplyAt: ws.relPos(ap.At), SetupScript: ap.SetupScript}
	logical := file
	if !filepath.IsAbs(logical) {
		logical = filepath.Join(ap.Dir, logical)
	}
	logical = filepath.Clean(logical)
	var clone *sandbox.GitClone
	for i := len(run.Clones) - 1; i >= 0; i-- {
		if within(logical, run.Clones[i].Dir) || within(ap.Dir, run.Clones[i].Dir) {
			clone = &run.Clones[i]
			break
		}
	}
	if clone == nil {
		return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(ap.At),
			Note: fmt.Sprintf("srtctl apply -f %s runs outside any srt-slurm clone the launcher made: which srt-slurm renders it is not known", ap.File)}
	}
	s.Repo, s.Ref, s.RefAt = clone.Repo(), clone.Checkout(), ws.relPos(clone.CheckoutAt())
	rel, _ := filepath.Rel(clone.Dir, logical)
	s.CloneRel = filepath.ToSlash(rel)
	// The longest copy destination holding the file wins (later copies
	// over earlier ones of the same destination).
	best := -1
	for i, c := range run.Copies {
		if within(logical, c.Dst) && (best < 0 || len(c.Dst) >= len(run.Copies[best].Dst)) {
			best = i
		}
	}
	if best >= 0 && run.Copies[best].Opaque {
		c := run.Copies[best]
		return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(c.At), Note: fmt.Sprintf(
			"the launcher copies %s, which is outside the checkout (or a link out of it), to the recipe it submits (%s): what srtctl reads is not known", c.Src, s.CloneRel)}
	}
	if best >= 0 {
		c := run.Copies[best]
		real := filepath.Join(c.Src, strings.TrimPrefix(logical, c.Dst))
		if c.Dst == logical || exists(real) {
			s.InCheckout, s.Recipe = true, real
		}
		// else: a directory copied over the clone's does not hold the
		// file, so srtctl reads the clone's own (cp overlays, it does not
		// delete).
	}
	if !s.InCheckout && (strings.HasPrefix(s.CloneRel, "../") || s.CloneRel == "..") {
		// A path out of the clone (into the checkout, by an absolute path).
		if root, err := filepath.Abs(ws.Root); err == nil && within(logical, root) {
			s.InCheckout, s.Recipe = true, logical
		}
	}
	if !s.InCheckout && (s.CloneRel == ".." || strings.HasPrefix(s.CloneRel, "../")) {
		return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(ap.At),
			Note: fmt.Sprintf("srtctl apply -f %s names a file outside the srt-slurm clone and the checkout: what it submits is not known", ap.File)}
	}
	if s.InCheckout && !isFile(s.Recipe) {
		return nil, &PointError{Status: StatusMissing, Pos: ws.relPos(ap.At),
			Note: fmt.Sprintf("the launcher copies %s into its srt-slurm clone, and it is not in the checkout", ws.rel(s.Recipe))}
	}
	if s.InCheckout {
		// A link in the checkout that leads out of it is not followed.
		absRoot, _ := filepath.Abs(ws.Root)
		absRecipe, _ := filepath.Abs(s.Recipe)
		root, err1 := filepath.EvalSymlinks(absRoot)
		real, err2 := filepath.EvalSymlinks(absRecipe)
		if err1 != nil || err2 != nil || !within(real, root) {
			return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(ap.At), Note: fmt.Sprintf(
				"the recipe the launcher copies, %s, is a link out of the checkout: it is not read", ws.rel(s.Recipe))}
		}
	}
	if why := touchedAfterClone(run, clone, logical); why != "" {
		return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(ap.At), Note: why}
	}
	// The cluster config srtctl reads (srtslurm.yaml in its working
	// directory), as the launcher wrote it (heredoc, then sed -i edits).
	for _, name := range slices.Sorted(maps.Keys(run.Writes)) {
		w := name
		if !filepath.IsAbs(w) {
			w = filepath.Join(ap.Dir, w)
		}
		if filepath.Base(w) != "srtslurm.yaml" || filepath.Dir(filepath.Clean(w)) != filepath.Clean(ap.Dir) {
			continue
		}
		if why := run.Unknown[name]; why != "" {
			return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(ap.At),
				Note: fmt.Sprintf("the srtslurm.yaml the launcher writes (%s) is not known to the sandbox: %s", w, why)}
		}
		containers, err := ws.clusterContainers(run.Writes[name])
		if err != nil {
			return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(ap.At),
				Note: fmt.Sprintf("the srtslurm.yaml the launcher writes (%s) cannot be read as srtctl reads it: %s", w, oneLine(err.Error()))}
		}
		s.Containers, s.ClusterYAML = containers, name
	}
	// sed -i edits, appends and rewrites of the recipe (the job name,
	// health-check attempts, added keys), in execution order.
	type seqEdit struct {
		seq int
		e   RecipeEdit
	}
	var seqs []seqEdit
	for _, c := range run.Commands {
		if len(c.Argv) < 3 || path.Base(c.Argv[0]) != "sed" {
			continue
		}
		args, files, inPlace, ok := sandbox.SedArgs(c.Argv)
		if inPlace && !ok {
			// an in-place edit the sandbox's sed does not take (-i.bak,
			// -s, …): any operand may be the recipe; kept as written, sed
			// refuses it and the point is unsupported (applyEdits)
			args, files = c.Argv[1:], c.Argv[1:]
		}
		if !inPlace {
			continue
		}
		for _, f := range files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(c.Dir, f)
			}
			if filepath.Clean(f) == logical {
				seqs = append(seqs, seqEdit{c.Seq, RecipeEdit{Kind: "sed", Args: args, At: ws.relPos(Pos{File: c.File, Line: c.Line, Col: c.Col})}})
			}
		}
	}
	for _, w := range run.Written {
		if w.Path != logical {
			continue
		}
		if w.Truncated {
			return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(w.At),
				Note: "the launcher writes more than 1 MiB into the recipe it submits: what srtctl reads is not known"}
		}
		if w.Unknown != "" {
			return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(w.At),
				Note: "what the launcher writes into the recipe it submits is not known to the sandbox: " + w.Unknown}
		}
		kind := "write"
		if w.Append {
			kind = "append"
		}
		seqs = append(seqs, seqEdit{w.Seq, RecipeEdit{Kind: kind, Text: w.Data, At: ws.relPos(w.At)}})
	}
	for _, e := range run.Edits {
		switch {
		case e.Path == logical && e.Program == syntheticProgram:
			seqs = append(seqs, seqEdit{e.Seq, RecipeEdit{Kind: e.Program, Text: e.Data, At: ws.relPos(e.At)}})
		case within(e.Path, clone.Dir):
			// another file of the clone: srtctl may read it (a recipe
			// the submitted one is copied from or includes)
			return nil, &PointError{Status: StatusUnsupported, Pos: ws.relPos(e.At), Note: fmt.Sprintf(
				"the launcher runs %s on %s, a file of the srt-slurm clone that is not the recipe it submits (%s): what srtctl reads is not modelled", e.Program, e.Path, logical)}
		}
	}
	sort.SliceStable(seqs, func(i, j int) bool { return seqs[i].seq < seqs[j].seq })
	for _, x := range seqs {
		s.Edits = append(s.Edits, x.e)
	}
	return s, nil
}

// relPos makes a position's file repository-relative.
func (ws *Workspace) relPos(at Pos) Pos {
	if at.File != "" && filepath.IsAbs(at.File) {
		at.File = ws.rel(at.File)
	}
	return at
}

// RecipeEdit is one change a launcher makes to the recipe file it
// submits: Kind "sed" (`sed -i` with Args, the script and its options),
// "append" (Text added at the end) or "write" (Text replaces the file); At
// is where the launcher does it.
type RecipeEdit struct {
	Kind string   `json:"kind"`
	Args []string `json:"args,omitempty"`
	Text string   `json:"text,omitempty"`
	At   Pos      `json:"at"`
}

// String names the edit for a cache key.
func (e RecipeEdit) String() string {
	return e.Kind + "\x00" + strings.Join(e.Args, "\x00") + "\x00" + e.Text
}

// applyEdits makes the launcher's edits to the recipe text, in order, as
// the file is before srtctl reads it. A sed the sandbox cannot evaluate is
// an error naming where the launcher runs it.
func applyEdits(text []byte, edits []RecipeEdit) ([]byte, error) {
	for _, e := range edits {
		switch e.Kind {
		case "write":
			text = []byte(e.Text)
		case "append":
			text = append(append([]byte(nil), text...), e.Text...)
		case syntheticProgram:
			out, err := applySynthetic(text, e)
			if err != nil {
				return nil, err
			}
			text = out
		default:
			res, handled, reason := shellutil.RunFiles(append([]string{"sed"}, e.Args...), text, shellutil.Facts{}, func(string) ([]byte, error) {
				return nil, fmt.Errorf("no files")
			})
			if !handled || res.Status != 0 {
				if reason == "" {
					reason = strings.TrimSpace(string(res.Stderr))
				}
				return nil, fmt.Errorf("%s: sed %q: %s", e.At, strings.Join(e.Args, " "), reason)
			}
			text = res.Stdout
		}
	}
	return text, nil
}

// submittedPoint points p at the recipe its launchers submit and returns
// the srt-slurm version to render it with (the launcher's pinned ref; for
// a fork, the NVIDIA release its src/srtctl is identical to: forkPoint),
// the srt-slurm checkout whose configs/ the rendering reads, and notes for
// the reader. Errors (*PointError): a fork without its checkout or whose
// src/srtctl is no release's (unsupported, forkPoint), a recipe that is the
// clone's own file and not in --srt-slurm-dir (upstream-only).
func (ws *Workspace) submittedPoint(p Point, sub *Submission, opt Options) (_ Point, _ string, _ srtConfigs, notes []string, _ error) {
	where := fmt.Sprintf("%s@%s (%s)", sub.Repo, sub.RefText(), sub.RefAt)
	fork := sub.Repo != SrtSlurmRepo
	var version string
	var cfg srtConfigs
	var forkNotes []string
	if fork {
		var err error
		if p, version, cfg, forkNotes, err = ws.forkPoint(p, sub, where); err != nil {
			return p, "", cfg, nil, err
		}
	} else {
		version = sub.Ref
		if version == "" {
			version = "main"
		}
		// (a commit pin at a release tag renders with the tag's profile)
		name, err := srtslurm.ProfileFor(version)
		if err != nil {
			return p, "", cfg, nil, &PointError{Status: StatusUnsupported, Pos: p.RefPos, Note: fmt.Sprintf(
				"the launcher submits %s with %s, an srt-slurm ref whose injected flags and env are not covered (%v)", sub.File, where, err)}
		}
		version = name
		cfg = srtConfigs{dir: ws.SrtSlurmDir, version: ws.SrtSlurmVersion, runs: version}
	}
	p.Selector, p.edits, p.setupScript = sub.Selector, sub.Edits, sub.SetupScript
	if sub.Containers != nil {
		// srtctl resolves model.container / nginx_container through the
		// launcher's containers: map; the aliases that name the master
		// image's file run the master image.
		master, ok := sub.Containers[p.Image]
		p.containers = map[string]string{}
		for alias, file := range sub.Containers {
			if ok && file == master {
				p.containers[alias] = p.Image
			} else {
				p.containers[alias] = file
			}
		}
	}
	if sub.SetupScript != "" {
		notes = append(notes, fmt.Sprintf("setup script %s from the launcher's srtctl apply (%s) replaces the recipe's setup_script", sub.SetupScript, sub.ApplyAt))
	}
	for _, e := range sub.Edits {
		if e.Kind == syntheticProgram {
			notes = append(notes, syntheticNote(e))
		}
	}
	verb := "clone"
	if len(sub.Launchers) == 1 {
		verb = "clones"
	}
	if fork {
		notes = append([]string{fmt.Sprintf("srt-slurm fork %s, as %s %s it; %s", where, strings.Join(sub.Launchers, ", "), verb, forkNotes[0])}, notes...)
		notes = append(notes, forkNotes[1:]...)
		if sub.InCheckout {
			p.Recipe = sub.Recipe
			p.RecipeRef = ws.rel(sub.Recipe)
			notes = append(notes, fmt.Sprintf("recipe %s, copied by the launcher to %s", ws.rel(sub.Recipe), sub.CloneRel))
		} else {
			p.RecipeRef = sub.CloneRel
		}
		return p, version, cfg, notes, nil
	}
	notes = append([]string{fmt.Sprintf("srt-slurm %s, as %s %s it; rendered with that ref's injected flags and env",
		where, strings.Join(sub.Launchers, ", "), verb)}, notes...)
	if sub.Ref == "" || sub.Ref == "main" {
		notes[0] += " (main moves: taken at " + DefaultSrtSlurmVersion + ", NVIDIA/srt-slurm " + srtslurm.TagCommit(DefaultSrtSlurmVersion)[:8] + "; possible commit drift)"
	}
	if sub.InCheckout {
		p.Recipe = sub.Recipe
		p.RecipeRef = ws.rel(sub.Recipe)
		notes = append(notes, fmt.Sprintf("recipe %s, copied by the launcher to %s", ws.rel(sub.Recipe), sub.CloneRel))
		return p, version, cfg, notes, nil
	}
	p.RecipeRef = sub.CloneRel
	if ws.SrtSlurmDir != "" {
		if f := filepath.Join(ws.SrtSlurmDir, filepath.FromSlash(sub.CloneRel)); isFile(f) {
			p.Recipe = f
			dirVer := ws.SrtSlurmVersion
			if dirVer == "" {
				dirVer = "unknown version"
			}
			n := fmt.Sprintf("recipe %s read from the given srt-slurm checkout (%s)", sub.CloneRel, dirVer)
			if dirVer != version {
				n += fmt.Sprintf("; the launcher runs it at %s, where it may differ (possible commit drift)", sub.RefText())
			}
			return p, version, cfg, append(notes, n), nil
		}
	}
	return p, "", cfg, nil, &PointError{Status: StatusUpstreamOnly, Pos: p.RefPos, Note: fmt.Sprintf(
		"recipe %s is not copied from the checkout: the launcher submits the file of its srt-slurm clone %s", sub.CloneRel, where)}
}

// srtConfigs is the srt-slurm checkout whose configs/ a rendering reads
// for the files a recipe names under /configs/ (AttachSrtSlurmConfigs): dir
// ("" = none), the name of its version for the origin, and runs, the
// version the launcher runs ("" = the same checkout, no drift note).
type srtConfigs struct{ dir, version, runs string }

// clusterYAML is one clusterContainers answer (Workspace.clusterYAMLs).
type clusterYAML struct {
	containers map[string]string
	err        error
}

// clusterContainers is the package's clusterContainers of text, once per distinct text
// a run: the answer is shared, its map only read.
func (ws *Workspace) clusterContainers(text string) (map[string]string, error) {
	ws.clusterMu.Lock()
	c, ok := ws.clusterYAMLs[text]
	ws.clusterMu.Unlock()
	if ok {
		return c.containers, c.err
	}
	c.containers, c.err = clusterContainers([]byte(text))
	ws.clusterMu.Lock()
	if ws.clusterYAMLs == nil {
		ws.clusterYAMLs = map[string]clusterYAML{}
	}
	ws.clusterYAMLs[text] = c
	ws.clusterMu.Unlock()
	return c.containers, c.err
}

// clusterContainers reads the `containers:` mapping of an srtslurm.yaml
// the way srtctl loads it (PyYAML safe_load, NVIDIA/srt-slurm
// src/srtctl/core/config.py load_cluster_config): a key given twice keeps
// its last value, at the top level and inside containers:. Values are
// scalars; anything else is an error. A file without containers: gives an
// empty map.
func clusterContainers(data []byte) (map[string]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the document is not a mapping", root.Line)
	}
	var cont *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "containers" {
			cont = root.Content[i+1] // the last one wins
		}
	}
	if cont == nil || cont.Kind == yaml.ScalarNode && (cont.Tag == "!!null" || cont.Value == "") {
		return out, nil
	}
	if cont.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: containers is not a mapping", cont.Line)
	}
	for i := 0; i+1 < len(cont.Content); i += 2 {
		k, v := cont.Content[i], cont.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: containers.%s is not a scalar", v.Line, k.Value)
		}
		out[k.Value] = v.Value
	}
	return out, nil
}

// oneLine joins a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// recipeReaders are the commands that may name the submitted recipe without
// changing it (reading, testing, listing; sed -i is applied as an edit,
// cp as a recorded copy, srtctl apply submits it).
var recipeReaders = map[string]bool{
	"cat": true, "grep": true, "egrep": true, "fgrep": true, "head": true, "tail": true, "wc": true,
	"sha256sum": true, "sha1sum": true, "md5sum": true, "stat": true, "ls": true, "realpath": true,
	"readlink": true, "dirname": true, "basename": true, "echo": true, "printf": true, "diff": true,
	"test": true, "[": true, "file": true, "mkdir": true, "touch": true, "chmod": true, "srtctl": true,
	"git": true, "make": true, "uv": true,
}

// touchedAfterClone reports ("" = nothing) a command of the run after the
// srt-slurm clone that may change the submitted recipe (logical path) in a
// way the sandbox does not model: a write to it (redirection, tee), or a
// command other than a reader, a recorded cp or a sed -i that names it or a
// directory holding it (mv, rm, a python3 program, …). What srtctl reads
// would then not be the file rendered.
func touchedAfterClone(run *ScriptRun, clone *sandbox.GitClone, logical string) string {
	start := -1
	for i, c := range run.Commands {
		if c.File == clone.At.File && c.Line == clone.At.Line && c.Col == clone.At.Col && len(c.Argv) > 1 && path.Base(c.Argv[0]) == "git" {
			start = i
			break
		}
	}
	copied := map[Pos]bool{}
	for _, c := range run.Copies {
		copied[c.At] = true
	}
	for _, c := range run.Commands[start+1:] {
		if len(c.Argv) == 0 {
			continue
		}
		name := path.Base(c.Argv[0])
		at := Pos{File: c.File, Line: c.Line, Col: c.Col}
		if recipeReaders[name] || name == "cp" && copied[at] {
			continue
		}
		if _, _, inPlace, _ := sandbox.SedArgs(c.Argv); name == "sed" && inPlace {
			continue // applied as an edit (Submission.Edits)
		}
		if name == "python3" || name == "python" {
			if len(c.Argv) > 1 && path.Base(c.Argv[1]) == "inject_synthetic_acceptance.py" {
				continue // modelled: a no-op unless SYNTHETIC_ACCEPTANCE (sandbox)
			}
		}
		args := c.Argv[1:]
		if name == "cp" || name == "rsync" || name == "install" {
			// copies change only their destination (the last operand)
			var ops []string
			for _, a := range args {
				if !strings.HasPrefix(a, "-") {
					ops = append(ops, a)
				}
			}
			if len(ops) > 0 {
				args = ops[len(ops)-1:]
			}
		}
		for _, a := range args {
			a, _, _ = strings.Cut(a, ":")
			if a == "" || strings.HasPrefix(a, "-") {
				continue
			}
			if !filepath.IsAbs(a) {
				a = filepath.Join(c.Dir, a)
			}
			a = filepath.Clean(a)
			if a == logical || within(logical, a) && a != "/" {
				return fmt.Sprintf("the launcher runs %s on the recipe it submits (%s) at %s: what srtctl reads is not modelled",
					strings.Join(sandbox.ShortArgv(c.Argv), " "), logical, at)
			}
		}
	}
	return ""
}
