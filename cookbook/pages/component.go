package pages

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dop251/goja"
)

// componentJS drives a config page's component the way the page does (see
// its header): the same text runs under Node in
// testdata/oracle/render_component.mjs.
//
//go:embed component.js
var componentJS string

// hookNames are the React names a snippet module may use unqualified (as
// Mintlify provides them); they are the module function's parameters after
// module, exports and require.
var hookNames = []string{"React", "useState", "useReducer", "useEffect", "useLayoutEffect", "useInsertionEffect",
	"useMemo", "useCallback", "useRef", "useContext", "useId", "useTransition", "useDeferredValue"}

// moduleHead/Tail wrap a snippet module transformed to CommonJS.
var (
	moduleHead = "(function (module, exports, require, " + strings.Join(hookNames, ", ") + ") {\"use strict\";"
	moduleTail = "\n})"
)

// pageImportRE is an MDX import of snippet bindings ("import { A, B as C }
// from '/src/snippets/….jsx'"); pageTagRE a JSX tag of a capitalized
// component, pageAttrRE one of its attributes written `p={ident}` or
// `p="text"` (render_component.mjs reads pages with the same three).
var (
	pageImportRE = regexp.MustCompile(`(?m)^import\s+\{([^}]*)\}\s+from\s+["'](/src/snippets/[^"']+\.jsx)["']`)
	pageTagRE    = regexp.MustCompile(`<([A-Z][A-Za-z0-9_]*)\b((?:[^>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*?)/?>`)
	pageAttrRE   = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:\{\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\}|"([^"]*)"|'([^']*)')`)
	asRE         = regexp.MustCompile(`\s+as\s+`)
)

// binding is a name a page imports: the export Name of Module
// ("docs/src/snippets/…").
type binding struct{ Module, Name string }

// prop is one attribute of a component tag: the value of a binding, or a
// string.
type prop struct {
	Name  string
	Bind  *binding // nil: Value, or undefined when Unbound
	Value string
	// Unbound: `p={x}` where the page imports no x (undefined).
	Unbound bool
}

// renderPlan is how a config snippet is rendered: the component (the export
// Name of Module; Name "" is the module's first exported function), the
// props, and which prop carries the snippet's config.
type renderPlan struct {
	Page       string // the page whose tag this is; "" for the default plan
	Component  binding
	Props      []prop
	ConfigProp string
}

// readPageTags lists the component tags of an .mdx page whose component it
// imports from a snippet, with their props.
func readPageTags(l layout, src []byte) (tags []renderPlan) {
	binds := map[string]binding{}
	for _, m := range pageImportRE.FindAllSubmatch(src, -1) {
		mod := l.prefix + path.Clean(string(m[2]))
		for _, part := range strings.Split(string(m[1]), ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			name, alias, ok := strings.Cut(asRE.ReplaceAllString(part, " as "), " as ")
			if !ok {
				alias = name
			}
			binds[strings.TrimSpace(alias)] = binding{Module: mod, Name: strings.TrimSpace(name)}
		}
	}
	for _, m := range pageTagRE.FindAllSubmatch(src, -1) {
		c, ok := binds[string(m[1])]
		if !ok {
			continue
		}
		t := renderPlan{Component: c}
		for _, a := range pageAttrRE.FindAllSubmatch(m[2], -1) {
			p := prop{Name: string(a[1])}
			switch {
			case a[2] != nil:
				if b, ok := binds[string(a[2])]; ok {
					p.Bind = &b
				} else {
					p.Unbound = true
				}
			case a[3] != nil:
				p.Value = string(a[3])
			default:
				p.Value = string(a[4])
			}
			t.Props = append(t.Props, p)
		}
		tags = append(tags, t)
	}
	return tags
}

// planFor is how the page renders config snippet rel: the first page
// (sorted) importing it with a component tag that passes one of its
// bindings, that tag; else the engine's component with {config}.
func (ld *loader) planFor(rel string, pages map[string][]string) renderPlan {
	for _, pg := range slices.Sorted(func(yield func(string) bool) {
		for p := range pages {
			if !yield(p) {
				return
			}
		}
	}) {
		if !slices.Contains(pages[pg], rel) {
			continue
		}
		src, err := readFile(ld.l.abs(pg), pg)
		if err != nil {
			continue
		}
		for _, t := range readPageTags(ld.l, src) {
			for _, p := range t.Props {
				if p.Bind != nil && p.Bind.Module == rel {
					t.Page, t.ConfigProp = pg, p.Name
					return t
				}
			}
		}
	}
	return renderPlan{
		Component:  binding{Module: ld.l.prefix + "/" + engineFile},
		Props:      []prop{{Name: "config", Bind: &binding{Module: rel, Name: "config"}}},
		ConfigProp: "config",
	}
}

// modules compiles snippet modules once per Load.
type modules struct {
	mu sync.Mutex
	m  map[string]moduleProgram
}

type moduleProgram struct {
	prg *goja.Program
	sum [32]byte
	err error
}

