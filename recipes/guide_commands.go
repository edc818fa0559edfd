package recipes

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file turns the launch commands of a guide's Markdown block into
// the shared launch model (BlockDeployments): role, rank, --config files.

var (
	kvRoleRe = regexp.MustCompile(`"kv_role"\s*:\s*"(\w+)"`)
	nodeRe   = regexp.MustCompile(`(?i)\bnode\s*#?\s*(\d+)`)
)

// commandRole gives the serving role of a Markdown launch command: the
// --kv-transfer-config kv_role (kv_producer → prefill, kv_consumer →
// decode), else "prefill"/"decode" in the nearest heading, summary or
// comment, else agg.
func commandRole(sc *ShellCommand, b *Block) launch.Role {
	for i, a := range sc.Args {
		v := ""
		if a == "--kv-transfer-config" && i+1 < len(sc.Args) {
			v = sc.Args[i+1]
		} else if strings.HasPrefix(a, "--kv-transfer-config=") {
			v = strings.TrimPrefix(a, "--kv-transfer-config=")
		}
		if m := kvRoleRe.FindStringSubmatch(v); m != nil {
			switch m[1] {
			case "kv_producer":
				return launch.RolePrefill
			case "kv_consumer":
				return launch.RoleDecode
			}
		}
	}
	ctx := strings.ToLower(strings.Join(sc.Comments, " ") + " " + b.Summary + " " + lastOf(b.Headings))
	p, d := strings.Contains(ctx, "prefill"), strings.Contains(ctx, "decode")
	switch {
	case p && !d:
		return launch.RolePrefill
	case d && !p:
		return launch.RoleDecode
	}
	return launch.RoleAgg
}

func lastOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// isFollower reports a non-zero rank of a multi-node engine: --headless,
// a non-zero --data-parallel-start-rank or --node-rank, or a `# node N`
// comment with N > 0.
func isFollower(sc *ShellCommand) bool {
	for i, a := range sc.Args {
		if a == "--headless" {
			return true
		}
		for _, f := range []string{"--data-parallel-start-rank", "--node-rank"} {
			v := ""
			if a == f && i+1 < len(sc.Args) {
				v = sc.Args[i+1]
			} else if strings.HasPrefix(a, f+"=") {
				v = strings.TrimPrefix(a, f+"=")
			}
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return true
			}
		}
	}
	for _, c := range sc.Comments {
		if m := nodeRe.FindStringSubmatch(c); m != nil && m[1] != "0" {
			return true
		}
	}
	return false
}

// configRef returns the --config value of a command, or "".
func configRef(args []string) string {
	for i, a := range args {
		if a == "--config" && i+1 < len(args) {
			return args[i+1]
		}
		if strings.HasPrefix(a, "--config=") {
			return strings.TrimPrefix(a, "--config=")
		}
	}
	return ""
}

// configFiles resolves a --config value to the vLLM config YAMLs beside the
// Markdown file (spec §5.10): the value itself, or every value a variable
// in it is assigned in the block (`YAML_CONFIG="Llama3.3_Blackwell.yaml"`
// in one branch, `…_Hopper.yaml` in the other). It returns the existing
// files and, for each, the index of the variable value it came from (-1
// when the value was literal).
func configFiles(b *Block, ref string) (files []string, idx []int) {
	if ref == "" {
		return nil, nil
	}
	cands, from := []string{b.Shell.Resolve(ref)}, []int{-1}
	if m := varRefRe.FindStringSubmatch(ref); m != nil && strings.Contains(cands[0], "$") {
		name := m[1] + m[2]
		cands, from = nil, nil
		for i, v := range b.Shell.Values[name] {
			cands = append(cands, strings.Replace(ref, m[0], v, 1))
			from = append(from, i)
		}
	}
	for i, c := range cands {
		if c == "" || strings.Contains(c, "$") {
			continue
		}
		p := c
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(b.File), c)
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			files = append(files, p)
			idx = append(idx, from[i])
		}
	}
	return files, idx
}

// resolveBranch substitutes the variables of s that have exactly n values
// in the block with their k-th value (variables assigned once per branch
// of the same if/else pair up by position).
func resolveBranch(r *ShellResult, s string, k, n int) string {
	s = r.Resolve(s)
	if k < 0 {
		return s
	}
	return varRefRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := varRefRe.FindStringSubmatch(m)
		if vs := r.Values[sub[1]+sub[2]]; len(vs) == n {
			return vs[k]
		}
		return m
	})
}

