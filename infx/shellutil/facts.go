package shellutil

import (
	"fmt"
	"strings"
	"time"
)

// Facts describes the machine a benchmark point runs on, as the hardware
// probes and host utilities answer for it. The machine is modelled idle
// and clean — the state every InferenceX script waits for before it
// launches a server: no GPU process, no GPU memory in use, 0 % GPU
// utilization, no host memory in use.
//
// A zero field means "not documented": a probe whose answer depends on it
// is refused (handled=false) rather than guessed.
type Facts struct {
	// SKU is the runner SKU, e.g. "b200", "mi355x" (see FactsFor).
	SKU string
	// Cluster is the configs/runners.yaml `hardware:` key (without the
	// "cluster:" prefix) the host facts come from, e.g. "b200-dgxc";
	// empty when only the SKU is known.
	Cluster string
	// Vendor is "nvidia" or "amd": which probes are installed.
	Vendor string
	// GPUName is the product name exactly as `nvidia-smi
	// --query-gpu=name` prints it (NVML's name); empty when not
	// documented.
	GPUName string
	// GPUCount is the number of GPUs one node (one compute tray for
	// GB200 / GB300) exposes: runners.yaml `gpus-per-node`.
	GPUCount int
	// GPUMemMiB is the per-GPU memory total in MiB exactly as `nvidia-smi
	// --query-gpu=memory.total` reports it (slightly below the nominal
	// size); 0 when not documented.
	GPUMemMiB int
	// GPUMemGB is the nominal per-GPU memory in GB from the vendor spec
	// sheet (as tabulated in vllm-project/recipes taxonomy.yaml
	// hardware_profiles). Informational: no probe prints it.
	GPUMemGB int
	// CPUs is the number of logical CPUs `nproc` prints inside the
	// benchmark container; 0 when not documented.
	CPUs int
	// HostMemKiB is the host DRAM in KiB that `free` and /proc/meminfo
	// report as total: runners.yaml `available-cpu-dram-mib` × 1024; 0
	// when not documented (a SKU whose clusters differ).
	HostMemKiB int64
	// WorkspaceFS is the filesystem type `findmnt -o FSTYPE` prints for
	// the runner's GITHUB_WORKSPACE; "" when not documented. gb200:
	// "lustre" (InferenceX runners/launch_gb200-nv.sh: "Current Watchtower
	// runners keep GITHUB_WORKSPACE on Lustre").
	WorkspaceFS string
	// Hostname is what `hostname` prints.
	Hostname string
	// Now is the instant `date` reports; the zero value means
	// DefaultNow().
	// The clock does not advance by itself: a caller that models `sleep`
	// should advance it, or a script polling `date +%s` against a deadline
	// never reaches it.
	Now time.Time
	// MECFirmware is the AMD MEC firmware version `rocm-smi --showfw`
	// prints (scripts export HSA_NO_SCRATCH_RECLAIM=1 below 177); 0 when
	// not documented, which is the case for every SKU in the table: the
	// fleet's firmware is not published.
	MECFirmware int
	// ShmAvailKiB is the space `df` reports available on /dev/shm, in
	// KiB; 0 when not documented, which is the case for every runner in
	// the table (the container's --shm-size is not published).
	// ShmNotShown: df prints nothing for /dev/shm (a FactChoice answer).
	ShmAvailKiB int64
	// NICQoS says whether nicctl (AMD Pollara NICs) is installed and
	// which QoS it reports: 0 when not documented, which is the case for
	// every runner in the table; NICNone: not installed; K ≥ 1:
	// NICQoSProfiles[K-1] (a FactChoice answer, nicctl.go).
	NICQoS int
}

// Sentinels of the facts a FactChoice answer sets that a probe then
// answers without the line or value (the fact is absent on that machine).
const (
	// MECNotShown as Facts.MECFirmware: `rocm-smi --showfw` prints its
	// firmware table without a MEC line.
	MECNotShown = -1
	// ShmNotShown as Facts.ShmAvailKiB: `df` prints nothing for
	// /dev/shm and fails (no such mount).
	ShmNotShown = -1
)

