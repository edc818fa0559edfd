package recipes

import (
	"regexp"
	"slices"
	"strings"
)

// gfxRe matches the AMD ISA names guides use for a GPU family ("For
// gfx950:", "MI300X/MI325X (gfx942)").
var graceRe = regexp.MustCompile(`(?i)\bgrace[- ](?:blackwell|hopper)\b`)

var gfxRe = regexp.MustCompile(`(?i)\bgfx(94[02]|950)\b`)

// gfxIDs maps an AMD ISA to taxonomy ids (gfx942: MI300X and MI325X, CDNA3;
// gfx950: MI350X and MI355X, CDNA4 — MI350X has no taxonomy profile; AMD
// ROCm documentation, "GPU hardware specifications").
var gfxIDs = map[string][]string{"940": {"mi300x"}, "942": {"mi300x", "mi325x"}, "950": {"mi355x"}}

// ProseHardware returns the taxonomy ids text names, for prose statements
// (package prose): "Grace-Blackwell" read as GB200/GB300, then GPU words (HardwareIDs), then GPU generations
// (GenerationIDs), then AMD ISA names (gfx942, gfx950), in that order,
// without duplicates.
func ProseHardware(text string) []string {
	// "Grace-Blackwell" / "Grace Blackwell" are the GB200 / GB300 trays,
	// not every Blackwell part; "Grace Hopper" (GH200) has no id
	text = graceRe.ReplaceAllStringFunc(text, func(m string) string {
		if strings.Contains(strings.ToLower(m), "blackwell") {
			return "GB200/GB300"
		}
		return "GH200"
	})
	out := HardwareIDs(text)
	for _, id := range GenerationIDs(text) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, m := range gfxRe.FindAllStringSubmatch(text, -1) {
		for _, id := range gfxIDs[strings.ToLower(m[1])] {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}
