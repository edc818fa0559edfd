#!/usr/bin/bash
# Fixture: shape of runners/launch_b200-dgxc.sh (staged MODEL_PATH, no
# framework-tagged lookup, refuses unknown models).
if [[ $MODEL_PREFIX == "m1" && $PRECISION == "fp8" ]]; then
    export MODEL_PATH="/lustre/fsw/models/M1-FP8"
elif [[ $MODEL_PREFIX == "m2" && $PRECISION == "fp8" ]]; then
    export MODEL_PATH="/lustre/fsw/models/M2-FP8"
else
    echo "Unsupported model prefix/precision: $MODEL_PREFIX/$PRECISION"
    exit 1
fi
FRAMEWORK_SUFFIX=$([[ "$FRAMEWORK" == "trt" ]] && printf '_trt' || printf '')
BENCH_SCRIPT="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_b200${FRAMEWORK_SUFFIX}.sh"
salloc --partition=gpu-2 --gres=gpu:$GPU_COUNT --no-shell --job-name="$RUNNER_NAME"
JOB_ID=$(squeue --name="$RUNNER_NAME" -u "$USER" -h -o %A | head -n1)
export MODEL="$MODEL_PATH"
srun --jobid=$JOB_ID \
    --container-mounts=$GITHUB_WORKSPACE:/workspace,$MODEL_PATH:$MODEL_PATH \
    --container-workdir=/workspace \
    --no-container-entrypoint --export=ALL,PORT=8888,AIPERF_DATASET_MMAP_CACHE_DIR=/aiperf_mmap_cache \
    bash "$BENCH_SCRIPT"
