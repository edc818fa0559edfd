package helpers

import (
	"errors"
	"testing"
)

// FuzzSyntheticApply runs every injector version on arbitrary recipe text
// and reference YAML: never a panic, and every outcome is the rewritten
// text, *Exit or *NotModelled.
func FuzzSyntheticApply(f *testing.F) {
	f.Add("backend:\n  vllm_config:\n    a:\n      speculative-config: '{\"method\":\"mtp\",\"num_speculative_tokens\":3}'\n", "deepseek-r1:\n  - 3: 2.5\n", "2.27")
	f.Add("  prefill_environment:\n    A: 1\n  sglang_config:\n    p:\n      speculative-num-steps: 3\n", "deepseek-v4-pro:\n  thinking_on:\n    3: 3\n", "")
	f.Add("speculative-config: '{\"a\":[1,{\"b\":\"\\ud800\"}],\"c\":1e999,\"d\":-0}'", "", "1e-7")
	f.Fuzz(func(t *testing.T, recipe, ref, length string) {
		for commit, combo := range syntheticCombos {
			prog := syntheticByBlobs(combo[0], combo[1], combo[2:]...)
			for _, fw := range []string{"dynamo-vllm", "dynamo-sglang", "vllm"} {
				for _, evalOnly := range []string{"false", "true"} {
					args := []string{"r.yaml", fw}
					if combo[1] == "" {
						args = args[:1]
					}
					in := SyntheticInput{Args: args, RefYAML: ref, RefFound: ref != "", RefPath: "ref.yaml",
						Env: map[string]string{"SYNTHETIC_ACCEPTANCE": "true", "SYNTHETIC_ACCEPTANCE_LENGTH": length, "MODEL_PREFIX": "dsv4", "EVAL_ONLY": evalOnly}}
					out, err := prog.Apply(in, []byte(recipe))
					var ex *Exit
					var nm *NotModelled
					if err != nil && !errors.As(err, &ex) && !errors.As(err, &nm) {
						t.Fatalf("%s %s: %T %v", commit, fw, err, err)
					}
					if err == nil && out == nil {
						t.Fatalf("%s %s: nil output", commit, fw)
					}
				}
			}
		}
	})
}
