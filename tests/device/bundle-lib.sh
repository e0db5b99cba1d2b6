#!/usr/bin/env bash
# Shared libraries of a bundle, from the ELF files' DT_NEEDED entries (read
# with readelf; nothing is run), resolved as ld.so would.
#
#   bundle-lib.sh copy LIBDIR ELF...   copies everything they need, recursively,
#                                       into LIBDIR, except the C runtime
#   bundle-lib.sh verify DIR           checks that every DT_NEEDED of DIR/bin/*
#                                       and DIR/lib/* is in DIR/lib or the C
#                                       runtime; prints each miss, exit 1 if any
#
# The C runtime stays the device's own: glibc's libraries must all come from
# one glibc (they share private symbols), and libgcc_s/libstdc++ are on every
# system.
set -euo pipefail

C_RUNTIME='^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libgcc_s|libstdc\+\+)\.so(\.[0-9]+)*$|^ld-linux[-a-z0-9_.]*\.so(\.[0-9]+)*$'

is_c_runtime() { [[ "$1" =~ $C_RUNTIME ]]; }

needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# Folders of one dynamic tag (RPATH or RUNPATH), $ORIGIN expanded.
path_tag() {
  local origin
  origin=$(cd "$(dirname "$1")" && pwd)
  readelf -d "$1" 2>/dev/null | sed -n "s/.*($2).*\[\(.*\)\]$/\1/p" | tr ':' '\n' |
    sed -e "s|\\\$ORIGIN|$origin|g" -e "s|\\\${ORIGIN}|$origin|g"
}

# Whether a file is an ELF of the same class and machine as the reference.
elf_kind() { readelf -h "$1" 2>/dev/null | grep -E 'Class:|Machine:' | tr -s ' '; }
same_kind() {
  local a
  a=$(elf_kind "$1") && [ -n "$a" ] && [ "$a" = "$(elf_kind "$2")" ]
}

LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
CACHE=$("$LDCONFIG" -p 2>/dev/null || true)

# resolve NAME OBJECT: the path ld.so would load NAME from for OBJECT: the
# object's DT_RUNPATH (or without one its DT_RPATH), the ldconfig cache, then
# the default folders.
resolve() {
  local name=$1 obj=$2 dirs p
  dirs=$(path_tag "$obj" RUNPATH)
  [ -n "$dirs" ] || dirs=$(path_tag "$obj" RPATH)
  while read -r p; do
    [ -f "$p" ] && same_kind "$p" "$obj" && { echo "$p"; return 0; }
  done < <(
    awk -v n="$name" 'NF { print $0 "/" n }' <<<"$dirs"
    awk -v n="$name" '$1 == n { print $NF }' <<<"$CACHE"
    printf '%s\n' /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib |
      awk -v n="$name" '{ print $0 "/" n }'
  )
  return 1
}

copy() {
  local libdir=$1
  shift
  mkdir -p "$libdir"
  local queue=("$@") obj name path missing=0
  declare -A seen=()
  while [ ${#queue[@]} -gt 0 ]; do
    obj=${queue[0]}
    queue=("${queue[@]:1}")
    for name in $(needed "$obj"); do
      is_c_runtime "$name" && continue
      [ -n "${seen[$name]:-}" ] && continue
      seen[$name]=1
      if ! path=$(resolve "$name" "$obj"); then
        echo "bundle-lib: $name (needed by $obj) was not found" >&2
        missing=1
        continue
      fi
      # Under the name asked for (the soname), the file itself, not a link.
      cp -L "$path" "$libdir/$name"
      chmod u+w "$libdir/$name"
      # Resolve its own needs from where it was found ($ORIGIN, RUNPATH).
      queue+=("$path")
    done
  done
  return $missing
}

verify() {
  local dir=$1 f name bad=0 n=0
  [ -d "$dir/bin" ] && [ -d "$dir/lib" ] || { echo "bundle-lib: $dir has no bin/ and lib/" >&2; return 2; }
  for f in "$dir"/bin/* "$dir"/lib/*; do
    [ -f "$f" ] || continue
    readelf -h "$f" >/dev/null 2>&1 || continue # not an ELF file
    n=$((n + 1))
    for name in $(needed "$f"); do
      is_c_runtime "$name" || [ -f "$dir/lib/$name" ] && continue
      echo "bundle-lib: $name, needed by ${f#"$dir"/}, is neither in the bundle nor the C runtime" >&2
      bad=1
    done
  done
  echo "bundle-lib: $n ELF files checked in $dir"
  return $bad
}

case "${1:-}" in
  copy) shift; [ $# -ge 2 ] || { echo "usage: bundle-lib.sh copy LIBDIR ELF..." >&2; exit 2; }; copy "$@" ;;
  verify) [ $# -eq 2 ] || { echo "usage: bundle-lib.sh verify DIR" >&2; exit 2; }; verify "$2" ;;
  *) echo "usage: bundle-lib.sh copy LIBDIR ELF... | verify DIR" >&2; exit 2 ;;
esac
