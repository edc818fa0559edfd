#!/usr/bin/env bash
# cookbook-sync fixture (written for compare's script tests, not upstream
# code): an old-layout agentic single-node script in the styles of
# shared/spec/inferencex.md (c) — a bash array saved with printf '%q ',
# a DP-attention branch, $(…) and [[ … ]] values that depend on CONC,
# exports that depend on EVAL_ONLY and KV_OFFLOADING.
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE DP_ATTENTION CONC PORT RESULT_DIR KV_OFFLOADING

if [[ "${EVAL_ONLY:-false}" != "true" ]]; then
  export SGLANG_SIMULATE_ACC_LEN=3.39
  export SGLANG_SIMULATE_ACC_METHOD=match-expected
fi
export SGLANG_ENABLE_SPEC_V2=1
export NCCL_NVLS_ENABLE=1

PARALLEL_ARGS=(--tensor-parallel-size "$TP")
if [[ "$DP_ATTENTION" == "true" ]]; then
  PARALLEL_ARGS+=(--data-parallel-size "$TP" --enable-dp-attention --expert-parallel-size "$EP_SIZE" --moe-a2a-backend deepep)
elif [[ "$EP_SIZE" -gt 1 ]]; then
  PARALLEL_ARGS+=(--expert-parallel-size "$EP_SIZE")
fi

KV_ARGS=()
if [[ "$KV_OFFLOADING" == "dram" ]]; then
  KV_ARGS=(--enable-hierarchical-cache --hicache-ratio 2 --hicache-write-policy write_through)
fi

SGLANG_CMD=(python3 -m sglang.launch_server
  --model-path "$MODEL" --host 0.0.0.0 --port "$PORT"
  --trust-remote-code
  "${PARALLEL_ARGS[@]}"
  --attention-backend trtllm_mha
  --mem-fraction-static 0.85
  --context-length 262144
  --cuda-graph-max-bs "$CONC"
  --scheduler-recv-interval $( [[ $CONC -gt 4 ]] && echo 30 || echo 10 )
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
  --reasoning-parser qwen3 --tool-call-parser qwen3_coder
  --enable-metrics
  "${KV_ARGS[@]}")

printf '%q ' "${SGLANG_CMD[@]}" > "$RESULT_DIR/sglang_command.txt"
"${SGLANG_CMD[@]}" > "$RESULT_DIR/server.log" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$RESULT_DIR/server.log" --server-pid "$SERVER_PID"
install_agentic_deps
run_agentic_benchmark --port "$PORT" --concurrency "$CONC" --result-dir "$RESULT_DIR"
