package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"mvdan.cc/sh/v3/syntax"
)

// runChoice runs testdata/choices/NAME with choices on, taking choices.
func runChoice(t *testing.T, name string, facts shellutil.Facts, choices ...int) *Trace {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "choices", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "benchmarks", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Name: "benchmarks/" + name, ReadRoots: []string{dir}, Dir: dir, Timeout: time.Minute, Facts: facts, Choose: true, Choices: choices}
	run, err := Run(context.Background(), Script{Path: p}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// lastArgv is the last command's argv and env.
func lastCommand(run *Trace) Command {
	if len(run.Commands) == 0 {
		return Command{}
	}
	return run.Commands[len(run.Commands)-1]
}

func mi355x(t *testing.T) shellutil.Facts {
	t.Helper()
	f, ok := shellutil.FactsFor("mi355x")
	if !ok {
		t.Fatal("no mi355x facts")
	}
	return f
}

// TestChoiceMEC: `rocm-smi --showfw` without a documented MEC firmware is
// a choice point of five answers (no MEC line, 1, 176, 177, 99999); each
// answer gives the env the script derives from it.
func TestChoiceMEC(t *testing.T) {
	f := mi355x(t)
	for k, want := range []string{"HSA_NO_SCRATCH_RECLAIM=1", "HSA_NO_SCRATCH_RECLAIM=1", "HSA_NO_SCRATCH_RECLAIM=1", "", ""} {
		run := runChoice(t, "mec.sh", f, k)
		if run.Stop != nil {
			t.Fatalf("answer %d: stop %v", k, run.Stop)
		}
		if len(run.Choices) != 1 {
			t.Fatalf("answer %d: choices %+v", k, run.Choices)
		}
		c := run.Choices[0]
		if c.Taken != k || len(c.Answers) != 5 || c.Pos.Line != 3 || !strings.Contains(c.Fact, "MEC firmware") || c.Command != "rocm-smi --showfw" {
			t.Errorf("answer %d: choice %+v", k, c)
		}
		cmd := lastCommand(run)
		if got := strings.Join(cmd.Env, " "); got != want {
			t.Errorf("answer %d (%s): env %q, want %q", k, c.Answer(), got, want)
		}
	}
	// Without Choose the probe stays unknown.
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join("testdata", "choices", "mec.sh"))
	run, err := Run(context.Background(), Script{Path: "mec.sh", Src: src}, Config{ReadRoots: []string{dir}, Facts: f})
	if err != nil || run.Stop == nil || !strings.Contains(run.Stop.Msg, "MEC firmware version of mi355x is not documented") || len(run.Choices) != 0 {
		t.Errorf("without choices: err %v, stop %v, choices %v", err, run.Stop, run.Choices)
	}
}

// TestChoiceShm: `df` of /dev/shm is a choice point: nothing, 1G, the host
// DRAM; the 1G answer stops the script at its guard (exit 1).
func TestChoiceShm(t *testing.T) {
	f := mi355x(t)
	for k, exit := range []int{0, 1, 0} {
		run := runChoice(t, "shm.sh", f, k)
		if run.Stop != nil || len(run.Choices) != 1 || run.Choices[0].Taken != k {
			t.Fatalf("answer %d: stop %v choices %+v", k, run.Stop, run.Choices)
		}
		if run.Exit != exit {
			t.Errorf("answer %d (%s): exit %d, want %d", k, run.Choices[0].Answer(), run.Exit, exit)
		}
		if exit == 1 && (run.ExitAt.Line != 8 || !strings.Contains(run.ExitMsg, "exceeds 90%")) {
			t.Errorf("answer %d: exit at %v msg %q", k, run.ExitAt, run.ExitMsg)
		}
		if exit == 0 && lastCommand(run).Argv[0] != "vllm" {
			t.Errorf("answer %d: no launch: %v", k, run.Commands)
		}
	}
	if a := runChoice(t, "shm.sh", f).Choices[0].Answers[2]; !strings.Contains(a, "3024G") {
		t.Errorf("host DRAM answer %q (mi355x: 3,095,781 MiB)", a)
	}
}

