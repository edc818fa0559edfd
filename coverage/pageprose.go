package coverage

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/prose"
	"github.com/cookbook-sync/cookbook-sync/recipes"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// Prose alternates of the cookbook pages (issue 22, item 5): the settings a
// page's prose states for the hardware / variant it names (package prose:
// "**MI355X (288GB)** runs with tp=2 (use tp=4 for low concurrency).
// (MXFP4)") become alternates of the page's selections, with the
// strictness of the vLLM guides' prose deltas. A statement applies to the
// selections of its page (sgl-project/sglang docs/cookbook/**.mdx, the page
// that imports the snippet) that serve the hardware it names and the
// variant (precision, checkpoint or model size) it names:
//
//   - a page whose selections serve several hardware takes only a
//     statement that names hardware (or a vendor) or says "any command";
//   - of the selections on that hardware, those serving several
//     checkpoints take only a statement that names a checkpoint or model
//     size ("397B") or says "any command" — a precision alone ("FP8")
//     does not tell the 397B-FP8 from the 35B-FP8;
//   - a parallel size (Size, AtLeast) applies to aggregated single-node
//     roles without DP attention whose nodes hold the size, and sets
//     --tp (the first spelling the command uses, else --tensor-parallel-size);
//     AtLeast admits its size (the larger sizes the page offers are its
//     selections already);
//   - settings (Add) apply to every worker role of the selection;
//   - a statement that changes nothing (the selection already runs it)
//     adds nothing.
//
// The alternate is the selection's command with the settings changed (the
// changed arguments' origin is the sentence, file:line), a selection of its
// own (pageSelKey), and its reference cites the sentence (pageRef: Where
// "… + prose <file>:<line> \"<sentence>\"", RecipeRef.Prose).

// pageProse is the alternate a statement makes of a selection.
type pageProse struct {
	st *prose.Statement
}

// pageProseCands returns the alternates the prose of the pages of cs (one
// snippet file's roles, in order) states, after them in selection order;
// read caches each page's statements (root is the sglang checkout). A
// page that cannot be read or parsed adds none (its selections stand).
func pageProseCands(root string, cs []pageCand, read *proseCache) []pageCand {
	if root == "" || len(cs) == 0 {
		return nil
	}
	byPage := map[string][]int{}
	var order []string
	for i := range cs {
		pg := cs[i].sel.Page
		if pg == "" || cs[i].prose != nil {
			continue
		}
		if _, ok := byPage[pg]; !ok {
			order = append(order, pg)
		}
		byPage[pg] = append(byPage[pg], i)
	}
	var out []pageCand
	for _, pg := range order {
		stmts := read.get(root, pg)
		if len(stmts) == 0 {
			continue
		}
		idx := byPage[pg]
		hws := map[string]bool{}
		for _, i := range idx {
			hws[cs[i].sig.Hardware] = true
		}
		for si := range stmts {
			out = append(out, statementCands(&stmts[si], cs, idx, len(hws) > 1)...)
		}
	}
	return out
}

// proseCache holds the statements of each page read for a run (the zero
// value is empty), read once whichever file asks first: the files of one
// page share them. Safe for concurrent use.
type proseCache struct {
	mu sync.Mutex
	m  map[string]*pageStatements
}

// pageStatements is one page's statements, read once (proseCache).
type pageStatements struct {
	once  sync.Once
	stmts []prose.Statement
}

// get is readPageProse(root, page), read once per page.
func (c *proseCache) get(root, page string) []prose.Statement {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*pageStatements{}
	}
	p, ok := c.m[page]
	if !ok {
		p = &pageStatements{}
		c.m[page] = p
	}
	c.mu.Unlock()
	p.once.Do(func() { p.stmts = readPageProse(root, page) })
	return p.stmts
}

// readPageProse reads the statements of a page (nil when it cannot be
// read or parsed).
func readPageProse(root, page string) []prose.Statement {
	data, err := launch.ReadInput(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		return nil
	}
	st, _, err := prose.Read(page, data, 1, prose.Options{Hardware: recipes.ProseHardware})
	if err != nil {
		return nil
	}
	return st
}