// DefaultNowUnix is the fixed instant `date` reports when Facts.Now is
// zero, in seconds since the Unix epoch: 2026-01-01T00:00:00Z, a
// Thursday (TZ=UTC).
const DefaultNowUnix = 1767225600

// DefaultNow returns DefaultNowUnix as a UTC time.
func DefaultNow() time.Time { return time.Unix(DefaultNowUnix, 0).UTC() }

// DefaultHostname is the fixed name FactsFor gives every machine: the
// sandbox has no real host, and a made-up site name would look real in a
// recorded command.
const DefaultHostname = "infx-sandbox"

// now returns the instant date reports.
func (f Facts) now() time.Time {
	if f.Now.IsZero() {
		return DefaultNow()
	}
	return f.Now.UTC()
}

// skuFacts is the documented per-SKU table. Sources:
//   - GPUCount: InferenceX configs/runners.yaml `hardware:` gpus-per-node
//     (checkout 843c6254): 8 everywhere, 4 for the GB200 / GB300 trays.
//   - GPUName: NVML product names. "NVIDIA H100 80GB HBM3" and "NVIDIA
//     H200" are the names torch.cuda.get_device_name() returns (ModelTC
//     lightllm kernel configs device_name=NVIDIA_H100_80GB_HBM3 /
//     NVIDIA_H200); "NVIDIA B200" from flashinfer's tuning tests; "NVIDIA
//     GB200" from the DCGM exporter samples and srt-slurm fingerprint
//     fixtures in the shared corpus. The B300, GB300, RTX PRO 6000 and AMD
//     names are left empty: no stored capture of the tools shows them.
//   - GPUMemMiB: srt-slurm tests/test_fingerprint.py fixtures (nvidia-smi
//     captures): 81559 MiB (H100 80GB), 189471 MiB (GB200). Others 0.
//   - GPUMemGB: vllm-project/recipes taxonomy.yaml hardware_profiles
//     (vram_gb / gpu_count), which follows the InferenceX GPU spec table.
//
// It is never written after initialization.
var skuFacts = map[string]Facts{
	"h100":       {Vendor: "nvidia", GPUName: "NVIDIA H100 80GB HBM3", GPUCount: 8, GPUMemMiB: 81559, GPUMemGB: 80},
	"h200":       {Vendor: "nvidia", GPUName: "NVIDIA H200", GPUCount: 8, GPUMemGB: 141},
	"b200":       {Vendor: "nvidia", GPUName: "NVIDIA B200", GPUCount: 8, GPUMemGB: 180},
	"b300":       {Vendor: "nvidia", GPUCount: 8, GPUMemGB: 268},
	"gb200":      {Vendor: "nvidia", GPUName: "NVIDIA GB200", GPUCount: 4, GPUMemMiB: 189471, GPUMemGB: 192, WorkspaceFS: "lustre"},
	"gb300":      {Vendor: "nvidia", GPUCount: 4, GPUMemGB: 288},
	"rtx6000pro": {Vendor: "nvidia", GPUCount: 8, GPUMemGB: 96},
	"mi300x":     {Vendor: "amd", GPUCount: 8, GPUMemGB: 192},
	"mi325x":     {Vendor: "amd", GPUCount: 8, GPUMemGB: 256},
	"mi355x":     {Vendor: "amd", GPUCount: 8, GPUMemGB: 288},
}

// clusterDRAMMiB is configs/runners.yaml `hardware:` available-cpu-dram-mib
// per cluster key (checkout 843c6254), keyed without "cluster:". It is
// never written after initialization.
var clusterDRAMMiB = map[string]int64{
	"h100-dgxc":      2_063_837,
	"h100-cw":        1_998_848,
	"h200-dgxc":      1_471_356,
	"h200-cw":        1_998_848,
	"h200-nb":        1_472_512,
	"b200-dgxc":      3_095_781,
	"b200-nscale":    2_063_920,
	"b300-nv":        2_964_436,
	"gb200-nv":       860_160,
	"gb300-nv":       860_160,
	"rtx6000pro-lat": 1_500_000,
	"mi300x-amds":    2_321_924,
	"mi300x-tw":      2_322_328,
	"mi325x-amds":    3_091_589,
	"mi355x-amds":    3_095_781,
}

