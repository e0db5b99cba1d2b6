#!/usr/bin/env bash
# `--on ssh:HOST` and `--on exec:COMMAND` against a real sshd on 127.0.0.1
# (its own host key, config, port and authorized key, made here; no
# password login) and a command prefix that enters another root (a mount
# namespace with a chroot, made here). TAP output. Skipped, saying why,
# only when openssh-server or the namespace tools are missing.
#
#   bash tests/test-remote.sh BUILD/app/loadscope BUILD/loader/loadscope-worker [BUILD/tests/probe-standin]
#
# The bundle installed is a small one (the two executables and the
# bundle's wrappers; the libraries are the system's, as the target is this
# machine): tests/device/bundle.sh gathers 90 libraries, minutes here.
# LS_TEST_REMOTE_BUNDLE=DIR installs DIR (a real bundle) instead.
set -uo pipefail

loadscope=$(readlink -f "$1")
worker=$(readlink -f "$2")
standin=${3:+$(readlink -f "$3")} # speaks the PyTorch probe's protocol, torch or not
src=$(cd "$(dirname "$0")/.." && pwd)
sshd=/usr/sbin/sshd
for t in "$sshd" ssh ssh-keygen; do
  if ! command -v "$t" >/dev/null 2>&1; then
    echo "1..0 # SKIP openssh missing ($t not found): apt-get install openssh-server openssh-client (scripts/setup.sh --tests)"
    exit 0
  fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/ls-remote-test-XXXXXX")
export XDG_DATA_HOME=$T/xdg
unset LOADSCOPE_WORKER
finish () {
  [ -f "$T/sshd.pid" ] && kill "$(cat "$T/sshd.pid")" 2>/dev/null
  # Nothing of ours may outlive the test (checked below; this is the net).
  pkill -KILL -f "$T/" 2>/dev/null
  rm -rf "$T"
}
trap finish EXIT
trap 'exit 130' INT TERM

n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () {
  n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
  shift
  for f in "$@"; do [ -f "$f" ] && sed 's/^/# /' "$f"; done
}
check () { # name, command, files to show on failure...
  local name=$1; shift
  if eval "$1"; then ok "$name"; else shift; not_ok "$name" "$@"; fi
}
q () { "$loadscope" history --db "$1" --json; }
count () { q "$1" | grep -c "\"status\" : \"$2\""; }

echo "1..26"

# ---- the sshd: loopback only, its own key and config, keys only ----
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key" -C ls-test-host
ssh-keygen -q -t ed25519 -N '' -f "$T/user_key" -C ls-test-user
cp "$T/user_key.pub" "$T/authorized_keys"
port=$((20000 + RANDOM % 20000))
[ "$(id -u)" -eq 0 ] && mkdir -p /run/sshd # its privilege separation folder, as root
cat >"$T/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $T/host_key
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
SetEnv LOADSCOPE_REMOTE_CACHE=$T/ssh-target
CONF
"$sshd" -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$T/host_key.pub")" >"$T/known_hosts"
cat >"$T/ssh_config" <<CONF
Host lstarget
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $T/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $T/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
CONF
export LOADSCOPE_SSH_OPTIONS="-F $T/ssh_config"
for i in $(seq 50); do
  ssh -F "$T/ssh_config" -o BatchMode=yes lstarget true 2>/dev/null && break
  sleep 0.2
done
if ! ssh -F "$T/ssh_config" -o BatchMode=yes lstarget true 2>"$T/ssh.err"; then
  echo "Bail out! the test sshd on 127.0.0.1:$port does not let the test key in: $(tr '\n' ' ' <"$T/ssh.err" "$T/sshd.log")"
  exit 1
fi

# ---- the bundle ----
if [ -n "${LS_TEST_REMOTE_BUNDLE:-}" ]; then
  bundle=$LS_TEST_REMOTE_BUNDLE
else
  bundle=$T/bundle
  mkdir -p "$bundle/bin"
  cp "$loadscope" "$worker" "$bundle/bin/"
  printf 'export LOADSCOPE_WORKER="$here/bin/loadscope-worker"\nexport GSETTINGS_BACKEND=memory\n' >"$bundle/env.sh"
  mkdir -p "$bundle/share/loadscope/probe" # the PyTorch probe, as tests/device/bundle.sh puts it
  cp -r "$src/data/probe/loadscope_probe" "$bundle/share/loadscope/probe/"
  for e in loadscope loadscope-worker; do
    printf '#!/bin/sh\nhere=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 2\n. "$here/env.sh"\nexec "$here/bin/%s" "$@"\n' \
      "$e" >"$bundle/$e"
    chmod +x "$bundle/$e"
  done