// TestChoiceImageCondition: a condition on a file of the container image
// is true or false; the patch in its body is recorded (Trace.Patches) when
// it holds.
func TestChoiceImageCondition(t *testing.T) {
	f, _ := shellutil.FactsFor("h200")
	for k, patched := range []bool{true, false} {
		run := runChoice(t, "imagecond.sh", f, k)
		if run.Stop != nil || len(run.Choices) != 1 {
			t.Fatalf("answer %d: stop %v choices %+v", k, run.Stop, run.Choices)
		}
		c := run.Choices[0]
		if c.Cond.Line != 4 || c.Pos.Line != 4 || !strings.Contains(c.Fact, "/sgl-workspace/sglang/python/sglang/srt/managers/mixin.py") || !strings.HasPrefix(c.Command, "sed -n") {
			t.Errorf("answer %d: choice %+v", k, c)
		}
		if got := len(run.Patches) == 1; got != patched {
			t.Fatalf("answer %d: patches %+v", k, run.Patches)
		}
		if patched && (run.Patches[0].Path != "/sgl-workspace/sglang/python/sglang/srt/managers/mixin.py" || run.Patches[0].At.Line != 6 || run.Patches[0].Program != "sed -i") {
			t.Errorf("patch %+v", run.Patches[0])
		}
		if lastCommand(run).Argv[0] != "python3" {
			t.Errorf("answer %d: no launch", k)
		}
	}
}

// TestChoiceHostile: a value read from the unknown file stays Unsupported
// (in the body of an unknown condition, or in a condition that keeps it);
// a condition choice in a loop of 10,000 iterations stops at the bound,
// the same on every run; a probe in that loop is asked once.
func TestChoiceHostile(t *testing.T) {
	f := mi355x(t)
	run := runChoice(t, "bodyread.sh", f, 0)
	if run.Stop == nil || run.Stop.Pos.Line != 4 || len(run.Choices) != 1 {
		t.Errorf("body read, condition true: stop %v choices %+v", run.Stop, run.Choices)
	}
	run = runChoice(t, "bodyread.sh", f, 1)
	if run.Stop != nil || strings.Join(lastCommand(run).Argv, " ") != "vllm serve m --mode default" {
		t.Errorf("body read, condition false: stop %v argv %v", run.Stop, lastCommand(run).Argv)
	}
	run = runChoice(t, "impurecond.sh", f)
	if run.Stop == nil || run.Stop.Pos.Line != 3 || len(run.Choices) != 0 {
		t.Errorf("impure condition: stop %v choices %+v", run.Stop, run.Choices)
	}
	// A probe asked again keeps its first answer (the machine does not
	// change): one choice point for the 10,000 asks.
	for k := 0; k < 5; k++ {
		run := runChoice(t, "loop.sh", f, k)
		if run.Stop != nil || len(run.Choices) != 1 || run.Choices[0].Taken != k {
			t.Errorf("loop.sh, answer %d: stop %v, choices %+v", k, run.Stop, run.Choices)
		}
	}
	for _, name := range []string{"condloop.sh"} {
		var first string
		for i := 0; i < 2; i++ {
			run := runChoice(t, name, f)
			if run.Stop == nil || !strings.Contains(run.Stop.Msg, "more than 16 choice points") || len(run.Choices) != DefaultMaxChoices+1 {
				t.Fatalf("%s: stop %v, %d choices", name, run.Stop, len(run.Choices))
			}
			if i == 0 {
				first = run.Stop.String()
			} else if run.Stop.String() != first {
				t.Errorf("%s: stop %q, then %q", name, first, run.Stop)
			}
		}
	}
}

