#!/usr/bin/env bash
# Fixture: vLLM launched from a bash array that is also written with printf '%q '.
source "$(dirname "$0")/../../benchmark_lib.sh"

PARALLEL_ARGS=(--tensor-parallel-size "$TP")
if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP" --enable-expert-parallel)
fi

export VLLM_USE_FLASHINFER_MOE_FP8=1
VLLM_CMD=(vllm serve "$MODEL" --host 0.0.0.0 --port "$PORT"
    "${PARALLEL_ARGS[@]}"
    --max-model-len "$MAX_MODEL_LEN"
    --max-num-seqs "$CONC"
    --compilation-config '{"cudagraph_mode": "FULL_AND_PIECEWISE", "max_cudagraph_capture_size": 512}'
    --no-enable-prefix-caching)

mkdir -p "$RESULT_DIR"
printf '%q ' "${VLLM_CMD[@]}" > "$RESULT_DIR/vllm_command.txt"
nohup "${VLLM_CMD[@]}" > "$RESULT_DIR/server.log" 2>&1 &
wait_for_server_ready --port "$PORT"
