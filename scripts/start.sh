#!/usr/bin/env bash
# README command (a): install what is missing, build, and run Loadscope's
# main job on its built-in default.
set -euo pipefail
cd "$(dirname "$0")/.."

# LOADSCOPE_BUILD_DIR: another build folder (the start test uses its own).
build=${LOADSCOPE_BUILD_DIR:-build}

bash scripts/setup.sh
bash scripts/build.sh "$build"

printf '\nLoadscope is built: %s\n\n' "$build/app/loadscope"
# The workbench where a display exists; otherwise the headless default,
# a sample dataset and a sweep, recorded.
[ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || exec "$build/app/loadscope"
exec "$build/app/loadscope" demo
