#!/usr/bin/env bash
# Fixture: tries to write outside the sandbox, then launches.
echo "owned" > "$TARGET"
echo "more" >> "$TARGET"
touch "$TARGET.touched"
cp /etc/hostname "$TARGET.copy"
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP"
