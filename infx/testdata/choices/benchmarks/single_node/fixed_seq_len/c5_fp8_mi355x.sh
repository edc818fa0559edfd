#!/usr/bin/env bash
# The engine itself depends on the answer: not one process.
version=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
if [[ "$version" != "" && $version -ge 177 ]]; then
    vllm serve "$MODEL" --tensor-parallel-size "$TP"
else
    python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP"
fi
