#!/usr/bin/env bash
# Fixture: the shape of InferenceX benchmarks/multi_node/*_mi355x_sglang-disagg.sh.
cd "$GITHUB_WORKSPACE/benchmarks/multi_node/amd_utils" || exit 1
export PREFILL_NODES=$(( PREFILL_NUM_WORKERS * PREFILL_TP / 8 ))
export DECODE_NODES=$(( DECODE_NUM_WORKERS * DECODE_TP / 8 ))
bash ./submit.sh "$PREFILL_NODES" "$PREFILL_NUM_WORKERS" "$DECODE_NODES" "$DECODE_NUM_WORKERS"
