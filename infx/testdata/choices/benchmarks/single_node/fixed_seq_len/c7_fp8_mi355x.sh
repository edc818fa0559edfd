#!/usr/bin/env bash
# A flag that depends on the answer; one answer stops before the server.
version=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
if [[ "$version" == "" ]]; then
    echo "Error: no MEC firmware line" >&2
    exit 1
fi
EXTRA=()
if [ "$version" -lt 177 ]; then
    EXTRA=(--max-num-seqs 64)
fi
vllm serve "$MODEL" --tensor-parallel-size "$TP" "${EXTRA[@]}"
