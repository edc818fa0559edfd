package launch

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed aliases.yaml
var aliasesYAML []byte

// aliasTable is the parsed launch/aliases.yaml: engine -> canonical flag ->
// spellings, and engine -> spelling -> canonical flag. Immutable after init.
var aliasTable = func() aliasData {
	a, err := parseFlagAliases("launch/aliases.yaml", aliasesYAML)
	if err != nil {
		// the embedded table is checked by TestFlagAliases
		panic(err)
	}
	return aliasData{byCanon: a, bySpelling: invertAliases(a)}
}()

type aliasData struct {
	byCanon    map[string]map[string][]string
	bySpelling map[string]map[string]string
}

// parseFlagAliases reads a flag alias table in the form of launch/aliases.yaml:
// engine -> canonical flag -> list of other spellings. Errors: YAML syntax
// or shape, a canonical flag or spelling that does not start with "-", a
// spelling claimed by two canonical flags of one engine.
func parseFlagAliases(name string, data []byte) (map[string]map[string][]string, error) {
	var a map[string]map[string][]string
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(&a); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, eng := range slices.Sorted(maps.Keys(a)) {
		seen := map[string]string{}
		for _, canon := range slices.Sorted(maps.Keys(a[eng])) {
			if !strings.HasPrefix(canon, "-") {
				return nil, fmt.Errorf("%s: %s: %q is not a flag", name, eng, canon)
			}
			for _, s := range a[eng][canon] {
				if !strings.HasPrefix(s, "-") {
					return nil, fmt.Errorf("%s: %s.%s: %q is not a flag", name, eng, canon, s)
				}
				if prev, dup := seen[s]; dup && prev != canon {
					return nil, fmt.Errorf("%s: %s: %q is an alias of both %s and %s", name, eng, s, prev, canon)
				}
				seen[s] = canon
			}
		}
	}
	return a, nil
}

func invertAliases(a map[string]map[string][]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for eng, m := range a {
		c := map[string]string{}
		for canon, alts := range m {
			for _, s := range alts {
				c[s] = canon
			}
		}
		out[eng] = c
	}
	return out
}

// FlagAliases returns the shared flag alias table (launch/aliases.yaml) as
// engine ("sglang", "vllm") -> canonical flag -> other spellings, in a new
// map the caller may keep and change. Sources: sgl-project/sglang
// python/sglang/srt/server_args.py, vllm-project/vllm
// vllm/engine/arg_utils.py, ai-dynamo/dynamo components/src/dynamo/vllm/args.py.
func FlagAliases() map[string]map[string][]string {
	out := make(map[string]map[string][]string, len(aliasTable.byCanon))
	for eng, m := range aliasTable.byCanon {
		c := make(map[string][]string, len(m))
		for canon, alts := range m {
			c[canon] = slices.Clone(alts)
		}
		out[eng] = c
	}
	return out
}

// CanonicalFlag returns the canonical spelling of flag for engine ("sglang",
// "vllm") when flag is one of its aliases in the shared table
// (launch/aliases.yaml): ("sglang", "--tp") -> "--tensor-parallel-size",
// ("vllm", "-tp") -> "--tensor-parallel-size", ("vllm",
// "--dyn-tool-call-parser") -> "--tool-call-parser". Any other flag, or an
// engine without aliases, gives flag unchanged. The lookup is by exact
// spelling: rewrite "_" to "-" and split "--flag=value" first. Sources:
// sgl-project/sglang python/sglang/srt/server_args.py (add_cli_args),
// vllm-project/vllm vllm/engine/arg_utils.py (short options),
// ai-dynamo/dynamo components/src/dynamo/vllm/args.py (--dyn-* parsers).
func CanonicalFlag(engine, flag string) string {
	if c, ok := aliasTable.bySpelling[engine][flag]; ok {
		return c
	}
	return flag
}
