#!/usr/bin/env bash
# Fixture launcher: the multi-node branch of InferenceX
# runners/launch_mi355x-amds.sh.
export MODEL_NAME=${MODEL##*/}
export MODEL_PATH="/share/models"
export GPUS_PER_NODE=8
JOB_ID=$(bash "benchmarks/multi_node/${MODEL_PREFIX}_${PRECISION}_mi355x_${FRAMEWORK}.sh")
echo "$JOB_ID"
