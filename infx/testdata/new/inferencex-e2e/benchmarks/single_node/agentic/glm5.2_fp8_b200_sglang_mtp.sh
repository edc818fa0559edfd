#!/usr/bin/env bash
# Fixture: an agentic script that remains in the new layout.
source "$(dirname "$0")/../../benchmark_lib.sh"
export SGLANG_ENABLE_SPEC_V2=1
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" \
  --speculative-algorithm EAGLE --cuda-graph-max-bs "$CONC" --port "$PORT" &
