package infx

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// serverModules are `python -m <module>` servers: module → process kind.
var serverModules = map[string]launch.Kind{
	"sglang.launch_server":               launch.KindWorker,
	"sglang_router.launch_server":        launch.KindWorker,
	"sglang_router.launch_router":        launch.KindSGLangRouter,
	"vllm.entrypoints.openai.api_server": launch.KindWorker,
	"vllm.entrypoints.api_server":        launch.KindWorker,
	"tensorrt_llm.commands.serve":        launch.KindWorker,
	"atom.entrypoints.openai_server":     launch.KindWorker,
	"atom.entrypoints.openai.api_server": launch.KindWorker,
}

// serverCommand recognises a server launch in argv, after unwrapping
// nohup/env/… wrappers: `python3 -m sglang.launch_server`, `python -m
// vllm.entrypoints.openai.api_server`, `vllm serve`, `sglang serve`,
// `trtllm-serve`. It returns the program words, the remaining arguments,
// the env assignments made by an `env` wrapper, and the kind.
func serverCommand(argv []string) (program []string, rest []string, env []string, kind launch.Kind, ok bool) {
	argv, env = sandbox.Unwrap(argv)
	if len(argv) == 0 {
		return nil, nil, nil, "", false
	}
	w := path.Base(argv[0])
	switch {
	case strings.HasPrefix(w, "python") && len(argv) >= 3 && argv[1] == "-m":
		if k, found := serverModules[argv[2]]; found {
			return []string{w, "-m", argv[2]}, argv[3:], env, k, true
		}
	case (w == "vllm" || w == "sglang") && len(argv) >= 2 && argv[1] == "serve":
		return []string{w, "serve"}, argv[2:], env, launch.KindWorker, true
	case w == "trtllm-serve":
		if len(argv) >= 2 && argv[1] == "serve" {
			return []string{w, "serve"}, argv[2:], env, launch.KindWorker, true
		}
		return []string{w}, argv[1:], env, launch.KindWorker, true
	}
	return nil, nil, nil, "", false
}

// isFlag reports whether a word starts a flag (not a negative number).
func isFlag(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	if c := s[1]; c == '-' || ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') && strings.IndexByte("iInN", c) < 0 {
		return true // no number (ParseFloat's error made for nothing)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	return true
}

// parseArgs splits argument words into flags with their values:
// "--flag=value" gives one value, "--flag v1 v2" takes the words up to the
// next flag, words before the first flag are positionals (Flag "").
func parseArgs(words []string, origin launch.Origin) []launch.Arg {
	var out []launch.Arg
	for _, w := range words {
		switch {
		case isFlag(w):
			a := launch.Arg{Flag: w, Origin: origin}
			if strings.HasPrefix(w, "--") {
				if f, v, ok := strings.Cut(w, "="); ok {
					a.Flag, a.Values = f, []string{v}
				}
			}
			out = append(out, a)
		case len(out) > 0 && out[len(out)-1].Flag != "":
			out[len(out)-1].Values = append(out[len(out)-1].Values, w)
		default:
			out = append(out, launch.Arg{Values: []string{w}, Origin: origin})
		}
	}
	return out
}

// ScriptProcesses turns the server launches a script run recorded into
// processes: one per launch command, workers with role agg, each argument
// and exported variable marked as coming from the script at file:line.
// Error: no launch command was recorded, or one names a file the script
// wrote whose content the sandbox does not know (sandbox.Trace.Unknown).
func ScriptProcesses(run *ScriptRun, file string) ([]launch.Process, error) {
	var out []launch.Process
	for _, c := range run.Commands {
		prog, rest, envArgs, kind, ok := serverCommand(c.Argv)
		if !ok {
			continue
		}
		f := c.File
		if f == "" {
			f = file
		}
		origin := launch.Origin{Kind: launch.OriginScript, Path: fmt.Sprintf("%s:%d", f, c.Line)}
		p := launch.Process{Kind: kind, Program: strings.Join(prog, " "), Args: parseArgs(rest, origin), Origin: origin}
		if kind == launch.KindWorker {
			p.Role = launch.RoleAgg
		}
		// Files the script wrote and the command names (engine configs
		// such as trtllm-serve --extra_llm_api_options config.yaml).
		for _, a := range p.Args {
			for _, v := range a.Values {
				if w, ok := run.Writes[v]; ok {
					if why := run.Unknown[v]; why != "" {
						return nil, fmt.Errorf("%s:%d:%d: %s reads %s, whose content is not known to the sandbox (%s)", launch.QuotePath(f), c.Line, c.Col, p.Program, v, why)
					}
					p.Files = append(p.Files, v)
					// its content, so compare compares the file, not its path
					p.FileContents = append(p.FileContents, launch.FileContent{Path: v, Content: w, Origin: origin})
				}
			}
		}
		kvs := sandbox.ApplyEnvOps(c.Env, envArgs)
		seen := make(map[string]int, len(kvs))
		if len(kvs) > 0 {
			p.Env = make([]launch.EnvVar, 0, len(kvs)) // (grew by append: copies of ~100-byte entries)
		}
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			if i, dup := seen[k]; dup {
				p.Env[i].Value = v
				continue
			}
			seen[k] = len(p.Env)
			p.Env = append(p.Env, launch.EnvVar{Name: k, Value: v, Origin: origin})
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		names := make([]string, 0, len(run.Commands))
		for _, c := range run.Commands {
			if len(c.Argv) > 0 {
				names = append(names, c.Argv[0])
			}
		}
		return nil, &PosError{File: file, Err: fmt.Errorf("no server launch command found (python3 -m sglang.launch_server, vllm serve, trtllm-serve, …); commands run: %s", strings.Join(uniq(names), " "))}
	}
	return out, nil
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
