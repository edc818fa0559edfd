#!/usr/bin/env bash
# Fixture: shape of runners/launch_b200-cw.sh (framework-tagged script first).
export PORT=8888
MODEL_CODE="${EXP_NAME%%_*}"
FRAMEWORK_SUFFIX=$([[ "$FRAMEWORK" == "trt" ]] && printf '_trt' || printf '')
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
BENCH_BASE="benchmarks/single_node/${SCENARIO_SUBDIR}${MODEL_CODE}_${PRECISION}_b200"
BENCH_SCRIPT="${BENCH_BASE}_${FRAMEWORK}${SPEC_SUFFIX}.sh"
if [[ ! -f "$BENCH_SCRIPT" ]]; then
    BENCH_SCRIPT="${BENCH_BASE}${FRAMEWORK_SUFFIX}${SPEC_SUFFIX}.sh"
fi
set -x
JOB_ID=$(salloc --partition=b200 --gres=gpu:b200:$GPU_COUNT --no-shell --job-name="$RUNNER_NAME" 2>&1 | tee /dev/stderr | grep -oP 'Granted job allocation \K[0-9]+')
if [ -z "$JOB_ID" ]; then
    echo "ERROR: salloc failed to allocate a job"
    exit 1
fi
srun --jobid=$JOB_ID \
--container-mounts=$GITHUB_WORKSPACE:/workspace \
--container-workdir=/workspace \
--no-container-entrypoint --export=ALL \
bash "$BENCH_SCRIPT"
scancel $JOB_ID
