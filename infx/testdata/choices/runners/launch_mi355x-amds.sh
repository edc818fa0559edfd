#!/usr/bin/bash
# Fixture: shape of runners/launch_mi355x-amds.sh (script path built inline).
export PORT=8888
MODEL_CODE="${EXP_NAME%%_*}"
srun --partition=main --gres=gpu:$GPU_COUNT --exclusive --job-name="$RUNNER_NAME" \
--container-mounts=$GITHUB_WORKSPACE:/workspace/ \
--container-workdir=/workspace/ \
--no-container-entrypoint --export=ALL \
bash benchmarks/single_node/${SCENARIO_SUBDIR}${MODEL_CODE}_${PRECISION}_mi355x.sh
