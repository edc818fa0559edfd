#!/usr/bin/env bash
# Fixture: SGLANG_CMD array executed directly, with a function wrapper.
source benchmarks/benchmark_lib.sh

launch() {
    "$@" > /dev/null 2>&1 &
}

SGLANG_CMD=(python3 -m sglang.launch_server
    --model-path "$MODEL"
    --tp-size "$TP"
    --reasoning-parser glm45
    --tool-call-parser "glm47")
printf '%q ' "${SGLANG_CMD[@]}" > "$RESULT_DIR/sglang_command.txt"
launch "${SGLANG_CMD[@]}"
# A router in front, started through bash -c.
bash -c "python3 -m sglang_router.launch_router --worker-urls http://127.0.0.1:30000 --port $PORT" &
# A GPU monitor loop left running in the background.
( while true; do nvidia-smi --query-gpu=utilization.gpu --format=csv; sleep 1; done ) &