// TestChoiceConditionShapes: which conditions are choices (markConditions).
func TestChoiceConditionShapes(t *testing.T) {
	f := mi355x(t)
	for _, c := range []struct {
		src     string
		choices int // -1: Unsupported
	}{
		{"grep -q x /opt/f && A=1\nvllm serve m --a \"$A\"\n", 1},
		{"grep -q x /opt/f || true\nvllm serve m\n", 0},
		{"while grep -q x /opt/f; do break; done\nvllm serve m\n", 1},
		{"if [ \"$(head -n1 /opt/f)\" = x ]; then A=1; fi\nvllm serve m --a \"$A\"\n", 1},
		{"if grep x /opt/f; then :; fi\nvllm serve m\n", -1},                                       // prints what it read
		{"if grep -q x /opt/f > /tmp/o; then :; fi\nvllm serve m\n", -1},                           // writes a file
		{"f() { grep -q x /opt/f; }\nif f; then :; fi\nvllm serve m\n", -1},                        // a function
		{"if sed -i s/a/b/ /opt/f | grep -q x /opt/f; then :; fi\nvllm serve m\n", -1},             // sed -i
		{"if grep -q x /proc/cpuinfo; then :; fi\nvllm serve m\n", -1},                             // the runner's state
		{"if [[ $(cat /opt/f) =~ x ]]; then :; fi\nvllm serve m\n", -1},                            // sets BASH_REMATCH
		{"( while :; do sleep 1; done ) &\nif grep -q x /opt/f; then :; fi\nvllm serve m\n", -1},   // a background job runs
		{"( sleep 1 ) &\nwait\nif grep -q x /opt/f; then :; fi\nvllm serve m\n", 1},                // it ended
		{"if [[ -n \"$HOME\" ]] && grep -q x /opt/f; then A=1; fi\nvllm serve m --a \"$A\"\n", 1},  // a string test before the read
		{"if [[ -n \"$HOME\" && $HOME != / ]]; then A=1; fi\nvllm serve m --a \"$A\"\n", 0},        // reads nothing (readFree)
		{"test() { grep -q x /opt/f; }\nif test -n x; then A=1; fi\nvllm serve m --a \"$A\"\n", 1}, // test is the script's function
		{"true() { grep -q x /opt/f; }\nif true; then A=1; fi\nvllm serve m --a \"$A\"\n", 1},      // so is true
	} {
		run, _, err := runHostile(t, t.TempDir(), c.src, Config{Facts: f, Choose: true})
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		switch {
		case c.choices < 0 && run.Stop == nil:
			t.Errorf("%q: not Unsupported (choices %+v)", c.src, run.Choices)
		case c.choices >= 0 && (run.Stop != nil || len(run.Choices) != c.choices):
			t.Errorf("%q: stop %v, choices %+v; want %d", c.src, run.Stop, run.Choices, c.choices)
		}
	}
}

// TestExitTrapKeepsFirstExit: the exit of an EXIT trap's cleanup function
// is not where the script stopped (a dropped answer's note names the
// script's own exit).
func TestExitTrapKeepsFirstExit(t *testing.T) {
	run, _, err := runHostile(t, t.TempDir(), "cleanup() {\n    local rc=$?\n    exit \"$rc\"\n}\ntrap cleanup EXIT\nif true; then\n    exit 3\nfi\n", Config{})
	if err != nil || run.Stop != nil {
		t.Fatalf("err %v stop %v", err, run.Stop)
	}
	if run.Exit != 3 || run.ExitAt.Line != 7 {
		t.Errorf("exit %d at %v, want 3 at line 7", run.Exit, run.ExitAt)
	}
}

// TestChoiceMECOtherBounds: a script that compares the firmware with a
// bound other than 177, or computes with it, still sees answers that
// differ — the ends 1 and 99999 are tried — so what it derives is never
// taken as known (hostile pass: `-lt 200`, `-ge 150`, `/ 100`, `-ne`).
func TestChoiceMECOtherBounds(t *testing.T) {
	f := mi355x(t)
	for _, cond := range []string{
		`[ "$v" -lt 200 ]`, `[ "$v" -ge 150 ]`, `[ $(( v / 100 )) -eq 1 ]`, `[ "$v" -ne 176 ] && [ "$v" -ne 177 ]`,
	} {
		src := "v=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')\n[ -z \"$v\" ] && v=0\nX=no\nif " + cond + "; then X=yes; fi\nsubmit \"$X\"\n"
		seen := map[string]bool{}
		for k := 0; k < 5; k++ {
			dir := t.TempDir()
			run, err := Run(context.Background(), Script{Path: "b.sh", Src: []byte(src)}, Config{ReadRoots: []string{dir}, Dir: dir, Facts: f, Choose: true, Choices: []int{k},
				Commands: map[string]Handler{"submit": func(_ context.Context, c *Call) error { return c.End() }}})
			if err != nil || run.End == nil {
				t.Fatalf("%s answer %d: %v %v", cond, k, err, run.Stop)
			}
			seen[run.End.Argv[1]] = true
		}
		if len(seen) != 2 {
			t.Errorf("%s: the answers give %v; want both outcomes", cond, seen)
		}
	}
}

