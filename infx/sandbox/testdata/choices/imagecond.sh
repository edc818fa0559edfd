#!/usr/bin/env bash
# A condition on a file of the container image, and the patch it guards.
SRC=/sgl-workspace/sglang/python/sglang/srt/managers/mixin.py
if ! sed -n '/begin/,/end/p' "$SRC" \
    | grep -q 'cached_tokens_details'; then
    sed -i '/cached_tokens=/a\    cached_tokens_details=None,' "$SRC"
fi
python3 -m sglang.launch_server --model-path m --tp 8
