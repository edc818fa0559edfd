package shellutil

import (
	"fmt"
	"strconv"
	"strings"
)

// This file answers the GPU probes from Facts, for the idle machine (no
// GPU process, no GPU memory in use, 0 % utilization). A probe is "command
// not found" (status 127) on the other vendor's machine. Sensor readings
// (power, temperature, clocks), identities (serials, bus ids, driver and
// firmware versions) and the tools' free-form status tables are not
// documented and are refused.

// notInstalled answers a probe of the other vendor: the shell's status
// 127 and its message.
func (c *call) notInstalled() (int, error) {
	c.errb.WriteString(c.name + ": command not found\n")
	return 127, nil
}

// nvidiaField is one --query-gpu field this package answers: its header
// (canonical name plus unit) and value for GPU i, with and without unit.
type nvidiaField struct {
	header string
	value  func(f Facts, i int) (withUnit, bare string, err error)
}

var nvidiaGPUFields = map[string]nvidiaField{
	"index": {"index", func(f Facts, i int) (string, string, error) {
		s := strconv.Itoa(i)
		return s, s, nil
	}},
	"count": {"count", func(f Facts, i int) (string, string, error) {
		s := strconv.Itoa(f.GPUCount)
		return s, s, nil
	}},
	"name": {"name", func(f Facts, i int) (string, string, error) {
		if f.GPUName == "" {
			return "", "", unsup("GPU name of %s is not documented", f.SKU)
		}
		return f.GPUName, f.GPUName, nil
	}},
	"memory.total": {"memory.total [MiB]", func(f Facts, i int) (string, string, error) {
		if f.GPUMemMiB <= 0 {
			return "", "", unsup("memory.total of %s is not documented", f.SKU)
		}
		s := strconv.Itoa(f.GPUMemMiB)
		return s + " MiB", s, nil
	}},
	"memory.used": {"memory.used [MiB]", func(f Facts, i int) (string, string, error) {
		return "0 MiB", "0", nil
	}},
	"utilization.gpu": {"utilization.gpu [%]", func(f Facts, i int) (string, string, error) {
		return "0 %", "0", nil
	}},
	"utilization.memory": {"utilization.memory [%]", func(f Facts, i int) (string, string, error) {
		return "0 %", "0", nil
	}},
}

// syntheticUUID is the placeholder UUID `nvidia-smi -L` shows for GPU i:
// real UUIDs are per-device and undocumented; no script compares them.
func syntheticUUID(i int) string {
	return fmt.Sprintf("GPU-00000000-0000-0000-0000-%012d", i)
}

// runNvidiaSmi answers `nvidia-smi -L` / `--list-gpus` and one-shot
// `--query-gpu=FIELDS --format=csv[,noheader][,nounits]` (optionally
// `-i IDS`) for index, count, name, memory.total, memory.used,
// utilization.gpu and utilization.memory, and `--query-compute-apps=…
// --format=csv,noheader` (empty: nothing runs).
func runNvidiaSmi(c *call) (int, error) {
	switch c.facts.Vendor {
	case "amd":
		return c.notInstalled()
	case "nvidia":
	default:
		return 0, unsup("vendor of this machine is not known")
	}
	f := c.facts
	if f.GPUCount <= 0 {
		return 0, unsup("GPU count not documented")
	}
	var query, format, ids string
	listGPUs := false
	queryApps := false
	args := c.args
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", unsup("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "-L", "--list-gpus":
			listGPUs = true
		case "--query-gpu":
			query, err = next()
		case "--query-compute-apps":
			queryApps = true
			query, err = next()
		case "--format":
			format, err = next()
		case "-i", "--id":
			ids, err = next()
		default:
			return 0, unsup("nvidia-smi %s (live readings or tables are not documented)", a)
		}
		if err != nil {
			return 0, err
		}
	}
	gpus := make([]int, 0, f.GPUCount)
	if ids != "" {
		for _, s := range strings.Split(ids, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return 0, unsup("GPU id %q (only indexes are documented)", s)
			}
			if n < 0 || n >= f.GPUCount {
				c.errb.WriteString("No devices were found\n")
				return 6, nil
			}
			gpus = append(gpus, n)
		}
	} else {
		for i := 0; i < f.GPUCount; i++ {
			gpus = append(gpus, i)
		}
	}
	switch {
	case listGPUs:
		if query != "" || format != "" {
			return 0, unsup("-L combined with a query")
		}
		if f.GPUName == "" {
			return 0, unsup("GPU name of %s is not documented", f.SKU)
		}
		for _, i := range gpus {
			c.out.WriteString(fmt.Sprintf("GPU %d: %s (UUID: %s)\n", i, f.GPUName, syntheticUUID(i)))
		}
		return 0, nil
	case query == "":
		return 0, unsup("nvidia-smi %s (live readings or tables are not documented)", strings.Join(args, " "))
	}
	header, units := true, true
	for _, opt := range strings.Split(format, ",") {
		switch strings.TrimSpace(opt) {
		case "csv":
		case "noheader":
			header = false
		case "nounits":
			units = false
		default:
			return 0, unsup("--format=%s", format)
		}
	}
	if !strings.Contains(format, "csv") {
		return 0, unsup("--query-* without --format=csv")
	}
	fields := strings.Split(query, ",")
	if queryApps {
		for _, fl := range fields {
			switch strings.TrimSpace(fl) {
			case "pid", "process_name", "used_memory", "used_gpu_memory", "gpu_uuid", "gpu_bus_id", "gpu_name":
			default:
				return 0, unsup("--query-compute-apps field %q", fl)
			}
		}
		if header {
			return 0, unsup("--query-compute-apps header layout is not documented")
		}
		return 0, nil
	}
	var rowsHeader []string
	for _, fl := range fields {
		nf, ok := nvidiaGPUFields[strings.TrimSpace(fl)]
		if !ok {
			return 0, unsup("--query-gpu field %q (not documented)", fl)
		}
		rowsHeader = append(rowsHeader, nf.header)
	}
	if header {
		c.out.WriteString(strings.Join(rowsHeader, ", ") + "\n")
	}
	for _, i := range gpus {
		var vals []string
		for _, fl := range fields {
			withUnit, bare, err := nvidiaGPUFields[strings.TrimSpace(fl)].value(f, i)
			if err != nil {
				return 0, err
			}
			if units {
				vals = append(vals, withUnit)
			} else {
				vals = append(vals, bare)
			}
		}
		c.out.WriteString(strings.Join(vals, ", ") + "\n")
	}
	return 0, nil
}

