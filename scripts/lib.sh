# Sourced by the scripts: messages tagged with the script's name. Set
# LS_TAG before sourcing (e.g. LS_TAG=fresh-check). warn is say on stderr,
# for scripts whose stdout is data (a path, a list).
say() { echo "${LS_TAG:-loadscope}: $*"; }
warn() { echo "${LS_TAG:-loadscope}: $*" >&2; }
die() { warn "$*"; exit 1; }
