#!/usr/bin/env bash
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" &