// TestChoiceNicctl: whether nicctl is installed, and the QoS it reports,
// is one choice point of three answers however often the run asks (the
// lookup, `which`, each `nicctl show`); each answer passes the pre-flight
// gate of amd_utils/helpers/rdma_check.sh's shape and gives the env that
// amd_utils/env.sh's detection derives (TC = 4 × DSCP, SL = the no-drop
// priority).
func TestChoiceNicctl(t *testing.T) {
	f := mi355x(t)
	for k, want := range []struct{ env, mount string }{
		{"", ""},
		{"MORI_RDMA_SL=3 MORI_RDMA_TC=96", "-v /usr/bin/nicctl:/usr/sbin/nicctl"},
		{"MORI_RDMA_SL=5 MORI_RDMA_TC=104", "-v /usr/bin/nicctl:/usr/sbin/nicctl"},
	} {
		run := runChoice(t, "nicctl.sh", f, k)
		if run.Stop != nil || run.Exit != 0 {
			t.Fatalf("answer %d: stop %v exit %d", k, run.Stop, run.Exit)
		}
		if len(run.Choices) != 1 || run.Choices[0].Taken != k || run.Choices[0].Pos.Line != 6 || len(run.Choices[0].Answers) != 3 {
			t.Fatalf("answer %d: choices %+v", k, run.Choices)
		}
		last := lastCommand(run)
		var env []string
		for _, e := range last.Env {
			if strings.HasPrefix(e, "MORI_") {
				env = append(env, e)
			}
		}
		if got := strings.Join(env, " "); got != want.env {
			t.Errorf("answer %d: env %q, want %q", k, got, want.env)
		}
		if got := last.Argv[len(last.Argv)-1]; got != want.mount {
			t.Errorf("answer %d: mount %q, want %q", k, got, want.mount)
		}
	}
	if got := runChoice(t, "nicctl.sh", f).Choices[0].Answers; strings.Join(got, "; ") != "nicctl is not installed; nicctl reports DSCP 24 on no-drop priority 3; nicctl reports DSCP 26 on no-drop priority 5" {
		t.Errorf("answers %q", got)
	}
	// Without choices (Config.Choose off), nicctl's presence is not
	// known: Unsupported at the first ask.
	src, err := os.ReadFile(filepath.Join("testdata", "choices", "nicctl.sh"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := Run(context.Background(), Script{Path: "nicctl.sh", Src: src}, Config{Name: "nicctl.sh", Timeout: time.Minute, Facts: f})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || run.Stop.Pos.Line != 6 || !strings.Contains(run.Stop.Msg, "whether nicctl is installed on the runner is not known") {
		t.Errorf("choices off: stop %v", run.Stop)
	}
}

// TestReadFreeConditionsUnguarded: a condition that cannot read a file
// (readFree) gets no guards — its outcome is never a choice, and the two
// handler calls of its guards ran at every evaluation — while one that
// may read, stat or compute keeps them; a test of a system file in an
// unguarded condition still stops the run at the test's own position.
func TestReadFreeConditionsUnguarded(t *testing.T) {
	for _, c := range []struct {
		cond    string
		guarded bool
	}{
		{`[[ -n "$X" ]]`, false},
		{`[[ $A == b ]] && [[ $B != c* || -z $C ]]`, false},
		{`! [[ "${X:-d}" == "${Y#p}" ]]`, false},
		{`{ [[ $A < b ]]; }`, false},
		{`[ "$A" = b ]`, true},                    // a command: it may be a function
		{`test -n "$X" || true`, true},            // the same
		{`[[ ~root == /root ]]`, true},            // ~user reads the user database
		{`[[ -f /opt/f ]]`, true},                 // a test of a file
		{`[[ $X -gt 3 ]]`, true},                  // arithmetic
		{`[[ ${X:1} == a ]]`, true},               // an arithmetic offset
		{`(( X > 1 ))`, true},                     // arithmetic
		{`[ "$(cat /opt/f)" = x ]`, true},         // a command substitution
		{`grep -q x /opt/f`, true},                // a read
		{`[[ -n $X ]] && grep -q x /opt/f`, true}, // a read after a string test
	} {
		for _, src := range []string{"if " + c.cond + "; then :; fi\n", "while " + c.cond + "; do break; done\n"} {
			f, err := syntax.NewParser().Parse(strings.NewReader(src), "x.sh")
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			markConditions(f, "x.sh")
			var b strings.Builder
			if err := syntax.NewPrinter().Print(&b, f); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), condBeginCmd); got != c.guarded {
				t.Errorf("%q: guarded %v, want %v:\n%s", src, got, c.guarded, b.String())
			}
		}
	}
	// a read after an unguarded condition is reported where it is
	// written (markFileSubsts), not at the command before the condition
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"echo a\nif [[ -n \"$HOME\" ]]; then\n  echo \"$(< /opt/foo)\"\nfi\n", 3, 11},
		{"echo a\n[[ -n \"$HOME\" ]] && echo \"x$(< /opt/foo)\"\n", 2, 30},
		{"echo a\nwhile [[ -n \"$HOME\" ]]; do v=$(< /opt/foo); break; done\n", 2, 32},
	} {
		run, _, err := runHostile(t, t.TempDir(), c.src, Config{Facts: mi355x(t), Choose: true})
		if err != nil {
			t.Fatal(err)
		}
		if run.Stop == nil || run.Stop.Pos.Line != c.line || run.Stop.Pos.Col != c.col {
			t.Errorf("%q: stop %+v, want at %d:%d", c.src, run.Stop, c.line, c.col)
		}
	}
}

