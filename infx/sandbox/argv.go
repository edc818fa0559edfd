package sandbox

import (
	"path"
	"strings"
)

// This file reads command lines as the sandbox runs them: the wrappers it
// removes (and the environment changes an `env` wrapper makes), sed's
// arguments, and the short form of an argv its messages show. A caller
// reading a Trace's commands reads them with the same rules.

// wrapperValueOpts are the commands that run their arguments as a command,
// after options of their own, with the short options that take a separate
// value (`exec` and `time` as the shell spells them in a recorded argv).
var wrapperValueOpts = map[string]string{
	"nohup": "", "setsid": "", "stdbuf": "ioe", "numactl": "CcmNnpPi", "taskset": "", "timeout": "sk", "nice": "n", "ionice": "cn", "sudo": "ugCDhpr", "env": "uSC",
	"exec": "a", "time": "",
}

// ShortArgv shortens an argv for a message: at most five words of at
// most 60 bytes each, "…" marking what is left out.
func ShortArgv(args []string) []string {
	out := make([]string, 0, 6)
	for i, a := range args {
		if i == 5 {
			out = append(out, "…")
			break
		}
		if len(a) > 60 {
			a = a[:60] + "…"
		}
		out = append(out, a)
	}
	return out
}

// Unwrap removes the wrappers in front of a command (nohup, setsid,
// stdbuf, numactl, taskset, timeout, nice, ionice, sudo, env, exec, time:
// the commands that run their arguments as a command) with their own
// options: cmd is the command they run, envOps the environment changes an
// `env` wrapper makes, in order (see ApplyEnvOps).
func Unwrap(argv []string) (cmd, envOps []string) {
	for len(argv) > 0 {
		w := path.Base(argv[0])
		if _, ok := wrapperValueOpts[w]; !ok {
			break
		}
		inner, e := unwrap(w, argv[1:])
		envOps = append(envOps, e...)
		argv = inner
	}
	return argv, envOps
}

// unwrap removes a wrapper's own options (and env's assignments).
func unwrap(name string, args []string) (inner, env []string) {
	valued := wrapperValueOpts[name]
	for len(args) > 0 {
		a := args[0]
		if name == "env" && strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
			env = append(env, a)
			args = args[1:]
			continue
		}
		if name == "env" {
			// env -u NAME / --unset=NAME removes a variable, env -i /
			// --ignore-environment / - starts from nothing: recorded as
			// operations (ApplyEnvOps), never skipped as options
			switch {
			case a == "-i" || a == "--ignore-environment" || a == "-":
				env = append(env, envClear)
				args = args[1:]
				continue
			case (a == "-u" || a == "--unset") && len(args) > 1:
				env = append(env, envUnset+args[1])
				args = args[2:]
				continue
			case strings.HasPrefix(a, "--unset="):
				env = append(env, envUnset+strings.TrimPrefix(a, "--unset="))
				args = args[1:]
				continue
			case strings.HasPrefix(a, "-u") && len(a) > 2:
				env = append(env, envUnset+a[2:])
				args = args[1:]
				continue
			}
		}
		if a == "--" {
			args = args[1:]
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			args = args[1:]
			if len(a) == 2 && strings.IndexByte(valued, a[1]) >= 0 && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		break
	}
	if name == "timeout" && len(args) > 0 {
		args = args[1:] // the duration
	}
	if name == "taskset" && len(args) > 0 {
		args = args[1:] // the CPU mask
	}
	return args, env
}

// SedArgs splits a `sed` command line into sed's script arguments (the
// script or -e scripts, with -E/-r/-n), its files, and whether -i edits
// them in place. ok is false when there is no script or an option the
// sandbox's sed does not take (-i with a suffix, -s, -z, …).
func SedArgs(argv []string) (script, files []string, inPlace, ok bool) {
	haveScript := false
	for j := 1; j < len(argv); j++ {
		a := argv[j]
		switch {
		case a == "-i" || a == "--in-place":
			inPlace = true
		case a == "-e" && j+1 < len(argv):
			script = append(script, "-e", argv[j+1])
			haveScript = true
			j++
		case a == "-E" || a == "-r" || a == "-n":
			script = append(script, a)
		case strings.HasPrefix(a, "-"):
			return nil, nil, inPlace || strings.HasPrefix(a, "-i"), false
		case !haveScript:
			script = append(script, a)
			haveScript = true
		default:
			files = append(files, a)
		}
	}
	return script, files, inPlace, haveScript
}

// Env operations of an `env` wrapper besides NAME=value (unwrap): envClear
// (env -i) drops every variable before it, envUnset+NAME (env -u NAME)
// drops NAME.
const (
	envClear = "\x00clear"
	envUnset = "\x00unset="
)

// ApplyEnvOps applies ops in order to the NAME=value list base: NAME=value
// sets (replacing in place), envUnset+NAME removes, envClear empties.
// Entries of neither form are ignored.
func ApplyEnvOps(base, ops []string) []string {
	out := append([]string(nil), base...)
	for _, op := range ops {
		switch {
		case op == envClear:
			out = out[:0]
		case strings.HasPrefix(op, envUnset):
			name := strings.TrimPrefix(op, envUnset)
			kept := out[:0]
			for _, kv := range out {
				if k, _, _ := strings.Cut(kv, "="); k != name {
					kept = append(kept, kv)
				}
			}
			out = kept
		default:
			k, _, ok := strings.Cut(op, "=")
			if !ok {
				continue
			}
			found := false
			for i, kv := range out {
				if kk, _, _ := strings.Cut(kv, "="); kk == k {
					out[i], found = op, true
					break
				}
			}
			if !found {
				out = append(out, op)
			}
		}
	}
	return out
}
