package srtslurm

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// Dynamo install preambles, verbatim from srt-slurm's renderings
// (NVIDIA/srt-slurm src/srtctl/core/dynamo_install.py; golden files in
// ../shared/golden/srt-slurm). HASH and VERSION are placeholders.

// flockPre / flockPost wrap an install in the per-container flock and
// sentinel (every ref except sa-submission-q2-2026).
const flockPre = `DYN_LOCK_DIR="$(python3 -c 'import sys; print(sys.prefix)' 2>/dev/null || echo "${HOME:-/root}")" && ( flock -x 200; if [ -f "$DYN_LOCK_DIR/.srtctl_dynamo_install.complete" ]; then echo 'dynamo install already completed in this environment, skipping'; else { `

const flockPost = ` ; } && touch "$DYN_LOCK_DIR/.srtctl_dynamo_install.complete"; fi ) 200>"$DYN_LOCK_DIR/.srtctl_dynamo_install.lock"`

// hashCachedInstall builds dynamo at HASH once per /configs cache keyed
// KEY (HASH, or HASH-patch-<digest> with cargo_patches); PATCHES is where
// the Cargo.toml rewrites go (NVIDIA/srt-slurm src/srtctl/core/schema.py
// _hash_cached_source_install at c88ef731).
const hashCachedInstall = `echo 'Installing dynamo from source (HASH, /configs cache)...' && mkdir -p /configs/dynamo-wheels && ( flock -x 201; if [ ! -f /configs/dynamo-wheels/KEY/.complete ]; then apt-get update -qq && apt-get install -y -qq libclang-dev curl git protobuf-compiler > /dev/null 2>&1 && if ! command -v cargo &>/dev/null; then curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --default-toolchain stable -q && . $HOME/.cargo/env; fi && pip install --break-system-packages --force-reinstall --quiet maturin && DYN_BUILD_DIR=$(mktemp -d) && cd $DYN_BUILD_DIR && git clone https://github.com/ai-dynamo/dynamo.git && cd dynamo && git checkout HASH && PATCHEScd lib/bindings/python/ && export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native --cfg tokio_unstable" && rm -f /tmp/ai_dynamo_runtime*.whl && maturin build --release -o /tmp && mkdir -p /configs/dynamo-wheels/KEY && cp /tmp/ai_dynamo_runtime*.whl /configs/dynamo-wheels/KEY/ && cd $DYN_BUILD_DIR && tar --exclude='target' --exclude='.git' -czf /configs/dynamo-wheels/KEY/dynamo-src.tar.gz dynamo && touch /configs/dynamo-wheels/KEY/.complete && cd / && rm -rf $DYN_BUILD_DIR; fi ) 201>/configs/dynamo-wheels/.KEY.lock && pip install --break-system-packages --force-reinstall /configs/dynamo-wheels/KEY/ai_dynamo_runtime-*.whl && rm -rf /tmp/dynamo-src && mkdir -p /tmp/dynamo-src && tar -xzf /configs/dynamo-wheels/KEY/dynamo-src.tar.gz -C /tmp/dynamo-src && pip install --break-system-packages -e /tmp/dynamo-src/dynamo && echo 'Dynamo installed from source (HASH)'`

// hashLiveInstallSA is sa-submission-q2-2026's live source build.
const hashLiveInstallSA = `echo 'Installing dynamo from source (HASH)...' && if [ -d /sgl-workspace ]; then apt-get update -qq && apt-get install -y -qq libclang-dev > /dev/null 2>&1 && cd /sgl-workspace/ && git clone https://github.com/ai-dynamo/dynamo.git && cd dynamo && git checkout HASH && cd lib/bindings/python/ && export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native --cfg tokio_unstable" && maturin build -o /tmp && pip install /tmp/ai_dynamo_runtime*.whl && cd /sgl-workspace/dynamo/ && pip install -e . && cd /sgl-workspace/sglang/ && echo 'Dynamo installed from source (HASH)'; else if ! command -v cargo &> /dev/null || ! command -v maturin &> /dev/null; then apt-get update -qq && apt-get install -y -qq git curl libclang-dev protobuf-compiler > /dev/null 2>&1 && if ! command -v cargo &> /dev/null; then curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y && source $HOME/.cargo/env; fi && if ! command -v maturin &> /dev/null; then pip install --break-system-packages maturin; fi; fi && ORIG_DIR=$(pwd) && rm -rf /tmp/dynamo_build && mkdir -p /tmp/dynamo_build && cd /tmp/dynamo_build && git clone https://github.com/ai-dynamo/dynamo.git && cd dynamo && git checkout HASH && cd lib/bindings/python/ && export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native --cfg tokio_unstable" && rm -f /tmp/ai_dynamo_runtime*.whl && maturin build -o /tmp && pip install --break-system-packages /tmp/ai_dynamo_runtime*.whl --force-reinstall && cd /tmp/dynamo_build/dynamo/ && pip install --break-system-packages -e . && cd $ORIG_DIR && echo 'Dynamo installed from source (HASH)'; fi`

