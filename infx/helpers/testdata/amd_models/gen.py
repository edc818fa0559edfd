#!/usr/bin/env python3
"""Makes golden.jsonl: the output of the real models.yaml loader of
InferenceX benchmarks/multi_node/amd_utils/server_sglang.sh (lines 79-188,
`eval "$(python3 -c "…")"`, at 843c6254) on the real models.yaml, under
python3 with PyYAML 6, for every top-level key (and its base name) with
and without IS_AGENTIC, with and without the variables eval_formula reads.

The program is run by bash itself: lines 79-188 with `eval "$(` and `)"`
cut off, so bash expands ${MODELS_YAML}, ${MODEL_NAME} and
${IS_AGENTIC:-0} exactly as the script does.

Command (from the repository root, ../shared a sibling of it):
    python3 infx/helpers/testdata/amd_models/gen.py ../shared/corpus/upstream/InferenceX \
        > infx/helpers/testdata/amd_models/golden.jsonl
"""
import hashlib, json, os, re, subprocess, sys, yaml

root = sys.argv[1]
utils = os.path.join(root, "benchmarks/multi_node/amd_utils")
lines = open(os.path.join(utils, "server_sglang.sh")).read().split("\n")
assert lines[78] == 'eval "$(python3 -c "' and lines[187] == '")"'
word = "\n".join(['python3 -c "'] + lines[79:187] + ['"'])
models = os.path.join(utils, "models.yaml")
keys = list(yaml.safe_load(open(models)))
names = []
for k in keys + ["No-Such-Model"]:
    for n in (k, re.sub(r"-(DI|AgentX)$", "", k)):
        if n not in names:
            names.append(n)
formula = {"MORI_MAX_DISPATCH_TOKENS_PREFILL": "16384", "PREFILL_TP_SIZE": "8",
           "MORI_MAX_DISPATCH_TOKENS_DECODE": " 160 ", "DECODE_TP_SIZE": "16"}
cases = []
for n in names:
    for agentic in (None, "1", "true", "0"):
        for fenv in (formula, {}):
            cases.append((n, agentic, fenv))
for n, agentic, fenv in cases:
    env = {"PATH": os.environ["PATH"], "MODELS_YAML": "/models.yaml", "MODEL_NAME": n}
    env.update(fenv)
    if agentic is not None:
        env["IS_AGENTIC"] = agentic
    # the program opens /models.yaml: give it the real file's path
    env["MODELS_YAML"] = models
    p = subprocess.run(["bash", "-c", word], env=env, capture_output=True, text=True)
    # the program text python3 received, as bash expanded the word
    q = subprocess.run(["bash", "-c", "printf %s " + word[len("python3 -c "):]], env=env, capture_output=True)
    expanded = hashlib.sha256(q.stdout.replace(models.encode(), b"models.yaml")).hexdigest()
    env.pop("PATH")
    env["MODELS_YAML"] = "models.yaml"
    print(json.dumps({"env": env, "expanded_sha256": expanded, "stdout": p.stdout, "stderr": p.stderr, "status": p.returncode}, sort_keys=True))