fi
key=$("$loadscope" remote key)

# The data, on the target (this machine): a folder whose name a shell
# would run, and a canary that says whether it did.
mkdir -p "$T/home" && cd "$T/home"
hostile="$T/a b'c\$(touch X);d"
"$loadscope" make-dataset --format jpeg-dir --count 48 --size 64x64 "$hostile" >/dev/null 2>&1
knobs=(--batch-size 8 --batches 4 --sink sim --model-ms 1)

# 1-2: no bundle there yet: the run says so and names the command that fixes it.
"$loadscope" run --on ssh:lstarget --dataset "$hostile" "${knobs[@]}" --db "$T/local.sqlite" >"$T/a.out" 2>"$T/a.err"
rc=$?
check "a run on a target without the bundle exits 2" "[ $rc -eq 2 ]" "$T/a.out" "$T/a.err"
check "... saying the version is missing there and the command that installs it" \
  "grep -q 'has no Loadscope $key installed: run .loadscope remote install ssh:lstarget' '$T/a.err'" "$T/a.err"

# 3-4: remote install, checked by sha256, into the version's folder.
"$loadscope" remote install ssh:lstarget --bundle "$bundle" >"$T/i.out" 2>"$T/i.err"
rc=$?
check "remote install through ssh exits 0" "[ $rc -eq 0 ]" "$T/i.out" "$T/i.err"
check "... into the target's cache, under the version key, with the tar's sha256 kept" \
  "[ -x '$T/ssh-target/$key/loadscope' ] && [ \$(wc -c <'$T/ssh-target/$key/installed') -eq 65 ] \
   && grep -q 'loadscope 0' '$T/i.out'" "$T/i.out" "$T/i.err"

# 5: only another version there (an older Loadscope's): the message names
# the one it has, and the command that installs this one.
other=0.0.1-0123456789abcdef
mv "$T/ssh-target/$key" "$T/ssh-target/$other"
"$loadscope" run --on ssh:lstarget --dataset "$hostile" "${knobs[@]}" --db "$T/local.sqlite" >"$T/v.out" 2>"$T/v.err"
rc=$?
mv "$T/ssh-target/$other" "$T/ssh-target/$key"
check "a target with another version only: exit 2, the version it has named, and the command that fixes it" \
  "[ $rc -eq 2 ] && grep -q 'has no Loadscope $key installed (it has $other): run .loadscope remote install ssh:lstarget' '$T/v.err'" \
  "$T/v.err"

# 6-9: a sweep on the target, of the hostile folder, recorded here.
"$loadscope" sweep --on ssh:lstarget --dataset "$hostile" --workers 0,1 "${knobs[@]}" --db "$T/local.sqlite" \
  --json >"$T/s.out" 2>"$T/s.err"
rc=$?
check "sweep --on ssh: of a folder named a b'c\$(touch X);d exits 0" "[ $rc -eq 0 ]" "$T/s.out" "$T/s.err"
check "... and nothing in the name ran (no X anywhere)" \
  "[ ! -e '$T/home/X' ] && [ ! -e \"\$HOME/X\" ] && [ ! -e '$T/ssh-target/X' ] && [ ! -e '$T/X' ]"
check "... 2 runs done, recorded in the local store in one sweep" \
  "[ \"\$(count '$T/local.sqlite' done)\" -eq 2 ] && [ \"\$(q '$T/local.sqlite' | grep -c '\"sweep_id\" : 1')\" -eq 2 ]" \
  "$T/s.out" "$T/s.err"
target_host=$(ssh -F "$T/ssh_config" lstarget "'$T/ssh-target/$key/loadscope' machine --json" | sed -n 's/.*"hostname" *: *"\([^"]*\)".*/\1/p' | head -n 1)
check "... with the target's machine (its \`loadscope machine\` host name: $target_host)" \
  "[ -n '$target_host' ] && [ \"\$(q '$T/local.sqlite' | grep -c '\"machine\" : \"$target_host\"')\" -eq 2 ] \
   && '$loadscope' show 1 --db '$T/local.sqlite' --json | grep -c 'a b' >/dev/null" "$T/s.err"
# (the run's dataset path is the target's, recorded as given)

# 10: a run left on the target (--no-db here) comes home with collect.
"$loadscope" run --on ssh:lstarget --dataset "$hostile" "${knobs[@]}" --no-db >"$T/n.out" 2>"$T/n.err"
"$loadscope" remote collect ssh:lstarget --db "$T/local.sqlite" >"$T/c.out" 2>"$T/c.err"
rc=$?
check "remote collect brings home a run its connection did not" \
  "[ $rc -eq 0 ] && grep -q '1 run brought home' '$T/c.out' && [ \"\$(count '$T/local.sqlite' done)\" -eq 3 ]" \
  "$T/n.err" "$T/c.out" "$T/c.err"

