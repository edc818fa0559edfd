#!/usr/bin/env bash
EXTRA=()
if gpu-health-probe --strict; then
    EXTRA=(--enable-torch-compile)
fi
python3 -m sglang.launch_server --model-path "$MODEL" "${EXTRA[@]}" &
