package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobSteps: what a batch job's steps see — a text utility reading a
// pipe (paste, fgrep) gets its input (before, paste read nothing and the
// value was silently empty); a container's -e and an --export=NONE step's
// NAME=value win over the caller's exported variable of the same name
// (before, the variable was dropped); docker run's valued options
// (--stop-timeout 10) are not taken for the image; an executable script
// run by its path (#!/bin/bash) runs.
func TestJobSteps(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "step.sh"), []byte("#!/bin/bash\nsubmit \"from-step:$1:$M\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("#!/usr/bin/python3\nsubmit no\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmds := map[string]Handler{"submit": func(_ context.Context, c *Call) error { return c.End() }}
	for _, tc := range []struct{ src, want string }{
		{`X=$(printf 'a b\nc d\n' | awk '{print $2}' | paste -sd,); submit "$X"`, "b,d"},
		{`X=$(printf 'hca_id:\trdma0\n' | fgrep hca_id | awk '{print $2}'); submit "$X"`, "rdma0"},
		{`export M=host; docker run -e M=container img bash -c 'submit "$M"'`, "container"},
		{`export M=host; docker run -e M img bash -c 'submit "$M"'`, "host"},
		{`export M=host; docker run img bash -c 'submit "${M:-unset}"'`, "unset"},
		{`export M=host; srun --export=NONE,M=step bash -c 'submit "$M"'`, "step"},
		{`docker run --init --stop-timeout 10 --name c img bash -lc 'submit ran'`, "ran"},
		{`export M=m; docker run -e M --entrypoint=/bin/bash img ./step.sh three`, "from-step:three:m"},
		{`export M=m; ./step.sh one`, "from-step:one:m"},
		// an env file the run wrote: read as docker reads it (comments,
		// NAME alone from the caller's exports, -e after the file)
		{`export M=host; printf '# c\n  A=1 2\nM\nB="q"\n' > /tmp/e.env; docker run --env-file /tmp/e.env -e B=e img bash -c 'submit "$A|$M|$B"'`, "1 2|host|e"},
		{`printf 'A=1\n' > /tmp/e.env; docker run --env-file=/tmp/e.env img bash -c 'submit "$A"'`, "1"},
		// written through a container's mount, read by a docker client in it
		{`docker run -v /tmp:/run_logs img bash -c 'mkdir -p /run_logs/j; echo A=2 > /run_logs/j/e.env; docker run --env-file /run_logs/j/e.env img2 bash -c "submit \$A"'`, "2"},
		{`export M=m; "$PWD/step.sh" two`, "from-step:two:m"},
	} {
		checkSubmit(t, tc.src, tc.want, Config{Commands: cmds, ReadRoots: []string{dir}, Dir: dir})
	}
	// A file run by its path that is not a shell script stays unknown.
	run, err := runSrc("j.sh", "X=$(./data.txt)\nsubmit \"$X\"\n", Config{Commands: cmds, ReadRoots: []string{dir}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if run.End != nil || run.Stop == nil || !strings.Contains(run.Stop.Msg, "./data.txt") {
		t.Errorf("a python file run by its path: end %v, stop %v; want Unsupported naming it", run.End, run.Stop)
	}
}

// TestJobStepServer: a server a job step starts itself (`srun python3 -m
// …`, a container's command) is a command of the run, with the step's
// environment — not skipped because no script wrote it.
func TestJobStepServer(t *testing.T) {
	isServer := func(argv []string) bool { return len(argv) > 2 && argv[2] == "sglang.launch_server" }
	for _, src := range []string{
		"srun --export=ALL,A=1 python3 -m sglang.launch_server --tp 8\n",
		"docker run -e A=1 img python3 -m sglang.launch_server --tp 8\n",
	} {
		run, err := runSrc("s.sh", src, Config{IsServer: isServer})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range run.Commands {
			if isServer(c.Argv) {
				got = append(got, strings.Join(c.Argv, " ")+" | "+strings.Join(c.Env, " "))
			}
		}
		if len(got) != 1 || got[0] != "python3 -m sglang.launch_server --tp 8 | A=1" && !strings.HasPrefix(got[0], "python3 -m sglang.launch_server --tp 8 | ") {
			t.Errorf("%s: server commands %q", src, got)
		}
		if len(got) == 1 && !strings.Contains(got[0], "A=1") {
			t.Errorf("%s: the step's env is not the command's: %q", src, got[0])
		}
	}
}

// TestContainerEnvBaseline: a variable a container's script exports is the
// server's even when the batch job outside exported the same value (the
// container starts from a fresh environment); outside a container an
// unchanged export of the run's start is not listed.
func TestContainerEnvBaseline(t *testing.T) {
	isServer := func(argv []string) bool { return len(argv) > 0 && argv[0] == "server" }
	for _, c := range []struct{ src, want string }{
		{"export TC=104\ndocker run img bash -c 'export TC=104; server'\n", "TC=104"},
		{"export TC=104\ndocker run -e TC=104 img server\n", "TC=104"},
		{"docker run img bash -c 'server'\n", ""},
		{"server\n", ""},
	} {
		run, err := runSrc("s.sh", c.src, Config{IsServer: isServer, Env: []string{"TC=104"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cmd := range run.Commands {
			if isServer(cmd.Argv) {
				for _, kv := range cmd.Env {
					if strings.HasPrefix(kv, "TC=") || strings.HasPrefix(kv, "__") {
						got = append(got, kv)
					}
				}
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: server env %q, want %q", c.src, got, c.want)
		}
	}
}

// checkSubmit runs src (one line of a script) and checks the arguments of
// the `submit` command that ends it (cfg.Commands answers it with End).
func checkSubmit(t *testing.T, src, want string, cfg Config) {
	t.Helper()
	run, err := runSrc("j.sh", src+"\n", cfg)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if run.End == nil {
		t.Errorf("%s: no submit reached (stop %v)", src, run.Stop)
		return
	}
	if got := strings.Join(run.End.Argv[1:], " "); got != want {
		t.Errorf("%s: submit %q, want %q", src, got, want)
	}
}
