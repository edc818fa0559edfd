#!/usr/bin/env bash
# Fixture: waits forever for a file that never appears.
while [ ! -f "/tmp/server-ready-$PORT" ]; do
    sleep 1
done
python3 -m sglang.launch_server --model-path "$MODEL"
