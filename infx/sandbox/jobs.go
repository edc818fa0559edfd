package sandbox

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
)

// This file runs scripts started from scripts (bash FILE, bash -c) and the
// job environment of a Slurm/container runner: srun, docker run, mounts,
// the staging of the checkout with tar.

// bash runs `bash [opts] FILE args…`, `bash -c STRING [name args…]` or
// `bash` reading its script from stdin, in the same sandbox, as a new
// process: it sees the exported environment plus extraEnv (minus unset).
func (sb *sandbox) bash(ctx context.Context, c *Call, args, unset []string) error {
	hc, extraEnv, site, depth := c.hc, c.extraEnv, c.site, c.depth
	cmdString, haveC := "", false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
			haveC = true
		}
		if a == "-o" || a == "+o" {
			if len(args) > 0 {
				args = args[1:]
			}
		}
	}
	env := mergeEnv(exported(hc.Env), extraEnv, unset)
	startIdx := -1
	var src []byte
	name, params := "", []string(nil)
	switch {
	case haveC:
		if len(args) == 0 {
			return nil
		}
		cmdString, args = args[0], args[1:]
		src = []byte(cmdString)
		name = fmt.Sprintf("bash -c at %s", site.at)
		if len(args) > 0 {
			params = args[1:]
		}
	case len(args) == 0:
		if hc.Stdin == nil {
			return nil
		}
		data, _ := io.ReadAll(io.LimitReader(hc.Stdin, 1<<20))
		src, name = data, fmt.Sprintf("bash stdin at %s", site.at)
	default:
		p := sb.abs(ctx, args[0])
		if sb.refuseAfterUnfollowed(args[0]) {
			return errStopped
		}
		data, err := sb.jail.readInput(p)
		if err != nil {
			sb.refused(args[0], err)
			sb.mu.Lock()
			sb.run.Scripts = append(sb.run.Scripts, ScriptStart{File: p, At: site.at, Missing: true, Exit: 127})
			sb.mu.Unlock()
			say(hc.Stderr, fmt.Sprintf("bash: %s: No such file or directory\n", args[0]))
			return interp.ExitStatus(127)
		}
		// ("./runners/x.sh" is named "runners/x.sh" in positions: the same
		// file, as the rest of the output names it)
		src, name, params = data, path.Clean(args[0]), args[1:]
		sb.mu.Lock()
		st := ScriptStart{File: p, At: site.at, Unset: unset}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if old, ok := sb.base[k]; !ok || old != v {
				if ok {
					sb.unequalInWorlds(old, v)
				}
				st.Env = append(st.Env, kv)
			}
		}
		sort.Strings(st.Env)
		startIdx = len(sb.run.Scripts)
		sb.run.Scripts = append(sb.run.Scripts, st)
		sb.exitAt = Pos{}
		sb.mu.Unlock()
	}
	file, err := sb.parseScript(name, src)
	if err != nil {
		if startIdx >= 0 {
			// A script of the checkout that bash could not read is bad
			// input: the run ends with its file:line:col.
			sb.inputError(err)
			return errStopped
		}
		say(hc.Stderr, fmt.Sprintf("%v\n", err))
		return interp.ExitStatus(2)
	}
	fr := fileRun{name: name, env: env, dir: hc.Dir, params: params, stdin: hc.Stdin, stdout: hc.Stdout, stderr: hc.Stderr, depth: depth + 1}
	var status int
	if startIdx >= 0 && site.kind == ctxPlain && sb.inertScript(src, name) {
		// A script that cannot start a server, whose status and output
		// nothing reads: fenced (fence.go).
		status, err = sb.runFenced(ctx, file, fr, site.at, name)
	} else {
		status, err = sb.runFile(ctx, file, fr)
	}
	if startIdx >= 0 {
		sb.mu.Lock()
		st := &sb.run.Scripts[startIdx]
		st.Exit = status
		if status != 0 && sb.exitAt.Line > 0 {
			st.ExitAt = sb.exitAt
		}
		st.ExitMsg = sb.lastErrLine()
		sb.mu.Unlock()
	}
	if err != nil {
		return err
	}
	if status != 0 {
		return interp.ExitStatus(status)
	}
	return nil
}

