package recipes

import (
	"regexp"
	"sort"
	"strings"
)

// gpuToken matches the GPU words the legacy guides use in headings, tab
// labels and <summary> text ("8xH200", "MI300x/MI325x", "8× B200", "GB200
// NVL4", "TPU v6e", "DGX Spark"), and the vendor / platform sub-headings
// ("#### NVIDIA", "### AMD (ROCm)", "— CUDA", "CPU") that carry hardware
// context without naming a part. Source of the conventions:
// vllm-project/recipes legacy <Vendor>/<Model>.md (spec §3).
var gpuToken = regexp.MustCompile(`(?i)\b(?:[0-9]+\s*[x×]\s*)?(GB200|GB300|GB10|B200|B300|H100|H200|H20|H800|H800|A100|A10G?|L40S?|L20|RTX\s*PRO\s*[0-9]{4}|RTX\s*[0-9]{4}|MI300X?|MI308X?|MI325X?|MI350X?|MI355X?|MI3[0-9]{2}X?|MI3xx|TPU(?:\s*v[0-9]+[a-z]*)?|Trillium|Ironwood|Xeon(?:\s*[0-9])?|Arc\s*Pro\s*B[0-9]{2}|Ascend(?:\s*[0-9]+[A-Z]*)?|Gaudi[0-9]?|DGX\s*Spark|DGX\s*Station|Jetson(?:\s*Thor)?|Hopper|Blackwell|Grace|NVIDIA|AMD|ROCm|CUDA|Intel|Huawei|CPU|XPU|NPU)\b`)

// hwAlias maps a normalised GPU word (upper case, no spaces) to taxonomy
// ids (taxonomy.yaml hardware_profiles). Words without an id (A100, L40S,
// Hopper) still count as hardware context.
var hwAlias = map[string][]string{
	"H100": {"h100"}, "H200": {"h200"}, "B200": {"b200"}, "B300": {"b300"},
	"GB200": {"gb200"}, "GB300": {"gb300"}, "GB10": {"dgx_spark_gb10"},
	"MI300X": {"mi300x"}, "MI300": {"mi300x"}, "MI325X": {"mi325x"}, "MI325": {"mi325x"},
	"MI355X": {"mi355x"}, "MI355": {"mi355x"}, "MI3XX": {"mi300x", "mi325x", "mi355x"},
	"TRILLIUM": {"trillium"}, "TPUV6E": {"trillium"}, "TPUV6": {"trillium"},
	"IRONWOOD": {"ironwood"}, "TPUV7": {"ironwood"},
	"XEON6": {"xeon6"}, "XEON5": {"xeon5"},
	"ARCPROB60": {"arc_pro_b60"}, "ARCPROB70": {"arc_pro_b70"},
	"ASCEND950PR": {"ascend_950pr"},
	"DGXSPARK":    {"dgx_spark_gb10"}, "DGXSTATION": {"dgx_station_gb300"},
	"RTXPRO6000": {"rtx_pro_6000"}, "RTXPRO5000": {"rtx_pro_5000"},
	"RTX5090": {"rtx_5090"}, "RTX4090": {"rtx_4090_2x"},
}

// HardwareWords returns the GPU words found in text, in order, without
// duplicates (e.g. "8xH200 / 8xMI300X (FP8)" → ["H200", "MI300X"]).
func HardwareWords(text string) []string {
	if !mayHoldGPUWord(text) {
		return nil
	}
	return gpuTokenWords(text)
}

// gpuTokenWords is HardwareWords by gpuToken alone (no prefilter).
func gpuTokenWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range gpuToken.FindAllStringSubmatch(text, -1) {
		w := strings.ToUpper(strings.Join(strings.Fields(m[1]), ""))
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// gpuAnchors are lower-case ASCII strings one of which every word of
// gpuToken's alternation holds in any case ("b2" in GB200 and B200, "mi3"
// in every MI3…, "rtx", "dgx", …) (immutable).
var gpuAnchors = []string{"b1", "b2", "b3", "h1", "h2", "h8", "a1", "l4", "l2", "rtx", "mi3", "tpu", "trillium", "ironwood", "xeon", "arc",
	"ascend", "gaudi", "dgx", "jetson", "hopper", "blackwell", "grace", "nvidia", "amd", "rocm", "cuda", "intel", "huawei", "cpu", "xpu", "npu"}

// mayHoldGPUWord reports whether gpuToken can match text: false for an
// ASCII text without any of gpuAnchors in any case (most of the legacy
// guides' heading contexts: the regexp, run on each, was 1.5% of a
// coverage run's instructions). A text with a byte over 0x7F is always
// tried (the regexp's case folding reaches past ASCII: "ſ" is an "s").
func mayHoldGPUWord(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return true
		}
	}
	low := strings.ToLower(text)
	for _, a := range gpuAnchors {
		if strings.Contains(low, a) {
			return true
		}
	}
	return false
}

// HardwareIDs maps the GPU words of text to taxonomy ids, in order of first
// mention, without duplicates. A word with a GPU count that does not match
// the tray size is still mapped (GB200/GB300 are 4-GPU trays in the
// taxonomy; "8xGB200" is two trays).
func HardwareIDs(text string) []string { return wordIDs(HardwareWords(text)) }

// wordIDs maps GPU words (HardwareWords) to taxonomy ids, in order, without
// duplicates (HardwareIDs).
func wordIDs(words []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		for _, id := range hwAlias[w] {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// NormalizeHardware maps an InferenceX or free-text hardware name ("b200",
// "B200-NVL", "gb200-nvl72", "mi355x", "h200-dgx") to a taxonomy id, or "".
func NormalizeHardware(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "cluster:")
	for _, sep := range []string{"-", "_", " "} {
		if i := strings.Index(n, sep); i > 0 {
			head := n[:i]
			if id := NormalizeHardware(head); id != "" && !strings.HasPrefix(n, "rtx") && !strings.HasPrefix(n, "dgx") && !strings.HasPrefix(n, "arc") {
				return id
			}
		}
	}
	ids := HardwareIDs(n)
	if len(ids) > 0 {
		return ids[0]
	}
	known := []string{"h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x", "trillium", "ironwood", "xeon6", "xeon5"}
	sort.Strings(known)
	for _, k := range known {
		if n == k {
			return k
		}
	}
	return ""
}
