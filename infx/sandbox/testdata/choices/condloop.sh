#!/usr/bin/env bash
# An unknown condition inside a loop of 10,000 iterations.
i=0
while [ "$i" -lt 10000 ]; do
    if grep -q x /opt/engine/flag.txt; then :; fi
    i=$((i + 1))
done
vllm serve m