// FactsFor returns the documented facts of a runner: a SKU ("b200",
// "b300", "h100", "h200", "gb200", "gb300", "mi300x", "mi325x", "mi355x",
// "rtx6000pro") or a runners.yaml hardware cluster key ("cluster:b200-dgxc"
// or "b200-dgxc"). A SKU alone carries host memory only when all its
// clusters agree (b300, gb200, gb300, rtx6000pro, mi325x, mi355x). ok is
// false for an unknown name.
func FactsFor(runner string) (Facts, bool) {
	key := strings.ToLower(strings.TrimPrefix(runner, "cluster:"))
	if f, ok := skuFacts[key]; ok {
		f.SKU = key
		f.Hostname = DefaultHostname
		var mem int64
		n := 0
		for c, m := range clusterDRAMMiB {
			if skuOf(c) == key {
				if n > 0 && m != mem {
					mem = -1
				}
				if mem != -1 {
					mem = m
				}
				n++
			}
		}
		if n > 0 && mem > 0 {
			f.HostMemKiB = mem * 1024
		}
		if n == 1 {
			for c := range clusterDRAMMiB {
				if skuOf(c) == key {
					f.Cluster = c
				}
			}
		}
		return f, true
	}
	mem, ok := clusterDRAMMiB[key]
	if !ok {
		return Facts{}, false
	}
	f, ok := skuFacts[skuOf(key)]
	if !ok {
		return Facts{}, false
	}
	f.SKU = skuOf(key)
	f.Cluster = key
	f.Hostname = DefaultHostname
	f.HostMemKiB = mem * 1024
	return f, true
}

// skuOf returns the SKU part of a cluster key ("b200-dgxc" → "b200").
func skuOf(cluster string) string {
	sku, _, _ := strings.Cut(cluster, "-")
	return sku
}

// Installed reports whether command name is installed on the machine, for
// the vendor-specific probes: nvidia-smi only on NVIDIA machines, rocm-smi
// and amd-smi only on AMD machines, nicctl as Facts.NICQoS says. known is
// false for any other name (or an unknown vendor, or NICQoS 0): Installed
// says nothing about it, and a command this package evaluates that
// NeedsFact names is not installed by that alone. A caller answers
// `command -v NAME` / `which NAME` with it.
func Installed(name string, f Facts) (installed, known bool) {
	switch name {
	case "nvidia-smi":
		switch f.Vendor {
		case "nvidia":
			return true, true
		case "amd":
			return false, true
		}
	case "nicctl":
		switch {
		case f.NICQoS == NICNone:
			return false, true
		case f.NICQoS > 0:
			return true, true
		}
	case "rocm-smi", "amd-smi":
		switch f.Vendor {
		case "amd":
			return true, true
		case "nvidia":
			return false, true
		}
	}
	return false, false
}

// Meminfo returns a /proc/meminfo for the idle machine: MemTotal from
// HostMemKiB, MemFree and MemAvailable equal to it, no swap. ok is false
// when HostMemKiB is not documented. Only these lines are given: a script
// reading any other /proc/meminfo field finds nothing.
func (f Facts) Meminfo() ([]byte, bool) {
	if f.HostMemKiB <= 0 {
		return nil, false
	}
	var b strings.Builder
	for _, kv := range []struct {
		k string
		v int64
	}{{"MemTotal", f.HostMemKiB}, {"MemFree", f.HostMemKiB}, {"MemAvailable", f.HostMemKiB}, {"SwapTotal", 0}, {"SwapFree", 0}} {
		// fs/proc/meminfo.c: a 16-column label, the value in at least 8.
		fmt.Fprintf(&b, "%-16s%8d kB\n", kv.k+":", kv.v)
	}
	return []byte(b.String()), true
}

// NeedsFact reports whether whether command name is installed is a
// machine fact (Installed): nicctl. The package's table evaluating it
// does not make it installed.
func NeedsFact(name string) bool { return name == "nicctl" }
