#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC ISL OSL
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
[[ "$GPU_NAME" == *B200* ]] || exit 1
export SGLANG_ENABLE_JIT_DEEPGEMM=0
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$PORT" \
    --context-length $((ISL + OSL + 20)) --max-running-requests $((CONC * 2)) > server.log 2>&1 &
wait_for_server_ready