// mergeEnv removes the names unset lists from an environment, then
// applies NAME=value assignments and removals: a container or an
// --export=NONE step starts without the caller's variables (unset) and
// gets the ones its -e / --export options name (set), even where the
// caller exported the same name.
func mergeEnv(base, set, unset []string) []string {
	if len(unset) > 0 {
		drop := map[string]bool{}
		for _, k := range unset {
			drop[k] = true
		}
		var kept []string
		for _, kv := range base {
			k, _, _ := strings.Cut(kv, "=")
			if !drop[k] {
				kept = append(kept, kv)
			}
		}
		base = kept
	}
	return ApplyEnvOps(base, set)
}

// srunValueOpts are srun's short options that take a separate value.
const srunValueOpts = "ACDJLNQSWcdeiklmnoprstuwxGB"

// srun runs its command in the job allocation: `--export=ALL,NAME=value,…`
// adds variables (NAME alone passes the current value), `--export=NONE`
// starts from nothing; `--container-workdir` with `--container-mounts`
// mapping the checkout sets the directory. A bare `srun` with no command
// succeeds.
func (sb *sandbox) srun(ctx context.Context, c *Call) error {
	hc, args, extraEnv := c.hc, c.Args[1:], c.extraEnv
	var set []string
	none := false
	workdir := ""
	var mounts []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			k, v, hasV := strings.Cut(a, "=")
			switch k {
			case "--export":
				for _, e := range strings.Split(v, ",") {
					switch {
					case e == "ALL" || e == "":
					case e == "NONE" || e == "NIL":
						none = true
					case strings.Contains(e, "="):
						set = append(set, e)
					default:
						if vv := hc.Env.Get(e); vv.IsSet() {
							set = append(set, e+"="+vv.String())
						}
					}
				}
			case "--container-workdir":
				workdir = v
			case "--container-mounts":
				mounts = strings.Split(v, ",")
			}
			if !hasV && srunLongTakesValue(k) && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		if len(a) == 2 && strings.IndexByte(srunValueOpts, a[1]) >= 0 && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return nil
	}
	hc2 := hc
	sb.mountAll(hc, mounts)
	if workdir != "" {
		hc2.Dir = filepath.Clean(workdir)
	}
	var unset []string
	if none {
		hc.Env.Each(func(name string, v expand.Variable) bool {
			if v.Exported {
				unset = append(unset, name)
			}
			return true
		})
	}
	set = append(append([]string(nil), extraEnv...), set...)
	return sb.jobCommand(ctx, c.with(hc2, args, set), unset)
}

// jobCommand runs the command of an srun or docker run: a script (`bash
// FILE`, `FILE.sh`, `bash -c …`) in the sandbox as a new process, anything
// else as an external command, with the job's environment changes.
func (sb *sandbox) jobCommand(ctx context.Context, c *Call, unset []string) error {
	cmd := c.Args
	if name := path.Base(cmd[0]); name == "bash" || name == "sh" {
		return sb.bash(ctx, c, cmd[1:], unset)
	}
	if strings.HasSuffix(cmd[0], ".sh") {
		return sb.bash(ctx, c, cmd, unset)
	}
	if sb.cfg.IsServer != nil && sb.cfg.IsServer(cmd) {
		// A server the step starts itself (`srun python3 -m
		// sglang.launch_server …`, a container's command): recorded as a
		// command of the run, with the step's environment, as one a
		// script writes is.
		env := mergeEnv(exported(c.hc.Env), c.extraEnv, unset)
		sb.mu.Lock()
		diff := sb.diffEnv(env)
		sort.Strings(diff)
		sb.seq++
		sb.run.Commands = append(sb.run.Commands, Command{Argv: append([]string(nil), cmd...), Env: diff, File: c.Pos.File, Line: c.Pos.Line, Col: c.Pos.Col, Dir: c.hc.Dir, Seq: sb.seq})
		if sb.endAt(&sb.run.Commands[len(sb.run.Commands)-1]) {
			sb.mu.Unlock()
			sb.stop()
			return errEnded
		}
		sb.mu.Unlock()
		return nil
	}
	return sb.external(ctx, c)
}

// srunLongTakesValue: srun long options written with a separate value.
func srunLongTakesValue(k string) bool {
	switch k {
	case "--jobid", "--partition", "--nodes", "--ntasks", "--job-name", "--account", "--time", "--gres", "--nodelist",
		"--container-image", "--container-mounts", "--container-workdir", "--container-name", "--mpi", "--overlap-nodes",
		"--cpus-per-task", "--mem", "--exclude", "--output", "--error", "--ntasks-per-node", "--gpus", "--gpus-per-node":
		return true
	}
	return false
}

