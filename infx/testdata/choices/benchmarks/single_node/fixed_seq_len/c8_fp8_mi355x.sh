#!/usr/bin/env bash
# Three facts: 5 × 3 × 3 = 45 combinations of answers, past the 16 runs
# of a point.
a=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
b=$(df -BG --output=avail /dev/shm | tail -1)
command -v nicctl >/dev/null && c=1
vllm serve "$MODEL" --tensor-parallel-size "$TP" --x "$a$b$c"
