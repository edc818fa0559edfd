#!/usr/bin/env bash
# Fixture: single-node vLLM with MTP and InferenceX's synthetic acceptance keys.
source "$(dirname "$0")/../../benchmark_lib.sh"

export VLLM_USE_FLASHINFER_MOE_FP8=1
vllm serve --model "$MODEL" --port "$PORT" \
    -tp "$TP" \
    --max-model-len "$MAX_MODEL_LEN" \
    --trust_remote_code \
    --speculative-config '{"num_speculative_tokens": 2, "method": "mtp", "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}' \
    --enforce-eager > "$RESULT_DIR/server.log" 2>&1 &
wait_for_server_ready --port "$PORT"
