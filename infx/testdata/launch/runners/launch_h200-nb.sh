#!/usr/bin/bash
# Fixture: shape of runners/launch_h200-nb.sh (script path built inline).
export PORT=8888
MODEL_CODE="${EXP_NAME%%_*}"
FRAMEWORK_SUFFIX=$([[ "$FRAMEWORK" == "trt" ]] && printf '_trt' || printf '')
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
srun --partition=main --gres=gpu:$GPU_COUNT --exclusive --job-name="$RUNNER_NAME" \
--container-mounts=$GITHUB_WORKSPACE:/workspace/ \
--container-workdir=/workspace/ \
--no-container-entrypoint --export=ALL \
bash benchmarks/single_node/${SCENARIO_SUBDIR}${MODEL_CODE}_${PRECISION}_h200${FRAMEWORK_SUFFIX}${SPEC_SUFFIX}.sh