// rocmSpacer is rocm_smi.py's printLogSpacer: name centred in '='
// (appWidth 90; an odd-length name gets one '=' appended first).
func rocmSpacer(name string) string {
	const width = 90
	if name == "" {
		return strings.Repeat("=", width)
	}
	if len(name)%2 == 1 {
		name += "="
	}
	side := strings.Repeat("=", (width-len(name))/2)
	return side + name + side
}

// runRocmSmi answers `rocm-smi --showmemuse` for the idle machine, in
// rocm_smi.py's layout (ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py
// showMemUse: per GPU "GPU Memory Allocated (VRAM%)" 0 — the line scripts
// grep — then Read/Write Activity 0, Memory Activity N/A and Avg. Memory
// Bandwidth 0, whose presence depends on the ASIC), and `rocm-smi
// --showfw` only when Facts.MECFirmware is set (then the MEC and MEC2
// lines only; MECNotShown: the table's frame without them).
func runRocmSmi(c *call) (int, error) {
	switch c.facts.Vendor {
	case "nvidia":
		return c.notInstalled()
	case "amd":
	default:
		return 0, unsup("vendor of this machine is not known")
	}
	f := c.facts
	if len(c.args) != 1 {
		return 0, unsup("rocm-smi %s (live readings or tables are not documented)", strings.Join(c.args, " "))
	}
	var body []string
	switch c.args[0] {
	case "--showmemuse":
		body = append(body, rocmSpacer(" Current Memory Use "))
		for i := 0; i < f.GPUCount; i++ {
			g := fmt.Sprintf("GPU[%d]\t\t: ", i)
			body = append(body,
				g+"GPU Memory Allocated (VRAM%): 0",
				g+"GPU Memory Read/Write Activity (%): 0",
				g+"Memory Activity: N/A",
				g+"Avg. Memory Bandwidth: 0")
		}
	case "--showfw":
		if f.MECFirmware == 0 || f.MECFirmware < MECNotShown {
			return 0, unsup("MEC firmware version of %s is not documented", f.SKU)
		}
		body = append(body, rocmSpacer(" Firmware Information "))
		for i := 0; i < f.GPUCount && f.MECFirmware != MECNotShown; i++ {
			g := fmt.Sprintf("GPU[%d]\t\t: ", i)
			body = append(body,
				g+"MEC firmware version: \t"+strconv.Itoa(f.MECFirmware),
				g+"MEC2 firmware version: \t"+strconv.Itoa(f.MECFirmware))
		}
	default:
		return 0, unsup("rocm-smi %s (live readings or tables are not documented)", c.args[0])
	}
	if f.GPUCount <= 0 {
		return 0, unsup("GPU count not documented")
	}
	var b strings.Builder
	b.WriteString("\n\n")
	b.WriteString(rocmSpacer(" ROCm System Management Interface ") + "\n")
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	b.WriteString(rocmSpacer("") + "\n")
	b.WriteString(rocmSpacer(" End of ROCm SMI Log ") + "\n")
	c.out.WriteString(b.String())
	return 0, nil
}

// runAmdSmi answers only "not installed" on NVIDIA machines: every
// amd-smi view the scripts use (metric, static, the default table) prints
// sensor readings or identities that are not documented.
func runAmdSmi(c *call) (int, error) {
	if c.facts.Vendor == "nvidia" {
		return c.notInstalled()
	}
	return 0, unsup("amd-smi %s (live readings and identities are not documented)", strings.Join(c.args, " "))
}
