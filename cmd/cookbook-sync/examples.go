package main

// The Examples: section of every command's help (cobra's Example field).
// Each is a real invocation, run from the root of a cookbook-sync checkout
// with the upstream trees of ../shared beside it (../shared/corpus/upstream:
// InferenceX, the sglang docs, srt-slurm; ../shared/corpus/sglang: the
// AgentX snippets; ../shared/corpus/vllm-recipes), or on the embedded demo
// workspace. TestEveryCommandHasExamples fails on a command without one;
// TestCorpusExamplesRun runs every example that needs no network.

const exampleRoot = `  # the main job on the embedded demo workspace (exits 1: the demo has a gap)
  cookbook-sync coverage

  # the main job on real checkouts, as a sign-off comment
  cookbook-sync coverage --infx ../shared/corpus/upstream/InferenceX --cookbook ../shared/corpus/upstream/sglang-docs --cookbook ../shared/corpus/sglang --srt-slurm-dir ../shared/corpus/upstream/srt-slurm --format markdown

  # what a config key runs, and what the cookbook shows
  cookbook-sync render --infx ../shared/corpus/upstream/InferenceX --config-key dsr1-fp8-b200-sglang --row 1 --conc 8
  cookbook-sync decode ../shared/corpus/upstream/sglang-docs/docs/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx --selection hw=b300,variant=pro,quant=fp4,strategy=low-latency,nodes=single

  cookbook-sync --version`

const exampleCoverage = `  # the embedded demo workspace (exits 1: the demo has a gap)
  cookbook-sync coverage

  # every source: AgentX snippets and cookbook pages (two --cookbook), srt-slurm recipes, vLLM recipes
  cookbook-sync coverage --infx ../shared/corpus/upstream/InferenceX --cookbook ../shared/corpus/upstream/sglang-docs --cookbook ../shared/corpus/sglang --srt-slurm-dir ../shared/corpus/upstream/srt-slurm --vllm-recipes ../shared/corpus/vllm-recipes

  # the vLLM-family keys of one model against the vLLM recipes, as JSON
  cookbook-sync coverage --infx ../shared/corpus/upstream/InferenceX --vllm-recipes ../shared/corpus/vllm-recipes --config-key 'dsv4-*' --format json

  # a sign-off comment for two keys, by the policy the checkout's own sign-off prompt states
  cookbook-sync coverage --infx ../shared/corpus/upstream/InferenceX --cookbook ../shared/corpus/upstream/sglang-docs --config-key 'qwen3.5-fp8-b200-sglang*,qwen3.5-fp4-b200-sglang*' --policy pinned --format markdown`

const exampleDecode = `  # one AgentX cell (by the "#N" suffix of its id) with the SGLang router
  cookbook-sync decode ../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx --cell '#6' --router sglang

  # a hand-written cookbook page, one selection as in its URL
  cookbook-sync decode ../shared/corpus/upstream/sglang-docs/docs/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx --selection hw=b300,variant=pro,quant=fp4,strategy=low-latency,nodes=single

  # every selection of a page generator, one JSON object a line
  cookbook-sync decode --all --format jsonl ../shared/corpus/upstream/sglang-docs/docs/src/snippets/autoregressive/qwen35-deployment.jsx`

const exampleRender = `  # the config keys of a checkout
  cookbook-sync render --list --infx ../shared/corpus/upstream/InferenceX

  # one point of a key (a single-node script, run in the sandbox)
  cookbook-sync render --infx ../shared/corpus/upstream/InferenceX --config-key dsr1-fp8-b200-sglang --row 1 --conc 8

  # one variant of an srt-slurm recipe bundle
  cookbook-sync render --recipe '../shared/corpus/upstream/InferenceX/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5.2/gb300-fp4/agentic/glm5.2-agentx.yaml:zip_override_mtp_agentx_lowlat[0]'

  # every key, recipes a launcher clones read from an srt-slurm checkout
  cookbook-sync render --all --infx ../shared/corpus/upstream/InferenceX --srt-slurm-dir ../shared/corpus/upstream/srt-slurm`

const exampleRecipes = `  cookbook-sync recipes decode ../shared/corpus/vllm-recipes/models/deepseek-ai/DeepSeek-V4-Pro.yaml
  cookbook-sync recipes scan ../shared/corpus/vllm-recipes`

