package batchgc

import "strings"

// STWSetting is the runtime setting the CLI runs under (RestartWithSTW):
// gcstoptheworld=1 makes every collection stop the world (the runtime
// package's GODEBUG documentation) — its mark runs on every CPU while
// the run's goroutines wait, instead of beside them on a quarter of the
// CPUs. A batch run wants throughput, not short pauses: nothing runs
// during a mark, so the collector needs no runway (it starts at the heap
// goal, not before it), the goroutines run without write barriers or
// mark assists, and nothing they allocate during a mark is kept for it.
// Issue 24's main job (complete trees of ../shared, every source, 2
// cores, the default resident-memory budget, empty cache), ten paired
// runs in a slow hour of the machine: 9.34 s against 10.59 s on average,
// every pair faster (6–15%); 45 collections after the restart instead of
// 54–55, their mark CPU 1.6–1.8 s instead of 2.1–2.4 s; peak RSS
// 232,472–235,508 KiB (the budget: 244,140). The output is the same:
// the collector decides when memory is reused, never what a run
// computes. The restart costs a second start of the program: about 14 ms
// (`--help` 33 ms against 19 ms).
const STWSetting = "gcstoptheworld=1"

// stwEnviron is environ (NAME=value entries, os.Environ's shape) with
// STWSetting added to GODEBUG (its first entry, the one the runtime
// reads; created when there is none), and true; or environ and false
// when GODEBUG already names gcstoptheworld (with any value: the user's
// choice stands, and a restarted process does not restart again).
func stwEnviron(environ []string) ([]string, bool) {
	at, godebug := -1, ""
	for i, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			at, godebug = i, v
			break
		}
	}
	for setting := range strings.SplitSeq(godebug, ",") {
		if k, _, _ := strings.Cut(setting, "="); k == "gcstoptheworld" {
			return environ, false
		}
	}
	if godebug != "" {
		godebug += ","
	}
	out := append([]string(nil), environ...)
	if at < 0 {
		return append(out, "GODEBUG="+STWSetting), true
	}
	out[at] = "GODEBUG=" + godebug + STWSetting
	return out, true
}