# 11-12: a sweep of a PyTorch script on the target: the script and the
# interpreter are the target's paths, the probe comes with the bundle. The
# stand-in interpreter speaks the probe's protocol without torch; where
# python3 imports torch and torchvision, a real run of imagefolder.py too.
script="$T/tr a'in \$(touch Y);x.py"
printf 'print("train")\n' >"$script"
if [ -n "$standin" ]; then
  "$loadscope" sweep --on ssh:lstarget --target pytorch --script "$script" --python "$standin" \
    --script-args "--batches 4" --workers 0,1 --batches 4 --db "$T/script.sqlite" >"$T/p.out" 2>"$T/p.err"
  rc=$?
  check "sweep --on ssh: --target pytorch of a script named tr a'in \$(touch Y);x.py: 2 runs done, recorded here \
with the target's machine, nothing in the name ran" \
    "[ $rc -eq 0 ] && [ \"\$(count '$T/script.sqlite' done)\" -eq 2 ] \
     && [ \"\$(q '$T/script.sqlite' | grep -c '\"format\" : \"pytorch\"')\" -eq 2 ] \
     && [ \"\$(q '$T/script.sqlite' | grep -c '\"machine\" : \"$target_host\"')\" -eq 2 ] \
     && [ ! -e '$T/home/Y' ] && [ ! -e \"\$HOME/Y\" ] && [ ! -e '$T/Y' ]" "$T/p.out" "$T/p.err"
else
  echo "ok 11 # SKIP no probe stand-in given (the third argument)"
  n=$((n + 1))
fi
torch_python=
for p in ${LS_TEST_PYTHON:-} /usr/bin/python3 python3; do
  if "$p" -c 'import torch, torchvision' 2>/dev/null; then torch_python=$(command -v "$p"); break; fi
done
if [ -n "$torch_python" ]; then
  "$loadscope" make-dataset --format jpeg-dir --count 48 --size 64x64 "$T/imgs" >/dev/null 2>&1
  "$loadscope" sweep --on ssh:lstarget --target pytorch --script "$src/tests/pytorch/imagefolder.py" --python "$torch_python" \
    --script-args "$T/imgs" --workers 0,1 --batches 4 --db "$T/torch.sqlite" >"$T/t.out" 2>"$T/t.err"
  rc=$?
  check "... and of tests/pytorch/imagefolder.py under the target's $torch_python (torch): 2 runs done, recorded here" \
    "[ $rc -eq 0 ] && [ \"\$(count '$T/torch.sqlite' done)\" -eq 2 ]" "$T/t.out" "$T/t.err"
else
  echo "ok 12 # SKIP no python3 here imports torch and torchvision (python3-torch python3-torchvision; LS_TEST_PYTHON)"
  n=$((n + 1))
fi

# 13: run --diagnose on the target: its report comes back as printed
# there (--json here), its three passes recorded nowhere.
"$loadscope" run --on ssh:lstarget --dataset "$hostile" "${knobs[@]}" --diagnose --json --db "$T/diag.sqlite" \
  >"$T/d.out" 2>"$T/d.err"
rc=$?
check "run --on ssh: --diagnose --json: exit 0, the target's prepared, warm and cold passes, nothing recorded" \
  "[ $rc -eq 0 ] && grep -q '\"diagnose\"' '$T/d.out' && grep -q '\"prepared\"' '$T/d.out' && grep -q '\"cold\"' '$T/d.out' \
   && ! [ -s '$T/diag.sqlite' ] && ! ls '$T/ssh-target/$key/runs/' 2>/dev/null | grep -q ." "$T/d.out" "$T/d.err"

# 14-17: the transport killed mid-sweep.
"$loadscope" sweep --on ssh:lstarget --dataset "$hostile" --workers 0,1,2 --batch-size 8 --batches 400 --sink sim \
  --model-ms 25 --db "$T/kill.sqlite" >"$T/k.out" 2>"$T/k.err" &
sweep_pid=$!
killed=0
for i in $(seq 600); do
  # The first run is home and the second one's runner runs there.
  if [ "$(count "$T/kill.sqlite" done 2>/dev/null)" -ge 1 ] 2>/dev/null \
    && pgrep -f "$T/ssh-target/$key/bin/loadscope run" >/dev/null; then
    sleep 2
    pkill -KILL -f -- "-F $T/ssh_config.* lstarget -- 'sh'" && killed=1
    break
  fi
  sleep 0.1
