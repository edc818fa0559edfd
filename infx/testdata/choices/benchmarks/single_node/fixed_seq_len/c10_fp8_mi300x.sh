#!/usr/bin/env bash
# The MEC firmware probe, on a runner label without a launcher.
version=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
if [[ "$version" == "" || $version -lt 177 ]]; then
    export HSA_NO_SCRATCH_RECLAIM=1
fi
export VLLM_ROCM_USE_AITER=1
vllm serve "$MODEL" --tensor-parallel-size "$TP" --port "$PORT"
