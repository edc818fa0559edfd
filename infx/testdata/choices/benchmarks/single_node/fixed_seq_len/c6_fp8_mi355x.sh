#!/usr/bin/env bash
# Three facts the sandbox does not know, each asked again in a loop of 100
# iterations: 5 × 3 × 3 = 45 combinations of answers.
for i in $(seq 1 100); do
    v=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
    s=$(df -BG --output=avail /dev/shm | tail -1)
    command -v nicctl >/dev/null && n=1
done
vllm serve "$MODEL" --tensor-parallel-size "$TP" --x "$v$s$n"
