#!/usr/bin/env bash
# A probe in a loop of 10,000 iterations.
for i in $(seq 1 10000); do
    v=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
done
vllm serve "$MODEL" --tensor-parallel-size "$TP"
