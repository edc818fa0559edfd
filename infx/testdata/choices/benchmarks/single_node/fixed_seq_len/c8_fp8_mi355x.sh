#!/usr/bin/env bash
# Three probes: 27 combinations of answers, past the 16 runs of a point.
a=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
b=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
c=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
vllm serve "$MODEL" --tensor-parallel-size "$TP"
