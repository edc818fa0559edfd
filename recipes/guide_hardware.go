package recipes

import (
	"regexp"
	"slices"
	"strings"
)

// generationRe matches the GPU generation names guides use instead of a
// part ("NVFP4 on Blackwell", "Hopper/Blackwell GPUs", "CDNA3"). A
// generation preceded by "consumer" or "RTX" (sm120 desktop parts) or
// followed by "(sm12x)" names no datacenter part and is not matched.
var generationRe = regexp.MustCompile(`(?i)(consumer\s+|rtx[^,;()]*?\s)?\b(Blackwell(?:\s+Ultra)?|Hopper|Ampere|CDNA\s*-?\s*[34])\b(\s*\(?\s*sm_?12)?`)

// generationIDs maps a normalised generation name (upper case, no spaces
// or dashes) to hardware ids, from taxonomy.yaml hardware_profiles
// `generation:` (hopper: h100, h200; blackwell: b200, gb200, b300, gb300;
// "Blackwell Ultra" is the B300 generation) and AMD's CDNA naming (CDNA3:
// MI300X, MI325X; CDNA4: MI355X). Ampere maps to "a100", which has no
// taxonomy profile.
var generationIDs = map[string][]string{
	"BLACKWELL":      {"b200", "b300", "gb200", "gb300"},
	"BLACKWELLULTRA": {"b300", "gb300"},
	"HOPPER":         {"h100", "h200"},
	"AMPERE":         {"a100"},
	"CDNA3":          {"mi300x", "mi325x"},
	"CDNA4":          {"mi355x"},
}

// GenerationIDs returns the hardware ids of the GPU generations named in
// text, in order of first mention, without duplicates ("Hopper/Blackwell"
// → h100 h200 b200 b300 gb200 gb300; "CDNA3" → mi300x mi325x). Consumer
// Blackwell ("consumer Blackwell", "RTX 5090 … Blackwell", "Blackwell
// (sm120)") maps to nothing.
func GenerationIDs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range generationRe.FindAllStringSubmatch(text, -1) {
		if m[1] != "" || m[3] != "" {
			continue
		}
		w := strings.ToUpper(strings.NewReplacer(" ", "", "\t", "", "\n", "", "-", "").Replace(m[2]))
		for _, id := range generationIDs[w] {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// guideHardware resolves a block's hardware from its context text
// (summary, tab, headings innermost first), the vendor hint (summary, tab,
// innermost heading; see filterBrand) and the bold label in effect:
//
//  1. taxonomy ids named by the context ("context");
//  2. else the ids of a generation named by the context ("generation");
//  3. else the ids, or the generation's ids, named by the bold label
//     ("bold"), filtered by the label's own vendor words and the hint.
//
// words are the GPU words of the context and the bold label.
func guideHardware(ctxText, hint, bold string) (ids []string, from string, words []string) {
	words = HardwareWords(ctxText)
	if ids = filterBrand(wordIDs(words), hint); len(ids) > 0 {
		return ids, "context", words
	}
	if ids = filterBrand(GenerationIDs(ctxText), hint); len(ids) > 0 {
		return ids, "generation", words
	}
	if bold == "" {
		return nil, "", words
	}
	bw := HardwareWords(bold)
	for _, w := range bw {
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	ids = wordIDs(bw)
	if len(ids) == 0 {
		ids = GenerationIDs(bold)
	}
	ids = filterBrand(filterBrand(ids, bold), hint)
	if len(ids) == 0 {
		return nil, "", words
	}
	return ids, "bold", words
}
