// Package batchgc sets the Go collector for a short batch run: the CLI
// (cmd/cookbook-sync main: RestartWithSTW, Tune, then FollowBudget) and
// the test binaries of the packages that run the main job (their
// TestMain: Main) use it.
package batchgc

import (
	"os"
	"runtime/debug"
)

// A coverage run allocates tens of GB over a live heap of a few hundred MB
// (shell interpretation: each command a script starts copies its
// environment), and with Go's default (GOGC=100) a quarter to a third of
// its CPU went to the collector. Percent trades memory for that: on the
// complete trees of ../shared, every source, 2 cores, user CPU 183 s → 121 s
// at 400 with the same report (peak RSS 1.06 → 2.17 GB); MemoryLimit
// (bytes) is a soft ceiling under which the collector runs more often
// instead of growing further. With the run's live heap at 400–500 MB at
// its peaks (the report and its renderings, the page part's values), 1 GiB
// costs no wall time against 1.5 GiB (the CPU the collector adds, the
// kernel saves in page faults: user+sys 22–24 s either way, three paired
// runs, complete trees, every source, 2 cores) for a third less memory
// (peak RSS 1.60 → 1.07 GB); 768 MiB added 5–10% CPU, 512 MiB doubled it.
// Once the run kept less (issue 24: a key's renderings and launcher runs
// dropped once it is judged, smaller vLLM index entries; live heap peak
// 445 → 299 MB), 640 MiB costs no wall time against 1 GiB (main job,
// complete trees, every source, 2 cores, three paired runs each: median
// 9.5 s against 10.0 s; user CPU +0.5 s, the kernel's page faults −0.9 s)
// for a third less memory (peak RSS 1.05 → 0.68 GB); 512 MiB added
// 0.4 s of wall time (0.55 GB). With the live heap at 70–160 MB (the
// vLLM part renders its points before it indexes the recipes, the parse
// trees bounded) a lower limit still costs time, the collector marking
// the same heap more often: 448 MiB 6.09 → 6.41 s (485 MB), 320 MiB
// 7.41 s (355 MB), 256 MiB 8.0 s (290 MB), medians of three, same
// machine and report; with a live heap of 70–135 MB (fewer snippets run,
// the SGLang keys let go before the vLLM part) 5.6 s (630 MB) against
// 5.9 s at 448 MiB (469 MB), 6.2 s at 320 MiB (345 MB), 6.8 s at
// 256 MiB (282 MB). With a sourced library's parse tree shared by every
// name it is sourced by and the kept trees bounded at 1 MiB of text (live
// heap about 13 MB lower), 512 MiB costs no time against 640 MiB (main
// job, empty cache, complete trees, every source, 2 cores, four paired
// rounds: 7.17 against 7.21 s, user CPU 12.5 against 12.4 s, in a slow
// hour of the machine) for a fifth less memory (peak RSS 595–683 → 551 MB);
// 448 MiB added 0.1–0.2 s (486 MB), 384 MiB 0.35 s (421 MB). Once the
// Workspace no longer kept single-node launcher runs, batch jobs, the
// AgentX part's renderings, the vLLM part's finished queries or the page
// roles no key serves (live heap 82 → 63 MB on average at a 216 MiB
// limit), 384 MiB costs no wall time against 512 MiB (main job,
// complete trees, every source, 2 cores, interleaved pairs: `--no-cache`
// seven pairs, mean 6.22 s each; empty cache five pairs, 6.65 against
// 6.60 s; user CPU +0.15 s, two more collections) for a quarter less
// memory (peak RSS 510–553 → 415–423 MB). Near 200 MiB both the room
// the collector has and what it marks count: 20 MB of pointer-linked
// 64-byte objects kept live for the whole run added 16–19% of wall time,
// 20 MB of pointer-free bytes 1–2% (two runs each, a noisy hour), and
// 232 MiB instead of 200 MiB took 12% off (two runs each, a quiet hour;
// main job, complete trees, every source, 2 cores, empty cache). The CLI
// goes further (FollowBudget): it keeps the whole process under RSSBudget,
// a limit of about 196–212 MiB on the complete trees; MemoryLimit is the
// test binaries' limit (Main) and the CLI's where /proc is missing.
const (
	Percent     = 400
	MemoryLimit = 384 << 20
)

// Tune applies Percent and MemoryLimit unless the environment (getenv)
// sets GOGC or GOMEMLIMIT: those, when set, win.
func Tune(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}

// Main is a test binary's TestMain for packages whose tests run the
// renderers and the main job many times: Tune from the process
// environment, then m.Run, exiting with its status.
func Main(m interface{ Run() int }) {
	Tune(os.Getenv)
	os.Exit(m.Run())
}
