#!/usr/bin/env bash
# A condition that keeps what it read: not a choice.
if MODE=$(cat /opt/engine/mode.txt); then
    :
fi
vllm serve m --mode "$MODE"
