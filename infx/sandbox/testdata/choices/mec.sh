#!/usr/bin/env bash
# A MEC firmware probe as the AMD scripts write it: the env depends on it.
version=$(rocm-smi --showfw 2>/dev/null | grep MEC | head -n 1 | awk '{print $NF}')
if [[ "$version" == "" || ${version:-0} -lt 177 ]]; then
    export HSA_NO_SCRATCH_RECLAIM=1
fi
vllm serve m --tensor-parallel-size 8