done
wait $sweep_pid
rc=$?
check "killing ssh mid-sweep: the sweep stops with a failure (exit $rc)" "[ $killed -eq 1 ] && [ $rc -ne 0 ]" "$T/k.err"
check "... the first run kept, the current one recorded as interrupted, no third" \
  "[ \"\$(count '$T/kill.sqlite' done)\" -eq 1 ] && [ \"\$(count '$T/kill.sqlite' interrupted)\" -eq 1 ] \
   && [ \"\$(q '$T/kill.sqlite' | grep -c '\"uuid\"')\" -eq 2 ]" "$T/k.err"
check "... and the message says what was kept" \
  "grep -q 'ended during the run.*runs finished before it are kept, and this one is recorded as interrupted' '$T/k.err'" "$T/k.err"
left=1
for i in $(seq 50); do
  pgrep -f "$T/ssh-target" >/dev/null || { left=0; break; }
  sleep 0.2
done
check "... no Loadscope process left on the target" "[ $left -eq 0 ]" "$T/k.err"

# 18-19: Ctrl-C here ends the run there: recorded as interrupted, nothing left.
# A long run on the target in the background ($run_pid), 2 s after its
# runner started there.
start_long_run () { # db, output prefix
  "$loadscope" run --on ssh:lstarget --dataset "$hostile" --batch-size 8 --batches 400 --sink sim --model-ms 25 \
    --db "$1" >"$2.out" 2>"$2.err" &
  run_pid=$!
  for i in $(seq 600); do
    pgrep -f "$T/ssh-target/$key/bin/loadscope run" >/dev/null && break
    sleep 0.1
  done
  sleep 2
}
start_long_run "$T/cancel.sqlite" "$T/x"
kill -INT $run_pid
wait $run_pid
rc=$?
check "Ctrl-C on run --on: exit 1, the run recorded here as interrupted" \
  "[ $rc -eq 1 ] && [ \"\$(count '$T/cancel.sqlite' interrupted)\" -eq 1 ]" "$T/x.out" "$T/x.err"
left=1
for i in $(seq 50); do
  pgrep -f "$T/ssh-target" >/dev/null || { left=0; break; }
  sleep 0.2
done
check "... and nothing of it left running on the target" "[ $left -eq 0 ]" "$T/x.err"

# 20: this side SIGKILLed mid-run: the run there ends on its own (its
# input closes) and `remote collect` brings it home, interrupted.
start_long_run "$T/killed.sqlite" "$T/kk"
kill -KILL $run_pid
wait $run_pid 2>/dev/null
left=1
for i in $(seq 100); do
  pgrep -f "$T/ssh-target/$key/bin/loadscope run" >/dev/null || { left=0; break; }
  sleep 0.2
done
"$loadscope" remote collect ssh:lstarget --db "$T/killed.sqlite" >"$T/kc.out" 2>"$T/kc.err"
rc=$?
check "run --on SIGKILLed here: the run there ends by itself, and remote collect brings it home as interrupted" \
  "[ $left -eq 0 ] && [ $rc -eq 0 ] && [ \"\$(count '$T/killed.sqlite' interrupted)\" -eq 1 ]" "$T/kk.err" "$T/kc.out" \
  "$T/kc.err"

# 21: a prefix that never answers (a stopped container, a command waiting
# on the terminal) is ended after LOADSCOPE_REMOTE_ANSWER_S, and says so.
printf '#!/bin/sh\nexec sleep 6011\n' >"$T/hang"
chmod +x "$T/hang"
LOADSCOPE_REMOTE_ANSWER_S=2 "$loadscope" run --on "exec:$T/hang" --dataset /data --sink sim --db "$T/hang.sqlite" \
  >"$T/h.out" 2>"$T/h.err"
rc=$?
check "a prefix that never answers: exit 2, 'did not answer in 2 s', nothing recorded, its process ended" \
  "[ $rc -eq 2 ] && grep -q 'did not answer in 2 s' '$T/h.err' && ! pgrep -f 'sleep 6011' >/dev/null \
   && [ \"\$(q '$T/hang.sqlite' 2>/dev/null | grep -c '\"uuid\"')\" -eq 0 ]" "$T/h.err"