// TestSeqPipeStage: a plain call of echo, printf, env or a text filter
// (seqPipePrograms), or a pipeline of them, runs before the stage it feeds
// (interp.SequentialPipes), after its position marker; not with an
// assignment, a redirection, negation or background, not when the program
// is a function of the shell, not with an option that writes a file or
// waits for more (sed -i, sort -o, tail -f), and no other command. A script
// whose echo stages feed loops and reads gives the same trace as its
// stages would.
func TestSeqPipeStage(t *testing.T) {
	for _, c := range []struct {
		src   string
		fn    bool
		first bool
	}{
		{"echo \"$x\" | grep -q y", false, true},
		{markerPrefix + "p:1:1:x.sh echo a | cat", false, true},
		{"echo a | cat", true, false},
		{"X=1 echo a | cat", false, false},
		{"echo a 2>/dev/null | cat", false, false},
		{"printf '%s\\n' a | cat", false, true},
		{"cat f | grep a", false, true},
		{"env | grep -E '^SGLANG_' | sort > /tmp/s", false, true},
		{"sed -i s/a/b/ f | cat", false, false},
		{"sed -ni s/a/b/p f | cat", false, false},
		{"sed -e s/a/b/ f | cat", false, true},
		{"sort -o out x | cat", false, false},
		{"sort -u x | cat", false, true},
		{"tail -f log | grep x", false, false},
		{"tail -n 1 log | grep x", false, true},
		{"yes | head -1", false, false},
		{"awk '{print}' f | cat", false, false},
		{"grep a f | \"$P\" x | cat", false, false},
		{"env X=1 bash run.sh | tee log", false, false},
		{"env | sort", false, true},
		{"sed \"$S\" f | cat", false, false},
		{"grep \"$G\" f | cat", false, true},
		{"{ echo a; } | cat", false, false},
		{"\"$E\" a | cat", false, false},
		{"echo \"$(cat f)\" | cat", false, false},
		{"echo <(cat f) | cat", false, false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.src), "x.sh")
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		left := f.Stmts[0].Cmd.(*syntax.BinaryCmd).X
		if got := seqPipeStage(left, func(n string) bool { return c.fn && n == "echo" }); got != c.first {
			t.Errorf("%q (echo a function: %v): first %v, want %v", c.src, c.fn, got, c.first)
		}
	}
	src := "n=0\nfor v in a b c; do\n  if echo \"$v\" | grep -q b; then n=$((n+1)); fi\n  echo \"$v$n\" | { read w; X=\"$X$w\"; }\ndone\necho() { builtin echo \"<$*>\"; }\necho q | read Q\nvllm serve m --x \"$X\" --q \"$Q\" --n \"$n\"\n"
	run, _, err := runHostile(t, t.TempDir(), src, Config{})
	if err != nil || run.Stop != nil {
		t.Fatalf("%v %v", err, run.Stop)
	}
	var argv []string
	for _, c := range run.Commands {
		if len(c.Argv) > 0 && c.Argv[0] == "vllm" {
			argv = c.Argv
		}
	}
	if got := strings.Join(argv, " "); got != "vllm serve m --x a0b1c1 --q <q> --n 1" {
		t.Errorf("server %q", got)
	}
}

// TestSeqPipeStageWaits: an echo whose words run commands stays beside
// the stage it feeds, which it may wait on (hostile pass: run first, it
// looped to the step bound). (Whether the next stage's commands are
// recorded before such an echo stops the run is the stages' race, as in
// bash: seqPipeStage keeps it, TestSeqPipeStage checks the choice.)
func TestSeqPipeStageWaits(t *testing.T) {
	run, _, err := runHostile(t, t.TempDir(), "echo 0 > flag\necho \"$(while [ \"$(cat flag)\" != 1 ]; do :; done; echo ok)\" | { echo 1 > flag; cat; }\nvllm serve m\n", Config{Steps: 200000})
	last := ""
	if err == nil && len(run.Commands) > 0 && len(run.Commands[len(run.Commands)-1].Argv) > 0 {
		last = run.Commands[len(run.Commands)-1].Argv[0]
	}
	if err != nil || run.Stop != nil || last != "vllm" {
		t.Errorf("a left stage waiting on the right: %v, stop %v", err, run.Stop)
	}
}
