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
// # Files: three parts
//
// A file's prefix says which part it belongs to; unprefixed files are the
// entry points and what the parts share.
//
//   - site_*: recipes.vllm.ai's command synthesis, a port of the site's
//     own src/lib/command-synthesis.js (and scripts/build-recipes-api.mjs),
//     spec vllm-recipes.md §9. site_load.go loads models/, taxonomy.yaml,
//     strategies/ and kv_store/ (LoadSite, Site, Recipe, HardwareProfile);
//     site_schema.go checks the shape of the fields synthesis reads (§9.1);
//     site_synth.go is the synthesis itself: enumeration of trees, hardware
//     and strategies (§9.2), one rendering's args in order (build.argv,
//     §9.3), parallelism (build.parallel, §9.4), finishing (build.finish,
//     §9.6), env (build.env, §9.7), the serving, pd_cluster and kv-store
//     shapes (§9.9); site_features.go the feature args and toggles (§9.5);
//     site_space.go the builder's selection space and page URL (SiteQuery:
//     nodes, PD pool pills and sizes, KV offload); site_deployment.go turns
//     a Rendering into a launch.Deployment.
//   - guide_*: the legacy Markdown guides (<Vendor>/<Model>.md) and the
//     YAML guide: Markdown. guide_markdown.go walks the Markdown
//     (ParseMarkdown, Block); guide_bounds.go bounds its nesting and size;
//     guide_shell.go reads a launch block's shell (ParseShell);
//     guide_commands.go turns a block's launch commands into deployments
//     (BlockDeployments: role, rank, --config files); guide_deployments.go
//     the section rules (same-section exports, prose deltas as alternates,
//     GuideDeployments); guide_hardware.go the hardware a heading or bold
//     prose names; guide_prose.go the statements of a model YAML's prose
//     (guide: and variant descriptions, read by package prose) as
//     alternates of its renderings and guide commands (ProseHardware).
//   - match_*: the matcher, from an InferenceX role to recipe roles.
//     match_index.go builds the Index (Open) and answers Match /
//     MatchDeployment; match_space.go adds, per query, the selection-space
//     renderings the JSON API lacks; match_features.go re-renders a match
//     with the features the InferenceX worker uses; match_normalize.go the
//     vLLM argument normalisation and topology (also used by package
//     compare).
//   - decode.go: DecodeFile, ScanFile, ScanDir (any file of the tree, to
//     the part that reads it); summary.go: the ScanDir counts;
//     hardware.go: GPU words and taxonomy ids (guides and matcher);
//     yamlnode.go: YAML node accessors.
//
// A new site rule (a rule of the site's command synthesis: the site
// renders something we do not) goes where command-synthesis.js has it:
// find its step in spec §9 and change the site_*.go function of that step
// (a new argument source: build.argv in site_synth.go; a feature rule:
// site_features.go; a builder option the JSON API does not render:
// site_space.go), add the field to site_schema.go when the rule reads one
// the schema does not check yet, and cover it with a recipe in
// testdata/site and TestSynthesisFixture (site_synth_test.go);
// TestGoldenVLLMGenerated then compares every rendering of ../shared with
// the site's own JSON. The matcher and the guides need no change.
//
// The package reads only the paths it is given and never panics on input;
// errors carry file:line:col.
package recipes
