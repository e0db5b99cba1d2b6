# Sourced by the scripts: messages tagged with the script's name. Set
# LS_TAG before sourcing (e.g. LS_TAG=fresh-check).
say() { echo "${LS_TAG:-loadscope}: $*"; }
die() { echo "${LS_TAG:-loadscope}: $*" >&2; exit 1; }