// mountAll applies `HOST:CONTAINER[:flags]` mounts (srun
// --container-mounts, docker -v): the container path shows the host path
// (itself resolved through earlier mounts).
func (sb *sandbox) mountAll(hc interp.HandlerContext, mounts []string) {
	for _, m := range mounts {
		parts := strings.Split(m, ":")
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			continue
		}
		host := parts[0]
		if !filepath.IsAbs(host) {
			host = filepath.Join(hc.Dir, host)
		}
		sb.mount(parts[1], sb.real(filepath.Clean(host)))
	}
}

// tar records what archives hold and where they are unpacked, so that a
// launcher that stages the checkout (`tar -C $GITHUB_WORKSPACE -czf X .`,
// `sbcast X Y`, `tar -C DIR -xzf Y`) runs the scripts of the checkout from
// DIR. Nothing is written.
func (sb *sandbox) tar(ctx context.Context, args []string) {
	dir, file, mode := "", "", byte(0)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--directory":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--directory="):
			dir = strings.TrimPrefix(a, "--directory=")
		case a == "-f" || a == "--file":
			if i+1 < len(args) {
				file = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--file="):
			file = strings.TrimPrefix(a, "--file=")
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") || i == 0 && !strings.HasPrefix(a, "-"):
			flags := strings.TrimPrefix(a, "-")
			if strings.ContainsAny(flags, "cx") {
				if strings.Contains(flags, "c") {
					mode = 'c'
				} else {
					mode = 'x'
				}
				// -czf FILE: f takes the next word
				if strings.HasSuffix(flags, "f") && i+1 < len(args) {
					file = args[i+1]
					i++
				}
			}
		}
	}
	if file == "" || file == "-" {
		return
	}
	switch mode {
	case 'c':
		src := "."
		if dir != "" {
			src = dir
		}
		sb.fsmu.Lock()
		if sb.archives == nil {
			sb.archives = map[string]string{}
		}
		sb.fsmu.Unlock()
		real := sb.abs(ctx, src)
		sb.fsmu.Lock()
		sb.archives[file] = real
		sb.fsmu.Unlock()
	case 'x':
		sb.fsmu.Lock()
		from, ok := sb.archives[file]
		sb.fsmu.Unlock()
		if ok && dir != "" {
			at := dir
			if !filepath.IsAbs(at) {
				at = filepath.Join(interp.HandlerCtx(ctx).Dir, at)
			}
			sb.mount(at, from)
		}
	}
}

