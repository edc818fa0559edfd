#!/usr/bin/env bash
# Fixture in the style of InferenceX benchmarks/single_node/*.sh (inline launch).
source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE DP_ATTENTION CONC ISL OSL RESULT_DIR

hf download "$MODEL"
nvidia-smi

export SGLANG_ENABLE_JIT_DEEPGEMM=false
SERVER_LOG=/workspace/server.log

if [[ "$DP_ATTENTION" == "true" ]]; then
    PARALLEL="--dp-size $TP --enable-dp-attention --ep-size $EP_SIZE --enable-eplb"
else
    PARALLEL=""
fi

set -x
python3 -m sglang.launch_server --model-path=$MODEL --host=0.0.0.0 --port=$PORT \
    --tensor-parallel-size=$TP $PARALLEL --trust-remote-code \
    --scheduler-recv-interval $( [[ $CONC -gt 4 ]] && echo 30 || echo 10 ) \
    --cuda-graph-max-bs $CONC --context-length $((ISL+OSL+20)) \
    --mem-fraction-static 0.82 > $SERVER_LOG 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"
run_benchmark_serving --model "$MODEL" --port "$PORT" --max-concurrency "$CONC"
