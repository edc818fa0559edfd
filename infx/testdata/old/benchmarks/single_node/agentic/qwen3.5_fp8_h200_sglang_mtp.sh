#!/usr/bin/env bash
# Fixture: agentic script, command string run through eval, env wrapper,
# synthetic acceptance only when not EVAL_ONLY.
source "$(dirname "$0")/../../benchmark_lib.sh"
install_agentic_deps

if [[ "$EVAL_ONLY" != "true" ]]; then
    export SGLANG_SIMULATE_ACC_LEN=3.39
    export SGLANG_SIMULATE_ACC_METHOD=match-expected
fi

SPEC_FLAGS=""
if [[ "$SPEC_DECODING" == "mtp" ]]; then
    SPEC_FLAGS="--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
fi

CMD="env SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang.launch_server --model-path $MODEL --tp $TP $SPEC_FLAGS --max-running-requests $((CONC * 2)) --port $PORT"
echo "$CMD" > "$RESULT_DIR/server_command.txt"
eval "$CMD" &
wait
