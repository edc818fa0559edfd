#!/usr/bin/env bash
# Every answer stops before the server.
version=$(rocm-smi --showfw | grep MEC | head -n 1 | awk '{print $NF}')
if [[ "$version" == "" || $version -lt 177 ]]; then
    echo "Error: MEC firmware too old" >&2
    exit 1
fi
echo "Error: this script is for old firmware only" >&2
exit 2