// module is rel compiled as a module function (see moduleHead).
func (ld *loader) module(rel string) moduleProgram {
	ld.mods.mu.Lock()
	defer ld.mods.mu.Unlock()
	if mp, ok := ld.mods.m[rel]; ok {
		return mp
	}
	var mp moduleProgram
	src, err := readFile(ld.l.abs(rel), rel)
	if err == nil {
		mp.sum = sha256.Sum256(src)
		var js string
		js, err = transform(string(src), rel, true)
		if err == nil {
			mp.prg, err = compile(rel, moduleHead+js+moduleTail)
		}
	}
	mp.err = err
	if ld.mods.m == nil {
		ld.mods.m = map[string]moduleProgram{}
	}
	ld.mods.m[rel] = mp
	return mp
}

// planKey is what of a plan decides a decode besides the snippet itself:
// the page's tag and the content of every module it runs.
func (ld *loader) planKey(p renderPlan) string {
	var b strings.Builder
	mods := []string{p.Component.Module}
	fmt.Fprintf(&b, "%s|%s#%s|%s", p.Page, p.Component.Module, p.Component.Name, p.ConfigProp)
	for _, pr := range p.Props {
		switch {
		case pr.Bind != nil:
			fmt.Fprintf(&b, "|%s=%s#%s", pr.Name, pr.Bind.Module, pr.Bind.Name)
			mods = append(mods, pr.Bind.Module)
		case pr.Unbound:
			fmt.Fprintf(&b, "|%s=undefined", pr.Name)
		default:
			fmt.Fprintf(&b, "|%s=%q", pr.Name, pr.Value)
		}
	}
	for _, m := range mods {
		mp := ld.module(m)
		fmt.Fprintf(&b, "|%x", mp.sum)
	}
	return b.String()
}

// decodeConfig renders config snippet file as its page does (plan) and
// lists every selection with its command.
func decodeConfig(ctx context.Context, ld *loader, file string, plan renderPlan, wd *watchdog, used *int64) (_ []Selection, _ []string, err error) {
	p, opt := ld.prog, ld.opt
	// the modules the page runs: compiled before any code runs
	need := []string{file, plan.Component.Module}
	for _, pr := range plan.Props {
		if pr.Bind != nil {
			need = append(need, pr.Bind.Module)
		}
	}
	progs := map[string]*goja.Program{}
	for _, m := range need {
		if _, ok := progs[m]; ok {
			continue
		}
		if m != file && !isSnippetPath(m) {
			return nil, nil, &FileError{File: file, Err: fmt.Errorf("the page imports %s, not a snippet", m)}
		}
		mp := ld.module(m)
		if mp.err != nil {
			var fe *FileError
			if m != file && !errors.As(mp.err, &fe) {
				return nil, nil, &FileError{File: m, Err: mp.err}
			}
			return nil, nil, mp.err
		}
		progs[m] = mp.prg
	}
	sb, stop, err := newSandbox(ctx, file, opt, p, wd)
	if err != nil {
		return nil, nil, err
	}
	defer stop()
	defer func() { *used = sb.steps.used() }()
	defer sb.recoverRun(&err)
	vm := sb.vm
	factory, err := vm.RunProgram(p.component)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	sb.tick()
	dv, err := sb.call(factory, sb.tick, opt.MaxSelections, opt.MaxRows)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	drv := dv.(*goja.Object)
	hooks := drv.Get("hooks").(*goja.Object)
	args := []any{nil, nil, vm.Get("require"), drv.Get("React")}
	for _, h := range hookNames[1:] {
		args = append(args, hooks.Get(h))
	}
	exportsOf := map[string]goja.Value{}
	load := func(m string) (goja.Value, error) {
		if v, ok := exportsOf[m]; ok {
			return v, nil
		}
		fn, err := vm.RunProgram(progs[m])
		if err != nil {
			return nil, err
		}
		module := vm.NewObject()
		exports := vm.NewObject()
		_ = module.Set("exports", exports)
		a := slices.Clone(args)
		a[0], a[1] = module, exports
		sb.tick()
		if _, err := sb.call(fn, a...); err != nil {
			return nil, err
		}
		v := module.Get("exports")
		exportsOf[m] = v
		return v, nil
	}
	get := func(b binding) (goja.Value, error) {
		ex, err := load(b.Module)
		if err != nil {
			return nil, err
		}
		o, ok := ex.(*goja.Object)
		if !ok {
			return goja.Undefined(), nil
		}
		if b.Name != "" {
			return o.Get(b.Name), nil
		}
		for _, k := range o.Keys() { // the first exported function
			if _, ok := goja.AssertFunction(o.Get(k)); ok {
				return o.Get(k), nil
			}
		}
		return goja.Undefined(), nil
	}
	if _, err := load(file); err != nil { // the snippet's own module first
		return nil, nil, sb.err(err)
	}
	comp, err := get(plan.Component)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	props := vm.NewObject()
	for _, pr := range plan.Props {
		var v goja.Value = goja.Undefined()
		switch {
		case pr.Bind != nil:
			if v, err = get(*pr.Bind); err != nil {
				return nil, nil, sb.err(err)
			}
		case !pr.Unbound:
			v = vm.ToValue(pr.Value)
		}
		_ = props.Set(pr.Name, v)
	}
	sb.tick()
	out, err := sb.call(drv.Get("enumerate"), comp, props, plan.ConfigProp)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	sels, err := rowsToSelections(file, "config", out.String(), opt)
	return sels, nil, err
}