// statementCands applies st to the selections of cs[idx] in its scope.
// severalHW: the page's selections serve several hardware.
func statementCands(st *prose.Statement, cs []pageCand, idx []int, severalHW bool) []pageCand {
	sc := st.Scope
	if !sc.All && severalHW && !sc.NamesHardware() {
		return nil
	}
	var in []int
	ckpts := map[string]bool{}
	for _, i := range idx {
		c := &cs[i]
		if !sc.All && sc.NamesHardware() && !sc.MatchesHardware(c.sig.Hardware, prose.Vendor(c.sig.Hardware)) {
			continue
		}
		if !sc.All && !sc.MatchesVariant(c.sig.Model, pagePrecisionWords(c)) {
			continue
		}
		in = append(in, i)
		ckpts[strings.ToLower(c.sig.Model)] = true
	}
	if len(in) == 0 || !sc.All && len(ckpts) > 1 && !sc.NamesModel() {
		return nil
	}
	// the roles of one selection change together
	var out []pageCand
	for start := 0; start < len(in); {
		sel := cs[in[start]].sel
		end := start
		for end < len(in) && cs[in[end]].sel == sel {
			end++
		}
		out = append(out, selectionAlt(st, cs, in[start:end])...)
		start = end
	}
	return out
}

// pagePrecisionWords are the precision words of a page role: the
// selection's quantization and the checkpoint's name (prose.PrecisionWords).
func pagePrecisionWords(c *pageCand) []string {
	var q []string
	for _, k := range []string{"quant", "quantization"} {
		if s, ok := c.sel.Values[k].(string); ok {
			q = append(q, s)
		}
	}
	q = append(q, c.sig.Precision, filepath.Base(c.sig.Model))
	return prose.PrecisionWords(q...)
}

// selectionAlt is the alternate st makes of the roles roles (indexes in cs)
// of one selection: every role, changed or not, so that the roles of a row
// find the alternate as one selection; none when st changes none of them.
func selectionAlt(st *prose.Statement, cs []pageCand, roles []int) []pageCand {
	base := cs[roles[0]].dep
	d := *base
	d.Processes = slices.Clone(base.Processes)
	d.Notes = append(slices.Clone(base.Notes), "prose alternate: "+st.Summary()+" as stated at "+st.Cite())
	o := st.Origin(launch.OriginCookbook)
	changed := false
	done := map[int]bool{}
	for _, i := range roles {
		c := &cs[i]
		if done[c.proc] {
			continue
		}
		done[c.proc] = true
		p := &d.Processes[c.proc]
		if st.Kind == prose.Size || st.Kind == prose.AtLeast {
			if c.sig.Role != launch.RoleAgg || c.sig.DPAttn || c.sig.Nodes != 1 || nodesFor(st.TP, c.sig.Hardware) != 1 {
				return nil
			}
			if _, ok := launch.Lookup(p.Args, "--dp"); ok {
				return nil
			}
		}
		args, ca := prose.ApplyArgs("sglang", p.Args, st.Settings("sglang"), o)
		env, ce := prose.ApplyEnv(p.Env, st, o)
		p.Args, p.Env = args, env
		changed = changed || ca || ce
	}
	if !changed {
		return nil
	}
	var out []pageCand
	for _, i := range roles {
		c := cs[i]
		c.dep = &d
		p := &d.Processes[c.proc]
		s := sigOf(p)
		s.Model, s.Hardware, s.Precision = c.sig.Model, c.sig.Hardware, c.sig.Precision
		c.sig = s
		c.prose = &pageProse{st: st}
		out = append(out, c)
	}
	return out
}

// proseRef is the report's record of a prose alternate.
func proseRef(st *prose.Statement) *report.ProseRef {
	return &report.ProseRef{File: st.File, Line: st.Line, Sentence: st.Sentence, Setting: st.Summary(), Qualifier: st.Qualifier}
}

// proseWhere is the suffix a prose alternate adds to a reference's Where.
func proseWhere(st *prose.Statement) string {
	return fmt.Sprintf(" + prose %s (%s)", st.Cite(), st.Summary())
}

// pageSelProse is the part of a page role's selection key its prose
// alternate adds ("" for the selection itself).
func pageSelProse(c *pageCand) string {
	if c.prose == nil {
		return ""
	}
	return fmt.Sprintf("\x00prose %s:%d %s", c.prose.st.File, c.prose.st.Line, c.prose.st.Summary())
}