// dockerRun runs `docker run [opts] IMAGE [CMD…]`'s command with only the
// variables -e/--env name (NAME alone passes the current value), in the
// directory -w/--workdir maps back to through -v mounts.
func (sb *sandbox) dockerRun(ctx context.Context, c *Call) error {
	hc, args := c.hc, c.Args[2:]
	var set, fileEnv []string
	var mounts []string
	workdir, entrypoint := "", ""
	valued := map[string]bool{"-e": true, "--env": true, "-v": true, "--volume": true, "-w": true, "--workdir": true, "--name": true,
		"--network": true, "--ipc": true, "--shm-size": true, "--gpus": true, "--device": true, "--group-add": true, "--cap-add": true,
		"--security-opt": true, "-u": true, "--user": true, "--entrypoint": true, "--ulimit": true, "-p": true, "--publish": true,
		"--runtime": true, "--env-file": true, "--stop-timeout": true, "--stop-signal": true, "--add-host": true, "--tmpfs": true,
		"--restart": true, "--log-driver": true, "--log-opt": true, "--platform": true, "--pull": true, "--cgroupns": true, "--userns": true,
		"--uts": true, "-m": true, "--cidfile": true, "--dns": true, "--expose": true, "--health-cmd": true, "--pids-limit": true, "--cpuset-cpus": true, "--label": true, "-l": true, "--mount": true, "--memory": true, "--cpus": true, "--pid": true, "-h": true, "--hostname": true}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		k, v, hasV := strings.Cut(a, "=")
		if len(a) > 2 && a[1] != '-' && valued[a[:2]] {
			// a short option with its value attached (-eNAME=v, -v/a:/b)
			k, v, hasV = a[:2], a[2:], true
		}
		if !hasV && valued[k] && len(args) > 0 {
			v, args = args[0], args[1:]
		}
		if sb.cfg.Holes && (HasHole(k) || HasHole(v) && !copiesContainerVar(k, v)) {
			// an option's value is read (holes.go), a container
			// variable's (-e NAME=VALUE) copied
			sb.inspectHole("docker run " + k)
			return errStopped
		}
		switch k {
		case "--env-file":
			sb.holeIn("a path", v)
			data, err := sb.readKnownFile(ctx, v)
			if sb.cfg.Holes && HasHole(string(data)) && !envFileCopiesHoles(string(data)) {
				sb.inspectHole("the env file of docker run")
				return errStopped
			}
			if err != nil {
				return c.Unsupported("docker", fmt.Sprintf("docker run --env-file %s: the variables the file gives the container are not known to the sandbox (%v)", v, err))
			}
			kvs, err := parseEnvFile(v, data, func(name string) (string, bool) {
				vv := hc.Env.Get(name)
				return vv.String(), vv.IsSet() && vv.Exported
			})
			if err != nil {
				// docker refuses the run
				say(hc.Stderr, "docker: "+err.Error()+"\n")
				return interp.ExitStatus(125)
			}
			fileEnv = append(fileEnv, kvs...)
		case "--entrypoint":
			// "" runs the command as given; a shell runs it as its
			// script (`--entrypoint=/bin/bash IMAGE FILE`); any other
			// program's handling of the command is not known.
			switch path.Base(v) {
			case "", ".":
				entrypoint = ""
			case "bash", "sh":
				entrypoint = v
			default:
				return c.Unsupported("docker", fmt.Sprintf("docker run --entrypoint %s: what the entrypoint does with the command is not known to the sandbox", v))
			}
		case "-e", "--env":
			if strings.Contains(v, "=") {
				set = append(set, v)
			} else if vv := hc.Env.Get(v); vv.IsSet() {
				set = append(set, v+"="+vv.String())
			}
		case "-v", "--volume":
			mounts = append(mounts, v)
		case "-w", "--workdir":
			workdir = v
		}
	}
	if len(args) > 0 && sb.cfg.Holes && HasHole(args[0]) {
		sb.inspectHole("docker run's image") // holes.go
		return errStopped
	}
	if len(args) < 2 {
		return nil // image only: its own entrypoint
	}
	// docker applies the env files first, then -e (docker/cli
	// opts.ReadKVEnvStrings: the files' lines, then the overrides).
	set = append(fileEnv, set...)
	cmd := args[1:]
	if entrypoint != "" {
		cmd = append([]string{entrypoint}, cmd...)
	}
	var unset []string
	hc.Env.Each(func(name string, v expand.Variable) bool {
		if v.Exported {
			unset = append(unset, name)
		}
		return true
	})
	base := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root"}
	// What the container's commands run with is told against the image's
	// defaults: the -e values are the container's (a server docker run
	// starts gets them), the batch job's exports are not.
	start := map[string]string{}
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		start[k] = v
	}
	sb.mu.Lock()
	sb.containerBases = append(sb.containerBases, start)
	base = append(base, containerVar+"="+strconv.Itoa(len(sb.containerBases)-1))
	sb.mu.Unlock()
	hc2 := hc
	sb.mountAll(hc, mounts)
	if workdir != "" {
		hc2.Dir = filepath.Clean(workdir)
	}
	return sb.jobCommand(ctx, c.with(hc2, cmd, append(base, set...)), unset)
}

// parseEnvFile reads a docker run --env-file as docker does (docker/cli
// opts/envfile.go parseKeyValueFile): leading whitespace trimmed, empty
// lines and lines starting with # skipped, NAME=value kept as written (no
// quotes removed), a NAME without = takes the value of the exported
// variable of the caller (skipped when unset). Errors as docker's: invalid
// UTF-8, a name with whitespace, a line without a name.
func parseEnvFile(name string, data []byte, lookup func(string) (string, bool)) ([]string, error) {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("env file %s contains invalid utf8 bytes at line %d", name, i+1)
		}
		line = strings.TrimLeftFunc(strings.TrimSuffix(line, "\r"), unicode.IsSpace)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, hasV := strings.Cut(line, "=")
		if k == "" {
			return nil, fmt.Errorf("no variable name on line '%s'", line)
		}
		if strings.ContainsAny(k, " \t\n\v\f\r") {
			return nil, fmt.Errorf("variable '%s' contains whitespaces", k)
		}
		if hasV {
			out = append(out, k+"="+v)
		} else if val, ok := lookup(k); ok {
			out = append(out, k+"="+val)
		}
	}
	return out, nil
}
