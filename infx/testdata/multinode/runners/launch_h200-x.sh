#!/usr/bin/bash
# Fixture launcher: the srt-slurm part of InferenceX runners/launch_*.sh.
SRT_REPO_DIR="srt-slurm"
if [ -d "$SRT_REPO_DIR" ]; then
    rm -rf "$SRT_REPO_DIR"
fi
if [[ $MODEL_PREFIX == "m1" ]]; then
    git clone --branch v1.0.44 --single-branch https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    test "$(git rev-parse HEAD)" = "04e87fcc505d6d851451781a5499ca19a02ec2b4" || { echo "unexpected commit" >&2; exit 1; }
    mkdir -p recipes/sglang/m1/agentic
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic" recipes/sglang/m1/agentic
else
    git clone https://github.com/someone/srt-slurm-fork.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout 0123456789abcdef0123456789abcdef01234567 || exit 1
fi
curl -LsSf https://astral.sh/uv/install.sh | sh
if ! command -v srtctl &> /dev/null; then
    echo "Error: Failed to install srtctl"
    exit 1
fi
SQUASH_FILE="/squash/$(echo "$IMAGE" | sed 's/[\/:@#]/_/g').sqsh"
cat > srtslurm.yaml <<EOF
containers:
  dynamo-sglang: "${SQUASH_FILE}"
  "${IMAGE}": "${SQUASH_FILE}"
EOF
sed -i '/^  dynamo-sglang:/a\  nginx-sqsh: /squash/nginx_1.27.4.sqsh' srtslurm.yaml
grep -q '^  nginx-sqsh: ' srtslurm.yaml || exit 1
make setup ARCH=x86_64 || exit 1
CONFIG_PATH="${CONFIG_FILE%%:*}"
if [[ ! -f "$CONFIG_PATH" ]]; then
    echo "Error: CONFIG_FILE does not exist: $CONFIG_PATH" >&2
    exit 1
fi
sed -i "s/^name:.*/name: \"${RUNNER_NAME}\"/" "$CONFIG_PATH"
sed -i '/^      watchdog-timeout:/a\      dist-timeout: 1800' "$CONFIG_PATH"
( flock -w 600 9 || exit 1; echo locked ) 9>"/tmp/srt.lock"
SRTCTL_OUTPUT=$(srtctl apply -f "$CONFIG_FILE" --setup-script install-extras.sh --tags "h200,${MODEL_PREFIX}" 2>&1)
echo "$SRTCTL_OUTPUT"
JOB_ID=$(echo "$SRTCTL_OUTPUT" | grep -oP 'Job \K[0-9]+')
[ -z "$JOB_ID" ] && exit 1
