#!/usr/bin/env bash
# Fixture: a single-node vLLM benchmark script (InferenceX format).
source "$(dirname "$0")/../../benchmark_lib.sh"

export VLLM_USE_FLASHINFER_MOE_FP8=1
vllm serve "$MODEL" --host 0.0.0.0 --port "$PORT" \
    --tensor-parallel-size="$TP" \
    --max-model-len "$MAX_MODEL_LEN" \
    --gpu-memory-utilization 0.9 \
    --trust-remote-code > "$RESULT_DIR/server.log" 2>&1 &
wait_for_server_ready --port "$PORT"
