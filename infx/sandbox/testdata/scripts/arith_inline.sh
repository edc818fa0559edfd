#!/usr/bin/env bash
# Fixture: an arithmetic error inside the launch command itself.
python3 -m sglang.launch_server --model-path "$MODEL" \
  --cuda-graph-max-bs $((CONC % (TP - TP))) --port "$PORT" &
