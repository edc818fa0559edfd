#!/bin/bash
# Re-render every shared/golden/srt-slurm/*.txt with render_oracle.py at the
# ref named in its file name and compare byte for byte.
# Usage: check_goldens.sh [GOLDEN_DIR] [CORPUS_DIR]
set -u
here="$(cd "$(dirname "$0")" && pwd)"
gdir="${1:-/work/shared/golden/srt-slurm}"
cdir="${2:-/work/shared/corpus/srt-slurm}"
mirror="${SRT_SLURM_MIRROR:-/work/.mirror/NVIDIA+srt-slurm/repo}"
pass=0; fail=0
for g in "$gdir"/*.txt; do
  base="$(basename "$g" .txt)"
  ref="$(echo "$base" | grep -oE '\.(v[0-9]+\.[0-9]+\.[0-9]+|[A-Za-z0-9][A-Za-z0-9_-]*)$' | cut -c2-)"
  [ "$ref" = main ] && ref=c88ef731
  label="$(head -1 "$g" | sed 's/^# recipe: //')"
  recipe="${label%%:*}"; sel=""; [ "$recipe" != "$label" ] && sel=":${label#*:}"
  wt="/tmp/srt-$(echo "$ref" | tr '/' '_')"
  if [ ! -d "$wt" ]; then git clone -q --shared "$mirror" "$wt" && git -C "$wt" checkout -q "$ref" || { rm -rf "$wt"; echo "bad ref $ref"; continue; }; fi
  if (cd "$wt" && PYTHONPATH=src /usr/bin/python3 "$here/render_oracle.py" "$cdir/$recipe$sel" --label "$label") > "/tmp/oracle-$base.txt" 2>"/tmp/oracle-$base.err" \
     && cmp -s "/tmp/oracle-$base.txt" "$g"; then
    echo "same  $base"; pass=$((pass+1))
  else
    echo "DIFF  $base  (diff /tmp/oracle-$base.txt $g)"; fail=$((fail+1))
  fi
done
echo "$pass byte-identical, $fail differ"
