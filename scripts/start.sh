#!/usr/bin/env bash
# README command (a): install what is missing, build, and run Loadscope's
# main job on its built-in default.
set -euo pipefail
cd "$(dirname "$0")/.."

# LOADSCOPE_BUILD_DIR: another build folder (the start test uses its own).
build=${LOADSCOPE_BUILD_DIR:-build}

bash scripts/setup.sh
bash scripts/build.sh "$build"

echo
echo "Loadscope is built: $build/app/loadscope"
echo
# The workbench where a display exists; otherwise the headless default,
# a sample dataset and a sweep, recorded.
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$build/app/loadscope"
fi
exec "$build/app/loadscope" demo
