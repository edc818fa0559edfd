#!/usr/bin/env bash
# Fixture: CRLF line endings.
python3 -m sglang.launch_server --model-path "$MODEL" --port "$PORT" &
