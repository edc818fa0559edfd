#!/usr/bin/env bash
# Fixture: an arithmetic error in an assignment before the launch.
HALF=$((CONC / 2))
Y=$((TP / (EP_SIZE - 1)))
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$PORT" &