// BlockDeployments turns the launch commands of one Markdown block into
// Deployments: one per command, except that follower ranks of a multi-node
// engine join the deployment of the command before them. A `--config FILE`
// naming a vLLM config YAML beside the Markdown file (directly or through a
// variable of the block) adds that file's flags ahead of the command's own
// (command-line flags win); a variable with one value per if/else branch
// gives one deployment per config file, its Section suffixed
// "[--config FILE]".
func BlockDeployments(b *Block) []launch.Deployment {
	if b.Shell == nil {
		return nil
	}
	var out []launch.Deployment
	hw := ""
	if len(b.Hardware) > 0 {
		hw = b.Hardware[0]
	} else if len(b.ProseHardware) > 0 {
		hw = b.ProseHardware[0]
	}
	for i := range b.Shell.Commands {
		sc := &b.Shell.Commands[i]
		p := commandProcess(b, sc)
		if len(out) > 0 && isFollower(sc) {
			out[len(out)-1].Processes = append(out[len(out)-1].Processes, p)
			continue
		}
		d := launch.Deployment{
			Source:    launch.Source{File: b.File, Section: b.Section()},
			Engine:    "vllm",
			Model:     b.Shell.Resolve(sc.Model),
			Hardware:  hw,
			Processes: []launch.Process{p},
		}
		cfgs, idx := configFiles(b, configRef(sc.Args))
		if len(cfgs) == 0 {
			out = append(out, d)
			continue
		}
		nvals := 0
		if m := varRefRe.FindStringSubmatch(configRef(sc.Args)); m != nil {
			nvals = len(b.Shell.Values[m[1]+m[2]])
		}
		for ci, cf := range cfgs {
			data, err := launch.ReadInput(cf)
			if err != nil {
				continue
			}
			doc, err := parseYAML(cf, data)
			if err != nil || !isMap(deref(doc)) {
				continue
			}
			fs, err := scanConfig(cf, deref(doc))
			if err != nil || len(fs.Deployments) == 0 {
				continue
			}
			alt := d
			alt.Model = resolveBranch(b.Shell, sc.Model, idx[ci], nvals)
			pp := d.Processes[0]
			// Model positional first, then the config file's flags, then
			// the command's own flags (which win); --config itself is
			// replaced by the flags it names.
			var args []launch.Arg
			rest := pp.Args
			if len(rest) > 0 && rest[0].Flag == "" {
				mv := rest[0]
				mv.Values = []string{alt.Model}
				args = append(args, mv)
				rest = rest[1:]
			}
			args = append(args, fs.Deployments[0].Processes[0].Args...)
			for _, a := range rest {
				if a.Flag == "--config" || strings.HasPrefix(a.Flag, "--config=") {
					continue
				}
				args = append(args, a)
			}
			pp.Args = args
			alt.Processes = append([]launch.Process{pp}, d.Processes[1:]...)
			if len(cfgs) > 1 {
				alt.Source.Section += " [--config " + filepath.Base(cf) + "]"
			}
			out = append(out, alt)
		}
	}
	return out
}

// commandProcess builds the worker process of one Markdown launch command.
func commandProcess(b *Block, sc *ShellCommand) launch.Process {
	line := b.Line + sc.Line
	o := launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d", b.File, line)}
	p := launch.Process{Kind: launch.KindWorker, Role: commandRole(sc, b), Program: sc.Program, Origin: o}
	if sc.Image != "" {
		// `docker run … IMAGE`: the vLLM build the guide runs the server in
		p.Origin.Detail = "docker image " + sc.Image
		p.Image = sc.Image
	}
	if sc.Positional {
		p.Args = append(p.Args, launch.Arg{Values: []string{sc.Model}, Origin: o})
	}
	for j := 0; j < len(sc.Args); j++ {
		a := sc.Args[j]
		if strings.HasPrefix(a, "-") {
			arg := launch.Arg{Flag: a, Origin: o}
			if j+1 < len(sc.Args) && !strings.HasPrefix(sc.Args[j+1], "-") {
				arg.Values = []string{sc.Args[j+1]}
				j++
			}
			p.Args = append(p.Args, arg)
			continue
		}
		p.Args = append(p.Args, launch.Arg{Values: []string{a}, Origin: o})
	}
	for _, e := range sc.Env {
		eo := o
		if e.Line > 0 {
			eo.Path = fmt.Sprintf("%s:%d", b.File, b.Line+e.Line)
		}
		p.Env = append(p.Env, launch.EnvVar{Name: e.Name, Value: e.Value, Origin: eo})
	}
	return p
}
