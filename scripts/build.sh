#!/usr/bin/env bash
# Configures (once) and builds one build directory.
#   scripts/build.sh DIR [meson options...]
# An existing directory keeps its configuration; the options given are
# applied again so a changed option takes effect.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$1
shift
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" "$@" >/dev/null
else
  meson setup "$dir" "$@"
fi
meson compile -C "$dir"
