package sandbox

import (
	"context"
	"strings"
	"testing"
)

// TestBackgroundJobs: what a script learns of a job it sent to the
// background — $! is a pseudo PID per job in start order; a server runs
// until the script signals it (kill -0 succeeds, ps gives its setsid
// group), any other job has finished with its status (kill -0 fails,
// wait gives the status); wait_or_die's loop (InferenceX
// amd_utils/server_sglang.sh) ends; a compound job's $! stays the
// interpreter's.
func TestBackgroundJobs(t *testing.T) {
	isServer := func(argv []string) bool { return len(argv) > 0 && argv[0] == "server" }
	cmds := map[string]Handler{"submit": func(_ context.Context, c *Call) error { return c.End() }}
	waitOrDie := `wait_or_die() {
    local watch=$1; shift
    "$@" & local cmd=$!
    while kill -0 "$cmd" 2>/dev/null; do
        kill -0 "$watch" 2>/dev/null || { echo died >&2; kill "$cmd" 2>/dev/null || true; return 1; }
        sleep 5
    done
    wait "$cmd"
}
`
	for _, tc := range []struct{ src, want string }{
		{`echo "[$!]"; setsid bash -c "server --port 1" > >(tee log >/dev/null) 2>&1 & p=$!; g=$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' '); submit "$p" "$g"`, "20001 20001"},
		{`server & a=$!; false & b=$!; kill -0 $a; x=$?; kill -0 $b 2>/dev/null; y=$?; wait $b; submit $a $b $x $y $?`, "20001 20002 0 1 1"},
		{waitOrDie + `setsid bash -c "server" & s=$!; wait_or_die "$s" bash -c "exit 0"; r=$?; wait_or_die "$s" bash -c "exit 3"; submit $r $?`, "0 3"},
		{`setsid server & s=$!; kill -TERM -"$s"; kill -0 $s 2>/dev/null; k=$?; wait $s; submit $k $?`, "1 143"},
		{`( : ) & c=$!; wait "$c"; submit "$c" $?`, "g1 0"},
		// a daemon the sandbox does not evaluate is running (kimik3
		// scripts: mooncake_master … &, sleep 2, kill -0)
		{`mystery-daemon --port 1 > log 2>&1 & d=$!; sleep 2; kill -0 "$d"; k=$?; kill "$d"; kill -0 "$d" 2>/dev/null; submit $k $?`, "0 1"},
		{`server & s=$!; ( : ) & c=$!; submit "$s" "$c"`, "20001 g1"},
	} {
		checkSubmit(t, tc.src, tc.want, Config{Commands: cmds, IsServer: isServer})
	}
	for _, tc := range []struct{ src, want string }{
		// a running server never ends
		{`server & s=$!; wait $s; submit`, "wait 20001: the job is a server"},
		// a job that ran a command the sandbox does not evaluate
		{`bash -c "mystery --x" & p=$!; wait $p; submit $?`, "wait 20001: the job's status depends on mystery --x"},
		// forms outside the model
		{`server & p=$!; kill -0 -- -$p; submit $?`, "-20001 is not a background job the sandbox models"},
		{`server & p=$!; kill %1; submit $?`, "%1 is not a background job"},
		{`false & p=$!; ( exit 3 ) & wait $p $!; submit $?`, "with a background job the sandbox models is not modelled"},
		{`false & p=$!; wait -n $p; submit $?`, "wait -n 20001: -n with a background job"},
		// the group of a job setsid did not start is the script's
		{`server & s=$!; g=$(ps -o pgid= -p $s); submit "$g"`, "process group of background job 20001"},
	} {
		run, err := runSrc("j.sh", tc.src+"\n", Config{Commands: cmds, IsServer: isServer})
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if run.End != nil || run.Stop == nil || !strings.Contains(run.Stop.Msg, tc.want) {
			t.Errorf("%s: end %v, stop %v; want Unsupported %q", tc.src, run.End, run.Stop, tc.want)
		}
	}
}
