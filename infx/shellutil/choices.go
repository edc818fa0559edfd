package shellutil

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// This file holds the probes whose answer depends on a machine fact the
// table does not document but whose possible answers are few and
// documented (FactChoice), and df of /dev/shm.

// A FactChoice is a machine fact a probe's answer depends on that Facts
// does not document, with the small documented set of its alternatives:
// a caller that can run a script once per answer (package infx/sandbox's
// choice points) evaluates the probe with Machines[i] for answer i and
// never takes one answer for the fact.
type FactChoice struct {
	// Fact names what is not known ("the MEC firmware version of mi300x").
	Fact string
	// Answers says, per alternative, what the machine answers, for a
	// reader ("the MEC firmware is 176 (below 177)").
	Answers []string
	// Machines are the facts each alternative evaluates the probe with.
	Machines []Facts
}

// MECThreshold is the MEC firmware version from which the amdgpu driver
// reclaims scratch memory, so that HSA_NO_SCRATCH_RECLAIM=1 is no longer
// needed: the one threshold AMD documents (ROCm 6.4.3 release notes,
// "AMDGPU driver updates",
// https://rocm.docs.amd.com/en/docs-6.4.3/about/release-notes.html#amdgpu-driver-updates;
// vllm-project/recipes models/moonshotai/Kimi-K2.5.yaml calls
// HSA_NO_SCRATCH_RECLAIM "firmware-conditional (MEC < 177)"). The
// alternatives of the MEC firmware fact are: rocm-smi prints no MEC line,
// MECThreshold-1 (every version below behaves alike for the scripts, which
// compare with 177) and MECThreshold (every version from it on).
const MECThreshold = 177

// MECLowest and MECHighest are the ends of the MEC firmware versions the
// choice tries besides the threshold's two sides: 1 (a version rocm-smi
// prints is positive) and 99999 (far above any version AMD has shipped).
// They are representatives, not a proof: a script that compares the
// version with two bounds between them can still hide an answer.
const (
	MECLowest  = 1
	MECHighest = 99999
)

// dockerShmKiB is docker run's default --shm-size, 64 MiB (Docker
// reference, "docker container run": --shm-size "Size of /dev/shm … If
// you omit the unit, the system uses bytes. If you omit the size
// entirely, the system uses 64m").
const dockerShmKiB = 64 * 1024

// ChoiceFor returns the FactChoice a probe's answer depends on: `rocm-smi
// --showfw` on an AMD machine whose MEC firmware is not documented
// (alternatives: no MEC line, MECLowest, MECThreshold-1, MECThreshold,
// MECHighest — the two around AMD's one documented threshold, and the two
// ends, so that a script comparing with another bound, or computing with
// the version, is seen to depend on it), and `df` of
// /dev/shm when its available space is not documented and the host DRAM
// is (alternatives: df prints nothing — /dev/shm not mounted —; docker
// run's default 64 MiB, which df -BG shows as 1G, the smallest /dev/shm a
// container gets without --shm-size; the host DRAM, the most a tmpfs can
// hold in memory — Facts.HostMemKiB, runners.yaml available-cpu-dram-mib).
// Any other /dev/shm size lies between the last two, so a script's
// comparison of it with one bound takes one of their branches. And any
// nicctl command (or the lookup of nicctl: argv ["nicctl"]) on an AMD
// machine whose NICs are not documented (Facts.NICQoS 0): nicctl not
// installed, or installed reporting one of NICQoSProfiles. ok is
// false for anything else (the probe is answered from f, or refused).
func ChoiceFor(argv []string, f Facts) (FactChoice, bool) {
	if len(argv) == 0 {
		return FactChoice{}, false
	}
	switch path.Base(argv[0]) {
	case "nicctl":
		if f.Vendor != "amd" || f.NICQoS != 0 {
			return FactChoice{}, false
		}
		return nicChoice(f), true
	case "rocm-smi":
		if f.Vendor != "amd" || f.MECFirmware != 0 || f.GPUCount <= 0 || len(argv) != 2 || argv[1] != "--showfw" {
			return FactChoice{}, false
		}
		ch := FactChoice{Fact: fmt.Sprintf("the MEC firmware version of %s (not published; %d is the threshold AMD documents)", f.SKU, MECThreshold),
			Answers: []string{
				"rocm-smi --showfw prints no MEC line",
				fmt.Sprintf("the MEC firmware is far below %d (%d)", MECThreshold, MECLowest),
				fmt.Sprintf("the MEC firmware is below %d (%d)", MECThreshold, MECThreshold-1),
				fmt.Sprintf("the MEC firmware is %d or later (%d)", MECThreshold, MECThreshold),
				fmt.Sprintf("the MEC firmware is far above %d (%d)", MECThreshold, MECHighest),
			}}
		for _, v := range []int{MECNotShown, MECLowest, MECThreshold - 1, MECThreshold, MECHighest} {
			m := f
			m.MECFirmware = v
			ch.Machines = append(ch.Machines, m)
		}
		return ch, true
	case "df":
		if f.ShmAvailKiB != 0 || f.HostMemKiB <= 0 {
			return FactChoice{}, false
		}
		shm := false
		for _, a := range argv[1:] {
			if a == "/dev/shm" || a == "/dev/shm/" {
				shm = true
			}
		}
		if !shm {
			return FactChoice{}, false
		}
		ch := FactChoice{Fact: fmt.Sprintf("the space available on /dev/shm of %s (the container's --shm-size is not published)", factsName(f)),
			Answers: []string{
				"df prints nothing for /dev/shm",
				"/dev/shm has 1G available (docker run's default --shm-size, 64 MiB)",
				fmt.Sprintf("/dev/shm has the host DRAM available (%dG, the most a tmpfs holds in memory)", ceilDiv(f.HostMemKiB, 1<<20)),
			}}
		for _, v := range []int64{ShmNotShown, dockerShmKiB, f.HostMemKiB} {
			m := f
			m.ShmAvailKiB = v
			ch.Machines = append(ch.Machines, m)
		}
		return ch, true
	}
	return FactChoice{}, false
}

