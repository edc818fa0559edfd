#!/usr/bin/env python3
"""Golden outputs of InferenceX amd_utils/submit.sh's node_excludes.yaml reader.

Run from infx/helpers: python3 testdata/node_excludes/gen.py > testdata/node_excludes/golden.json
It takes the reader's -c word from ../shared/corpus/upstream/InferenceX (not
copied here), expands it as bash does for each case, runs it with python3
(PyYAML 6) and records stdout and status.
"""
import json, os, subprocess, sys, tempfile

SUBMIT = os.path.join(os.path.dirname(__file__), "../../../../../shared/corpus/upstream/InferenceX/benchmarks/multi_node/amd_utils/submit.sh")
src = open(SUBMIT).read()
k = 'RESOLVED_EXCLUDE_NODES=$(python3 -c '
i = src.index(k) + len(k)
j = src.index('")', i) + 1
word = src[i:j]

CASES = [
    ("match", "rules:\n  - framework: vllm-disagg\n    models:\n      - Kimi-K2.5-MXFP4\n    exclude_nodes: a,b\n", "vllm-disagg", "Kimi-K2.5-MXFP4"),
    ("no match", "rules:\n  - framework: vllm-disagg\n    models: [X]\n    exclude_nodes: a\n", "sglang-disagg", "X"),
    ("first of two", "rules:\n  - framework: f\n    models: [m]\n    exclude_nodes: one\n  - framework: f\n    models: [m]\n    exclude_nodes: two\n", "f", "m"),
    ("no exclude_nodes", "rules:\n  - framework: f\n    models: [m]\n", "f", "m"),
    ("int exclude", "rules:\n  - framework: f\n    models: [m]\n    exclude_nodes: 12\n", "f", "m"),
    ("bool exclude", "rules:\n  - framework: f\n    models: [m]\n    exclude_nodes: yes\n", "f", "m"),
    ("null exclude", "rules:\n  - framework: f\n    models: [m]\n    exclude_nodes:\n", "f", "m"),
    ("models string substring", "rules:\n  - framework: f\n    models: mm-large\n    exclude_nodes: s\n", "f", "large"),
    ("models null", "rules:\n  - framework: f\n    models:\n    exclude_nodes: s\n", "f", "m"),
    ("models dict", "rules:\n  - framework: f\n    models: {m: 1}\n    exclude_nodes: d\n", "f", "m"),
    ("models int", "rules:\n  - framework: f\n    models: 3\n    exclude_nodes: d\n", "f", "m"),
    ("empty file", "", "f", "m"),
    ("no rules", "other: 1\n", "f", "m"),
    ("rules null", "rules:\n", "f", "m"),
    ("rules int", "rules: 3\n", "f", "m"),
    ("rules string", "rules: abc\n", "f", "m"),
    ("rule not a mapping", "rules:\n  - just-a-string\n", "f", "m"),
    ("cfg a list", "- a\n- b\n", "f", "m"),
    ("framework int", "rules:\n  - framework: 1\n    models: ['m']\n    exclude_nodes: x\n", "1", "m"),
    ("quoted model", "rules:\n  - framework: f\n    models: ['DeepSeek-R1-0528']\n    exclude_nodes: q\n", "f", "DeepSeek-R1-0528"),
    ("anchor alias", "base: &b [m]\nrules:\n  - framework: f\n    models: *b\n    exclude_nodes: al\n", "f", "m"),
    ("empty model", "rules:\n  - framework: f\n    models: abc\n    exclude_nodes: e\n", "f", ""),
]

out = []
with tempfile.TemporaryDirectory() as d:
    for name, yml, fw, model in CASES:
        p = os.path.join(d, "node_excludes.yaml")
        with open(p, "w") as f:
            f.write(yml)
        prog = subprocess.run(["bash", "-c", 'NODE_EXCLUDES_YAML="$1"; FRAMEWORK="$2"; MODEL_NAME="$3"; printf %s ' + word, "x", "./node_excludes.yaml", fw, model],
                              capture_output=True, text=True, check=True).stdout
        r = subprocess.run([sys.executable, "-c", prog], cwd=d, capture_output=True, text=True)
        out.append({"name": name, "yaml": yml, "framework": fw, "model": model, "stdout": r.stdout, "status": r.returncode})
print(json.dumps({"word_sha256": __import__("hashlib").sha256(word.encode()).hexdigest(), "cases": out}, indent=1))
