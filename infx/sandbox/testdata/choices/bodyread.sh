#!/usr/bin/env bash
# The body of an unknown condition reads the unknown file: a value.
if grep -q fast /opt/engine/mode.txt; then
    MODE=$(cat /opt/engine/mode.txt)
fi
vllm serve m --mode "${MODE:-default}"
