package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEndAt: Config.EndAt ends the run right after the command it accepts
// is recorded — in the script, in a child script (the whole run ends), and
// at a server a job step starts — with status 0, no End and no Stop, and
// Trace.EndedAt the command's Seq; nothing after it is followed (a later
// command, a write, a loop that would exceed the step bound). EndAt sees
// the trace so far: a predicate on it (a script started) holds off until
// it is true.
func TestEndAt(t *testing.T) {
	isServer := func(argv []string) bool { return len(argv) > 2 && argv[2] == "sglang.launch_server" }
	atServer := func(_ *Trace, c *Command) bool { return isServer(c.Argv) }
	dir := t.TempDir()
	child := "echo child\npython3 -m sglang.launch_server --tp 2 > log 2>&1 &\nhostname\n"
	if err := os.WriteFile(filepath.Join(dir, "child.sh"), []byte(child), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src string
		endAt     func(*Trace, *Command) bool
		want      []string // the commands recorded, the last the one ended at
	}{
		{"script", "hostname\npython3 -m sglang.launch_server --tp 8 &\necho x > after.txt\nwhile :; do hostname; done\n", atServer,
			[]string{"hostname", "python3 -m sglang.launch_server --tp 8"}},
		{"child script", "hostname\nbash child.sh\necho x > after.txt\nwhoami\n", atServer,
			[]string{"hostname", "bash child.sh", "python3 -m sglang.launch_server --tp 2"}},
		{"job step", "srun --export=ALL,A=1 python3 -m sglang.launch_server --tp 4\nwhoami\n", atServer,
			[]string{"srun --export=ALL,A=1 python3 -m sglang.launch_server --tp 4", "python3 -m sglang.launch_server --tp 4"}},
		// only once a script started: the launch before it is followed past
		{"after a script", "python3 -m sglang.launch_server --tp 1 &\nbash child.sh\nwhoami\n",
			func(tr *Trace, c *Command) bool { return len(tr.Scripts) > 0 && isServer(c.Argv) },
			[]string{"python3 -m sglang.launch_server --tp 1", "bash child.sh", "python3 -m sglang.launch_server --tp 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, err := runSrc(filepath.Join(dir, "s.sh"), tc.src, Config{IsServer: isServer, EndAt: tc.endAt, ReadRoots: []string{dir}, Dir: dir, Steps: 500})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range run.Commands {
				got = append(got, strings.Join(c.Argv, " "))
			}
			eqStrings(t, "commands", got, tc.want)
			last := run.Commands[len(run.Commands)-1]
			if run.EndedAt != last.Seq || run.Exit != 0 || run.Stop != nil || run.End != nil {
				t.Errorf("EndedAt %d (last command %d), exit %d, stop %v, end %v", run.EndedAt, last.Seq, run.Exit, run.Stop, run.End)
			}
			for w := range run.Writes {
				if strings.Contains(w, "after") {
					t.Errorf("a write after the end: %q", w)
				}
			}
		})
	}
	// without EndAt the same script runs on (and its loop hits the bound)
	if _, err := runSrc(filepath.Join(dir, "s.sh"), "python3 -m sglang.launch_server --tp 8 &\nwhile :; do hostname; done\n", Config{IsServer: isServer, Steps: 500}); err == nil {
		t.Error("no EndAt: the loop after the server ran without reaching the step bound")
	}
	// A command recorded while something of the run may run beside it —
	// it is in a background subshell or a pipeline stage, or a background
	// subshell was started and not waited for, however early it ended —
	// does not end the run: where the rest is at would depend on
	// scheduling. The run goes on, here to the loop's bound, every time.
	for _, src := range []string{
		"(python3 -m sglang.launch_server --tp 3 > srv.log 2>&1) &\nwhile :; do hostname; done\n",
		"(python3 -m sglang.launch_server --tp 3 > srv.log 2>&1; hostname) &\nwait\nwhile :; do hostname; done\n",
		"python3 -m sglang.launch_server --tp 3 2>&1 | tee srv.log\nwhile :; do hostname; done\n",
		"{ printf x; } | python3 -m sglang.launch_server --tp 3\nwhile :; do hostname; done\n",
		"(hostname) &\npython3 -m sglang.launch_server --tp 3\nwhile :; do hostname; done\n",
	} {
		for range 20 {
			run, err := runSrc(filepath.Join(dir, "s.sh"), src, Config{IsServer: isServer, EndAt: atServer, ReadRoots: []string{dir}, Dir: dir, Steps: 500})
			if err == nil || !strings.Contains(err.Error(), "more than the allowed number of commands") {
				t.Fatalf("%q: err %v (ended at %v), want the step bound", src, err, run)
			}
		}
	}
	// a simple command sent to the background runs in place (bgjobs.go):
	// nothing runs beside the server after it, which ends the run every
	// time
	for range 20 {
		run, err := runSrc(filepath.Join(dir, "s.sh"), "hostname &\npython3 -m sglang.launch_server --tp 3\nwhile :; do hostname; done\n", Config{IsServer: isServer, EndAt: atServer, ReadRoots: []string{dir}, Dir: dir, Steps: 500})
		if err != nil || run.EndedAt != 2 {
			t.Fatalf("after a simple background command: err %v, ended at %v", err, run)
		}
	}
	// a left stage the sandbox runs to its end first (seqPipeStage)
	// leaves nothing beside the stage it feeds: a server there ends the
	// run every time
	for range 20 {
		run, err := runSrc(filepath.Join(dir, "s.sh"), "printf x | python3 -m sglang.launch_server --tp 3\nwhile :; do hostname; done\n", Config{IsServer: isServer, EndAt: atServer, ReadRoots: []string{dir}, Dir: dir, Steps: 500})
		if err != nil || run.EndedAt != 1 || len(run.Commands) != 1 {
			t.Fatalf("after a left stage run first: err %v, ended at %v", err, run)
		}
	}
	// once the background job is done (waited for), a server the script
	// starts itself ends the run
	run, err := runSrc(filepath.Join(dir, "s.sh"), "(hostname; whoami) &\nwait\npython3 -m sglang.launch_server --tp 5\nwhile :; do hostname; done\n", Config{IsServer: isServer, EndAt: atServer, Steps: 500})
	if err != nil || run.EndedAt == 0 {
		t.Fatalf("after a waited-for job: err %v, ended at %v", err, run)
	}
}