// factsName is the cluster of f, else its SKU.
func factsName(f Facts) string {
	if f.Cluster != "" {
		return f.Cluster
	}
	return f.SKU
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// dfUnits are df's block-size letters (powers of 1024).
var dfUnits = map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

// runDf answers `df [-k|-m|-B UNIT|-BUNIT|--block-size=UNIT]
// --output=avail[,target] /dev/shm` from Facts.ShmAvailKiB (GNU coreutils
// df: a size is rounded up to the block size; -B with a unit letter alone
// prints it after the number; the avail column is right-aligned under
// "Avail", the target column left-aligned under "Mounted on"). The idle
// machine's /dev/shm is empty. ShmNotShown: "No such file or directory",
// status 1. Other forms (the default table, other files, other fields)
// are refused.
func runDf(c *call) (int, error) {
	f := c.facts
	block, suffix := int64(1024), ""
	var fields []string
	var ops []string
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-k":
			block, suffix = 1024, ""
		case a == "-m":
			block, suffix = 1<<20, ""
		case a == "-B" || a == "--block-size":
			if i+1 >= len(c.args) {
				return 0, unsup("%s needs a value", a)
			}
			i++
			u, ok := dfUnits[c.args[i]]
			if !ok {
				return 0, unsup("block size %q", c.args[i])
			}
			block, suffix = u, c.args[i]
		case strings.HasPrefix(a, "-B") || strings.HasPrefix(a, "--block-size="):
			v := strings.TrimPrefix(strings.TrimPrefix(a, "--block-size="), "-B")
			u, ok := dfUnits[v]
			if !ok {
				return 0, unsup("block size %q", v)
			}
			block, suffix = u, v
		case strings.HasPrefix(a, "--output="):
			fields = strings.Split(strings.TrimPrefix(a, "--output="), ",")
		case strings.HasPrefix(a, "-"):
			return 0, unsup("df %s", a)
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) != 1 || strings.TrimSuffix(ops[0], "/") != "/dev/shm" {
		return 0, unsup("df of %s (only /dev/shm is in the table)", strings.Join(ops, " "))
	}
	if len(fields) == 0 {
		return 0, unsup("df's default table (used and total sizes are not documented)")
	}
	switch {
	case f.ShmAvailKiB == ShmNotShown:
		c.errb.WriteString("df: " + ops[0] + ": No such file or directory\n")
		return 1, nil
	case f.ShmAvailKiB <= 0:
		return 0, unsup("available space of /dev/shm on %s is not documented", factsName(f))
	}
	var head, row []string
	for _, fl := range fields {
		switch fl {
		case "avail":
			v := strconv.FormatInt(ceilDiv(f.ShmAvailKiB*1024, block), 10) + suffix
			w := max(len("Avail"), len(v))
			head = append(head, fmt.Sprintf("%*s", w, "Avail"))
			row = append(row, fmt.Sprintf("%*s", w, v))
		case "target":
			w := max(len("Mounted on"), len(ops[0]))
			head = append(head, fmt.Sprintf("%-*s", w, "Mounted on"))
			row = append(row, fmt.Sprintf("%-*s", w, ops[0]))
		default:
			return 0, unsup("df --output field %q (not documented)", fl)
		}
	}
	c.out.WriteString(strings.TrimRight(strings.Join(head, " "), " ") + "\n")
	c.out.WriteString(strings.TrimRight(strings.Join(row, " "), " ") + "\n")
	return 0, nil
}