// hashInstall is the hash-pinned source install with its cache key and
// cargo patches (schema.py dynamo_source_cache_key,
// dynamo_cargo_patch_commands at c88ef731).
func hashInstall(hash string, patches []string) string {
	key := hash
	cmds := ""
	if len(patches) > 0 {
		sum := sha1.Sum([]byte("dep-override-v3\n" + strings.Join(patches, "\n")))
		key = hash + "-patch-" + hex.EncodeToString(sum[:])[:8]
		var cs []string
		for _, p := range patches {
			crate, _, _ := strings.Cut(p, "=")
			crate = strings.TrimSpace(crate)
			if crate == "" {
				continue
			}
			script := "s|^" + crate + "[[:space:]]*=.*|" + strings.ReplaceAll(p, "&", `\&`) + "|"
			cs = append(cs, "find . -name Cargo.toml -exec sed -i -E "+shellQuote(script)+" {} +")
		}
		if len(cs) > 0 {
			cmds = strings.Join(cs, " && ") + " && "
		}
	}
	r := strings.NewReplacer("KEY", key, "HASH", hash, "PATCHES", cmds)
	return r.Replace(hashCachedInstall)
}

// totInstall is the live source build at HEAD (schema.py
// _live_source_install_for_top_of_tree at c88ef731).
const totInstall = `echo 'Installing dynamo from source (HEAD)...' && if [ -d /sgl-workspace ]; then ` +
	`apt-get update -qq && apt-get install -y -qq libclang-dev curl protobuf-compiler > /dev/null 2>&1 && ` +
	`if ! command -v cargo &>/dev/null; then curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --default-toolchain stable -q && source $HOME/.cargo/env; fi && ` +
	`pip install --break-system-packages --force-reinstall --quiet maturin && ` +
	`cd /sgl-workspace/ && git clone https://github.com/ai-dynamo/dynamo.git && cd dynamo && cd lib/bindings/python/ && ` +
	`export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native --cfg tokio_unstable" && ` +
	`maturin build --release -o /tmp && pip install /tmp/ai_dynamo_runtime*.whl && cd /sgl-workspace/dynamo/ && pip install -e . && ` +
	`cd /sgl-workspace/sglang/ && echo 'Dynamo installed from source (HEAD)'; else ` +
	`if ! command -v cargo &> /dev/null || ! command -v maturin &> /dev/null; then ` +
	`apt-get update -qq && apt-get install -y -qq git curl libclang-dev protobuf-compiler > /dev/null 2>&1 && ` +
	`if ! command -v cargo &> /dev/null; then curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y && source $HOME/.cargo/env; fi; fi && ` +
	`pip install --break-system-packages --force-reinstall --quiet maturin && ` +
	`ORIG_DIR=$(pwd) && rm -rf /tmp/dynamo_build && mkdir -p /tmp/dynamo_build && cd /tmp/dynamo_build && ` +
	`git clone https://github.com/ai-dynamo/dynamo.git && cd dynamo && cd lib/bindings/python/ && ` +
	`export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native --cfg tokio_unstable" && ` +
	`rm -f /tmp/ai_dynamo_runtime*.whl && maturin build --release -o /tmp && ` +
	`pip install --break-system-packages /tmp/ai_dynamo_runtime*.whl --force-reinstall && ` +
	`cd /tmp/dynamo_build/dynamo/ && pip install --break-system-packages -e . && cd $ORIG_DIR && ` +
	`echo 'Dynamo installed from source (HEAD)'; fi`

// wheelInstall installs the staged ai-dynamo wheels of version w (schema.py
// DynamoConfig._build_install_commands, wheel branch, at c88ef731).
func wheelInstall(w string) string {
	name := "ai_dynamo-" + w + "-py3-none-any.whl"
	return "echo " + shellQuote("Installing ai-dynamo-runtime and ai-dynamo from wheel "+name+"...") + " && " +
		"if [ -f /srtctl-runtime/dynamo_wheels.py ]; then python3 /srtctl-runtime/dynamo_wheels.py install; " +
		"else echo 'ERROR: /srtctl-runtime/dynamo_wheels.py not found for ai-dynamo wheel install' >&2; exit 1; fi && " +
		"echo " + shellQuote("ai-dynamo-runtime and ai-dynamo install path completed for "+name)
}
