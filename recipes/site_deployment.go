package recipes

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file turns a site rendering into the shared launch model
// (Rendering.Deployment).

// argsFromTokens groups argv tokens (after "vllm serve") into launch.Args
// with the site's unit rule (§9.6): a flag takes the next token when it does
// not start with "-". The model is a positional Arg (empty Flag).
func argsFromTokens(toks []Token) []launch.Arg {
	// Count the args and values first: one exact allocation for each
	// (every value slice is a one-element window of vals, capped, so an
	// append to it never writes into another's).
	nargs, nvals := 0, 0
	for i := 0; i < len(toks); i++ {
		nargs++
		if strings.HasPrefix(toks[i].Text, "-") {
			if i+1 < len(toks) && !strings.HasPrefix(toks[i+1].Text, "-") {
				nvals++
				i++
			}
			continue
		}
		nvals++
	}
	out := make([]launch.Arg, 0, nargs)
	vals := make([]string, nvals)
	one := func(s string) []string {
		vals[0] = s
		v := vals[0:1:1]
		vals = vals[1:]
		return v
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if strings.HasPrefix(t.Text, "-") {
			a := launch.Arg{Flag: t.Text, Origin: t.Origin}
			if i+1 < len(toks) && !strings.HasPrefix(toks[i+1].Text, "-") {
				a.Values = one(toks[i+1].Text)
				i++
			}
			out = append(out, a)
			continue
		}
		out = append(out, launch.Arg{Values: one(t.Text), Origin: t.Origin})
	}
	if len(out) == 0 {
		return nil // as before: no args, a nil list
	}
	return out
}

func envVars(env []EnvEntry) []launch.EnvVar {
	out := make([]launch.EnvVar, 0, len(env))
	for _, e := range env {
		out = append(out, launch.EnvVar{Name: e.Name, Value: e.Value, Origin: e.Origin})
	}
	return out
}

// Deployment converts a rendering to the shared launch model: Engine
// "vllm", Model the tree's HF id, Hardware the taxonomy id, Source.Variant
// and Source.Strategy set, every vLLM worker's Image the rendering's
// DockerImage. Processes: the agg worker (multi-node: the head,
// NodesPerWorker = node count; follower ranks only differ by rank flags and
// stay in Rendering.Roles), or prefill + decode + vllm-router, or for a
// Mooncake kv store the instance (Workers = instances) + router.
func (r *Rendering) Deployment() launch.Deployment {
	d := launch.Deployment{
		Source:   launch.Source{File: r.Recipe.File, Variant: r.Variant, Strategy: r.Strategy},
		Engine:   "vllm",
		Model:    r.Tree,
		Hardware: r.Hardware,
	}
	inj := launch.Origin{Kind: launch.OriginInjected, Detail: siteDetail}
	worker := func(rc *RoleCommand, role launch.Role) launch.Process {
		p := launch.Process{Kind: launch.KindWorker, Role: role, Program: "vllm serve", Image: r.DockerImage, Env: envVars(rc.Env),
			GPUsPerNode: r.GPUsPerNode, Origin: launch.Origin{Kind: launch.OriginInjected, Path: r.Recipe.File, Detail: siteDetail}}
		if len(rc.Argv) > 2 {
			p.Args = argsFromTokens(rc.Argv[2:])
		}
		return p
	}
	switch r.DeployType {
	case "pd_cluster":
		for _, name := range []string{"prefill", "decode"} {
			rc := r.Role(name)
			if rc == nil {
				continue
			}
			p := worker(rc, launch.Role(name))
			p.NodesPerWorker = max(1, rc.Nodes)
			if rc.Nodes == 0 {
				p.GPUsPerNode = rc.PoolGPUs
			}
			d.Processes = append(d.Processes, p)
		}
	default:
		rc := r.Role("single")
		if rc == nil {
			rc = r.Role("head")
		}
		if rc != nil {
			p := worker(rc, launch.RoleAgg)
			if r.NodeCount > 1 && rc.Name == "head" {
				p.NodesPerWorker = r.NodeCount
			}
			if r.DeployType == "kv_store_lb" {
				p.Workers = r.Instances
			}
			d.Processes = append(d.Processes, p)
		}
	}
	for _, svc := range []struct {
		kind launch.Kind
		cmd  string
	}{{launch.KindMooncakeMaster, r.Master}, {launch.KindMooncakeStore, r.Store}} {
		if svc.cmd == "" {
			continue
		}
		p := launch.Process{Kind: svc.kind, Program: strings.TrimSpace(svc.cmd), Origin: inj}
		if words := serviceWords(svc.cmd); len(words) > 0 {
			prog, rest := words[0], words[1:]
			if isPython(prog) && len(words) >= 3 && words[1] == "-m" {
				prog, rest = strings.Join(words[:3], " "), words[3:]
			}
			p.Program = prog
			var toks []Token
			for _, w := range rest {
				toks = append(toks, Token{Text: w, Origin: inj})
			}
			p.Args = argsFromTokens(toks)
		}
		d.Processes = append(d.Processes, p)
	}
	if r.Router != "" {
		words := strings.Fields(strings.ReplaceAll(r.Router, "\\\n", " "))
		p := launch.Process{Kind: launch.KindVLLMRouter, Program: words[0], Origin: inj}
		var toks []Token
		for _, w := range words[1:] {
			toks = append(toks, Token{Text: w, Origin: inj})
		}
		p.Args = argsFromTokens(toks)
		d.Processes = append(d.Processes, p)
	}
	return d
}

// serviceWords returns the words of the first command of a service command
// text (comments and continuations removed).
func serviceWords(cmd string) (words []string) {
	defer func() {
		if recover() != nil {
			words = nil
		}
	}()
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	out := make([]string, len(call.Args))
	for i, w := range call.Args {
		out[i] = wordText(w, cmd)
	}
	return out
}
