#!/usr/bin/env bash
# The body of the unknown condition reads the unknown file: a value.
if grep -q fast /opt/engine/mode.txt; then
    MODE=$(cat /opt/engine/mode.txt)
fi
vllm serve "$MODEL" --tensor-parallel-size "$TP" --mode "${MODE:-default}"
