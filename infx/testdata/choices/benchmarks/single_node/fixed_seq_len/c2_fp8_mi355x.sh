#!/usr/bin/env bash
# A /dev/shm guard: stops when /dev/shm is too small for the L1 size.
L1_GB=200
SHM_FREE_GB=$(df -BG --output=avail /dev/shm 2>/dev/null | tail -1 | tr -dc '0-9')
if [ -n "$SHM_FREE_GB" ] && [ "$SHM_FREE_GB" -gt 0 ]; then
    if [ "$L1_GB" -gt $((SHM_FREE_GB * 90 / 100)) ]; then
        echo "Error: L1 ${L1_GB} GB exceeds 90% of free /dev/shm" >&2
        exit 1
    fi
fi
vllm serve "$MODEL" --tensor-parallel-size "$TP" --kv-offload-gb "$L1_GB"