const exampleRecipesDecode = `  # a model recipe (YAML): every variant, strategy and hardware
  cookbook-sync recipes decode ../shared/corpus/vllm-recipes/models/deepseek-ai/DeepSeek-V4-Pro.yaml

  # a legacy Markdown guide, as JSON
  cookbook-sync recipes decode ../shared/corpus/vllm-recipes/DeepSeek/DeepSeek-V3_2.md --format json`

const exampleRecipesScan = `  cookbook-sync recipes scan ../shared/corpus/vllm-recipes`

const exampleUpstream = `  cookbook-sync upstream status https://github.com/sgl-project/sglang/pull/45111 https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5
  GH_TOKEN=… cookbook-sync upstream refresh ../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx`

const exampleUpstreamStatus = `  # a PR and a published page (GH_TOKEN, when set, raises the rate limit)
  cookbook-sync upstream status https://github.com/sgl-project/sglang/pull/45111 https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5

  cookbook-sync upstream status --format json https://recipes.vllm.ai/deepseek-ai/DeepSeek-V4-Pro`

const exampleUpstreamRefresh = `  # what would move forward (read-only)
  cookbook-sync upstream refresh ../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx

  # write it in place, in your sglang checkout
  cookbook-sync upstream refresh --write ../sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx`

const examplePR = `  cookbook-sync pr plan --offline --repo sgl-project/sglang --model Qwen/qwen3.5 --file docs/src/snippets/agentx/Qwen/qwen3.5.jsx=../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx
  cookbook-sync pr plan --format json --repo sgl-project/sglang --model Qwen/qwen3.5 --file docs/src/snippets/agentx/Qwen/qwen3.5.jsx=../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx > plan.json
  GH_TOKEN=… cookbook-sync pr apply --plan plan.json`

const examplePRPlan = `  # a preview from the local files, GitHub not asked
  cookbook-sync pr plan --offline --repo sgl-project/sglang --model Qwen/qwen3.5 --file docs/src/snippets/agentx/Qwen/qwen3.5.jsx=../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx --config-key qwen3.5-fp8-b200-sglang-agentic-mtp --inferencex-sha 843c6254ff69b567f772f6a5fd97675af3d04431

  # against the live repository, saved for pr apply
  cookbook-sync pr plan --format json --repo sgl-project/sglang --model Qwen/qwen3.5 --file docs/src/snippets/agentx/Qwen/qwen3.5.jsx=../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx > plan.json`

const examplePRApply = `  # a saved plan (pr plan --format json), re-checked against the live state
  GH_TOKEN=… cookbook-sync pr apply --plan plan.json

  # plan and apply in one, the branch pushed to a fork
  GH_TOKEN=… cookbook-sync pr apply --repo sgl-project/sglang --head-repo my-bot/sglang --model Qwen/qwen3.5 --file docs/src/snippets/agentx/Qwen/qwen3.5.jsx=../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx`

const exampleGenerate = `  # a model's AgentX snippet, keeping the cell order and ids of the current one
  cookbook-sync generate --infx ../shared/corpus/upstream/InferenceX --srt-slurm-dir ../shared/corpus/upstream/srt-slurm --model qwen3.5 --main 843c6254ff69 --previous ../shared/corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx -o qwen3.5.jsx

  # only some keys of the model
  cookbook-sync generate --infx ../shared/corpus/upstream/InferenceX --model glm5.2 --keys 'glm5.2-fp4-*' --main 843c6254ff69 -o glm-5.2.jsx`

const exampleDrift = `  # the AgentX points of one model against their pinned InferenceX commits and head
  # (a directory without git history: every pinned commit is "not available")
  cookbook-sync drift --infx ../shared/corpus/upstream/InferenceX --cookbook ../shared/corpus/sglang --config-key 'qwen3.5-*'

  # the nightly job: every source, the previous state, accepted drift, JSON for the tracking issue
  cookbook-sync drift --infx ../InferenceX --cookbook ../sglang --vllm-recipes ../recipes --state drift-state.json --baseline .cookbook-drift.yaml --format json`

const exampleSignoff = `  # the PR at HEAD of an InferenceX clone, every source, as the sign-off comment
  cookbook-sync signoff --infx ../InferenceX --cookbook ../shared/corpus/upstream/sglang-docs --cookbook ../shared/corpus/sglang --srt-slurm-dir ../shared/corpus/upstream/srt-slurm --vllm-recipes ../shared/corpus/vllm-recipes

  # one squash-merged commit (its first parent is the base), no GitHub access, as JSON
  cookbook-sync signoff --infx ../InferenceX --head fbb480e5f --cookbook ../shared/corpus/upstream/sglang-docs --offline --format json`
