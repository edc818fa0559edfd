// Package recipes reads vllm-project/recipes (the source of recipes.vllm.ai)
// into the shared launch model and finds the recipe roles that cover an
// InferenceX vLLM-family config (vllm, dynamo-vllm, llmd-vllm).
//
// Inputs, from most to least structured (spec vllm-recipes.md §0):
//
//   - Model YAML recipes, models/<hf_org>/<hf_repo>.yaml, with taxonomy.yaml,
//     strategies/*.yaml and kv_store/*.yaml. Site.Renderings ports the
//     site's command synthesis (src/lib/command-synthesis.js and
//     scripts/build-recipes-api.mjs, spec §9): for every tree (recipe or
//     promoted variant checkpoint), hardware and strategy it builds the same
//     argv and env, role by role, that the site's JSON API carries.
//   - The YAML `guide:` Markdown and the legacy <Vendor>/<Model>.md guides.
//     ParseMarkdown walks them with goldmark (pymdown tabs and admonition
//     bodies re-parsed, <details><summary> tracked) and ParseShell reads each
//     launch block with mvdan.cc/sh/v3 (env prefixes, exports, continuations,
//     quoted JSON, placeholders, comments, docker wrappers), with a lenient
//     pass for the broken forms listed in spec §5.
//
// DecodeFile / ScanFile / ScanDir turn files into launch.Deployments; Open
// builds an Index whose Match maps an InferenceX role (model or variant
// checkpoint, hardware, precision, TP/EP/DP, agg or prefill/decode) to recipe
// roles, or to the nearest candidate with the reasons it differs.
//
// The index holds the site's JSON renderings, made with each recipe's
// default feature set (§9.2 step 9). The site's feature toggles also offer
// the opt-in features (opt_in_features, hardware_opt_in_features.<hw>):
// features combine, each adding its args at its YAML position (§9.5), and
// none adds env. MatchDeployment re-renders, lazily and only for the
// (tree, variant, hardware, strategy) renderings that matched, the
// features the InferenceX worker uses — speculative decoding on exactly
// when the worker runs --speculative-config, in the mode that matches it
// best — and marks every candidate with its Features.
// NormalizeArgs, NormalizeFlag, CanonicalJSON and StripSyntheticAcceptance
// are the vLLM-specific normalisation helpers for package compare.
//
// The package reads only the paths it is given and never panics on input;
// errors carry file:line:col.
package recipes