# 22: a command that is not streamed (collect's list, an install) is
# ended after LOADSCOPE_REMOTE_COMMAND_S too, and says so.
LOADSCOPE_REMOTE_COMMAND_S=2 "$loadscope" remote collect "exec:$T/hang" --db "$T/hang.sqlite" >"$T/hc.out" 2>"$T/hc.err"
rc=$?
LOADSCOPE_REMOTE_COMMAND_S=2 "$loadscope" remote install "exec:$T/hang" --bundle "$bundle" >"$T/hi.out" 2>"$T/hi.err"
rc2=$?
check "collect and install on a prefix that never answers: exit 2, 'did not finish in 2 s', its process ended" \
  "[ $rc -eq 2 ] && [ $rc2 -ne 0 ] && grep -q 'did not finish in 2 s' '$T/hc.err' && grep -q 'did not finish in 2 s' '$T/hi.err' \
   && ! pgrep -f 'sleep 6011' >/dev/null" "$T/hc.err" "$T/hi.err"

# 23-26: exec: a prefix that enters another root (a mount namespace and a
# chroot; the dataset and the cache are the root's paths).
R=$T/root
for d in usr lib lib64 bin sbin etc dev proc; do mkdir -p "$R/$d"; done
mkdir -p "$R/home" "$R/data" "$R/run"
: >"$R/run/.containerenv" # what podman puts in its containers
cat >"$T/enter-root" <<ENTER
#!/bin/sh
# Runs "\$@" in $R as /, like \`docker exec -i\`: stdin and stdout pass through.
exec unshare $([ "$(id -u)" -eq 0 ] || echo -r) -m sh -c '
  for d in usr lib lib64 bin sbin etc dev proc; do
    [ -e "/\$d" ] && mount --rbind "/\$d" "$R/\$d"
  done
  exec chroot "$R" env -i PATH=/usr/bin:/bin HOME=/home "\$@"' sh "\$@"
ENTER
chmod +x "$T/enter-root"
if ! "$T/enter-root" sh -c '[ -d /data ] && [ ! -e /root/ls-remote-test ]' 2>"$T/e.err"; then
  for i in 23 24 25 26; do echo "ok $i # SKIP no mount namespace and chroot here: $(tr '\n' ' ' <"$T/e.err")"; done
  exit $((failed > 0))
fi
"$loadscope" make-dataset --format jpeg-dir --count 32 --size 64x64 "$R/data/jpegs" >/dev/null 2>&1
# No --bundle: the bundle is made from this build (its copy of
# tests/device/bundle.sh), as a user of the package does it.
mkdir -p "$T/install-tmp"
env -u LOADSCOPE_REMOTE_BUNDLE TMPDIR="$T/install-tmp" "$loadscope" remote install "exec:$T/enter-root" >"$T/ei.out" 2>"$T/ei.err"
rc=$?
check "remote install through exec:, without --bundle: the bundle made here, into the root's own cache" \
  "[ $rc -eq 0 ] && grep -q 'making the bundle of this installation' '$T/ei.out' \
   && [ -x '$R/home/.cache/loadscope/remote/$key/loadscope' ] && [ -f '$R/home/.cache/loadscope/remote/$key/bundle-info.txt' ] \
   && [ -z \"\$(ls -A '$T/install-tmp')\" ]" "$T/ei.out" "$T/ei.err"
"$loadscope" sweep --on "exec:$T/enter-root" --dataset /data/jpegs --workers 0,1 "${knobs[@]}" --db "$T/exec.sqlite" \
  >"$T/es.out" 2>"$T/es.err"
rc=$?
check "sweep --on exec: of the root's /data/jpegs exits 0" "[ $rc -eq 0 ]" "$T/es.out" "$T/es.err"
"$loadscope" show 1 --db "$T/exec.sqlite" --json >"$T/show1.json" 2>&1 # shown on failure
check "... 2 runs recorded here, with the root's path, and its machine a podman container (its run/.containerenv), so History says '(podman)'" \
  "[ \"\$(count '$T/exec.sqlite' done)\" -eq 2 ] && '$loadscope' show 1 --db '$T/exec.sqlite' --json | grep -c '\"/data/jpegs\"' >/dev/null \
   && '$loadscope' show 1 --db '$T/exec.sqlite' --json | grep -c '\"container\" : \"podman\"' >/dev/null \
   && '$loadscope' history --db '$T/exec.sqlite' | grep -c ' (podman)' >/dev/null" \
  "$T/es.err" "$T/show1.json"
"$loadscope" run --on "exec:$T/enter-root" --dataset /nowhere "${knobs[@]}" --db "$T/exec.sqlite" >"$T/eb.out" 2>"$T/eb.err"
rc=$?
check "a bad dataset there: the target's runner's reason, exit 2, nothing recorded" \
  "[ $rc -eq 2 ] && grep -q '/nowhere' '$T/eb.err' && [ \"\$(q '$T/exec.sqlite' | grep -c '\"uuid\"')\" -eq 2 ]" "$T/eb.err"

exit $((failed > 0))
