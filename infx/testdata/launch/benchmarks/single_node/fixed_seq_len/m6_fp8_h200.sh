#!/usr/bin/env bash
if [[ "$TP" -gt 4 ]]; then
    echo "Error: this script supports TP <= 4, got $TP" >&2
    exit 1
fi
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" &
