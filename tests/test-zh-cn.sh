#!/usr/bin/env bash
# Loadscope in Simplified Chinese, TAP output:
#   1. under LANG=zh_CN.UTF-8 `loadscope sweep` prints its table with the
#      catalogue's headers (工作进程, 预取, 锁页), and every line of the table
#      has the same display width (wide characters count 2): aligned
#   2. the recommendation, the verdict (headline, findings, warnings) and
#      the sweep's summary line are Chinese, with none of their English
#      phrases left
#   3. its --json has the same keys and the same words as under LANG=C:
#      only numbers (measured, so they differ) and times may differ; the
#      same for `loadscope run --json`
#   4. `loadscope run` prints its verdict in Chinese and records it in
#      English (the store is never translated: `show --json` reads it back)
#   5. `loadscope demo` prints its table (aligned), recommendation and
#      verdict in Chinese, and `loadscope demo --help` says its summary in
#      Chinese
#   6. (where Xvfb, xwininfo and ImageMagick are) the window opens under
#      zh_CN.UTF-8, a CJK font is installed so its text has no empty boxes,
#      and screenshots are kept: ARTIFACTS/window-zh_CN.png (Setup),
#      window-zh_CN-results.png and window-zh_CN-history.png over the sweep
#      above; where chromium is, its screenshot of the sweep's report in
#      Chinese: ARTIFACTS/report-zh_CN.png (look at them)
# Skips where the locale is not generated (scripts/setup.sh --tests does it).
#
#   bash tests/test-zh-cn.sh BUILD/app/loadscope [ARTIFACTS]
set -uo pipefail
loadscope=$(readlink -f "$1")
if ! locale -a 2>/dev/null | grep -qix 'zh_CN.utf8'; then
  echo "1..0 # SKIP the zh_CN.UTF-8 locale is not generated (scripts/setup.sh --tests)"
  exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/ls-zh-XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
fails=0
check() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi; }
# 12 batches: enough measured after the warm-up for a verdict with findings.
sweep() { "$loadscope" sweep --dataset synthetic --workers 0,1 --batches 12 --db "$T/runs.sqlite" "$@" </dev/null; }
run() { "$loadscope" run --dataset synthetic --batches 12 "$@" </dev/null; }
# Whether stdin holds at least N (default 1) CJK characters, or with
# --each-line, whether every line holds one: python, not grep, whose ranges
# depend on the test's locale.
cjk() {
  python3 -c '
import re, sys
text = sys.stdin.read()
if sys.argv[1:] == ["--each-line"]:
    lines = [l for l in text.splitlines() if l.strip()]
    sys.exit(0 if lines and all(re.search(r"[\u4e00-\u9fff]", l) for l in lines) else 1)
sys.exit(0 if len(re.findall(r"[\u4e00-\u9fff]", text)) >= int((sys.argv[1:] or ["1"])[0]) else 1)' "$@"
}
# What the recommendation and verdict say in English (app/core/verdict*.c,
# recommend.c): none of it may be left under zh_CN.
english='Recommendation:|Verdict:|In PyTorch:|To try:|the best throughput|samples/s|simulated GPU|workers on|'\
'the machine was busy|memory grows|-bound|GPU busy|GPU idle|no verdict|workers spend|the batches are built|cores are idle'
# The same JSON apart from numbers, times, ids and paths (and no Chinese in
# the second): python3 -c "$same_json" C.json ZH.json
read -r -d '' same_json <<'PY'
import json, re, sys
def shape(v, measured=False):
    """Numbers, times, ids and paths out: what a translation could change
    stays. A verdict's sentences follow the figures (one run is loading-bound,
    the next copy-bound): only their keys and kinds of value stay."""
    if isinstance(v, dict):
        return {k: shape(x, measured or k == "verdict") for k, x in v.items()}
    if isinstance(v, list):
        return "list" if measured else [shape(x) for x in v]
    if measured and isinstance(v, str):
        return "text"
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return 0
    if re.match(r"^\d{4}-\d\d-\d\d[T ]", v) or re.match(r"^[0-9a-f-]{36}$", v) or "/" in v:
        return "T"
    return re.sub(r"\d+(\.\d+)?", "N", v)
c, zh = (shape(json.load(open(p, encoding="utf-8"))) for p in sys.argv[1:3])
if c != zh:
    a, b = json.dumps(c, sort_keys=True, ensure_ascii=False), json.dumps(zh, sort_keys=True, ensure_ascii=False)
    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), 0)
    print(f"# differs at: C {a[max(0, i - 60):i + 60]!r}\n#       zh_CN {b[max(0, i - 60):i + 60]!r}")
sys.exit(0 if c == zh and re.search(r"[\u4e00-\u9fff]", open(sys.argv[2], encoding="utf-8").read()) is None else 1)
PY

LANG=zh_CN.UTF-8 LC_ALL= LANGUAGE= sweep >"$T/zh.out" 2>"$T/zh.err"
check $? "LANG=zh_CN.UTF-8 loadscope sweep exits 0"
header=$(grep -n '工作进程' "$T/zh.out" | head -n 1)
[ -n "$header" ]; check $? "the table's header is Chinese (工作进程): ${header#*:}"
for word in 预取 锁页 状态; do
  grep -q "$word" <<<"$header"; check $? "the header says $word"
done
# Whether the table in file $1 (its header, the first line with 工作进程,
# 批大小 and 状态, and
# the rows after it up to the first blank or * line), of at least $2 lines,
# has one display width.
aligned() {
  python3 - "$1" "$2" <<'PY'
import sys, unicodedata
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = next(i for i, l in enumerate(lines) if all(w in l for w in ("工作进程", "批大小", "状态")))
table = [lines[start]]
for l in lines[start + 1:]:
    if not l or l.startswith("*"):
        break
    table.append(l)
width = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
widths = sorted({width(l) for l in table})
print(f"# table of {len(table)} lines, display widths {widths}")
sys.exit(0 if len(table) >= int(sys.argv[2]) and len(widths) == 1 else 1)
PY
}
aligned "$T/zh.out" 3
check $? "every line of the Chinese table has one display width (aligned)"

rec=$(grep '^建议：' "$T/zh.out")
cjk 3 <<<"${rec#建议：}"; check $? "the recommendation is Chinese: ${rec:0:90}"
verdict=$(grep '^结论：' "$T/zh.out")
cjk 3 <<<"${verdict#结论：}"; check $? "the verdict's headline is Chinese: ${verdict:0:90}"
# findings (-) and warnings (!) after the headline: each one Chinese
lines=$(sed -n '/^结论：/,/^$/p' "$T/zh.out" | grep -E '^  [-!] ')
cjk --each-line <<<"$lines"
check $? "each of the verdict's $(wc -l <<<"$lines") findings and warnings is Chinese"
left=$(sed -n '/^建议：/,$p' "$T/zh.out" | sed 's/DataLoader(.*//' | grep -E "$english")
[ -z "$left" ]; check $? "no English phrase of the recommendation or verdict is left${left:+: $left}"
grep -q "^扫描 [0-9]*：.*次完成" "$T/zh.err" && ! grep -q ' done, ' "$T/zh.err"
check $? "the sweep's summary line is Chinese: $(grep '^扫描' "$T/zh.err")"

# The demo as a new user runs it: its own sample dataset, store and charts.
mkdir -p "$T/demo"
LANG=zh_CN.UTF-8 XDG_CACHE_HOME="$T/demo/cache" XDG_DATA_HOME="$T/demo/data" "$loadscope" demo \
  >"$T/demo.out" 2>"$T/demo.err" </dev/null
check $? "LANG=zh_CN.UTF-8 loadscope demo exits 0"
aligned "$T/demo.out" 3
check $? "demo's table is Chinese (工作进程) and every line of it has one display width"
grep '^建议：' "$T/demo.out" | cjk 3 && grep '^结论：' "$T/demo.out" | cjk 3 &&
  [ -z "$(sed -n '/^建议：/,$p' "$T/demo.out" | sed 's/DataLoader(.*//' | grep -E "$english")" ]
check $? "demo's recommendation and verdict are Chinese, no English phrase of them left"

LANG=C sweep --json >"$T/c.json" 2>/dev/null
rc_c=$?
LANG=zh_CN.UTF-8 sweep --json >"$T/zh.json" 2>/dev/null
rc_zh=$?
[ "$rc_c" -eq 0 ] && [ "$rc_zh" -eq 0 ]; check $? "sweep --json exits 0 under LANG=C and zh_CN.UTF-8"
python3 -c "$same_json" "$T/c.json" "$T/zh.json"
check $? "--json under zh_CN.UTF-8 has the keys and words of LANG=C, and no Chinese"

LANG=C run --no-db --json >"$T/run-c.json" 2>/dev/null
rc_c=$?
LANG=zh_CN.UTF-8 run --no-db --json >"$T/run-zh.json" 2>/dev/null
rc_zh=$?
[ "$rc_c" -eq 0 ] && [ "$rc_zh" -eq 0 ] && python3 -c "$same_json" "$T/run-c.json" "$T/run-zh.json"
check $? "run --json (its verdict too) under zh_CN.UTF-8 has the keys and words of LANG=C, and no Chinese"

LANG=zh_CN.UTF-8 run --db "$T/one.sqlite" >"$T/run-zh.out" 2>&1
grep '^结论：' "$T/run-zh.out" | cjk 3; check $? "loadscope run prints its verdict in Chinese: $(grep '^结论' "$T/run-zh.out" | cut -c1-60)"
LANG=zh_CN.UTF-8 "$loadscope" show 1 --db "$T/one.sqlite" --json >"$T/shown.json" 2>/dev/null
python3 - "$T/shown.json" <<'PY'
import json, re, sys
v = json.load(open(sys.argv[1], encoding="utf-8")).get("verdict") or {}
text = json.dumps(v, ensure_ascii=False)
print(f"# recorded: {v.get('headline')!r}")
sys.exit(0 if v.get("headline") and v.get("findings") is not None and not re.search(r"[\u4e00-\u9fff]", text) else 1)
PY
check $? "the verdict it recorded is English (show --json reads it back from the store)"

# history: its head translated, padded by display width like its rows.
LANG=zh_CN.UTF-8 "$loadscope" history --db "$T/runs.sqlite" >"$T/history.out" 2>&1
grep -q '工作进程.*批大小.*状态' "$T/history.out" && aligned "$T/history.out" 3
check $? "history's head is Chinese and every line of its table has one display width"

LANG=zh_CN.UTF-8 "$loadscope" demo --help >"$T/help.out" 2>&1
grep -q '生成 JPEG 图像示例数据集' "$T/help.out"; check $? "loadscope demo --help says its summary in Chinese"
LANG=zh_CN.UTF-8 "$loadscope" run --help-all >"$T/run-help.out" 2>&1
grep -q -- '--workers=N .*工作进程数.*（默认 [0-9][0-9]*）' "$T/run-help.out" && grep -q '^合成数据集' "$T/run-help.out"
check $? "loadscope run --help-all gives its options' help in Chinese, the defaults filled in"

artifacts=${2:-}
if [ -n "$artifacts" ] && command -v xvfb-run >/dev/null && command -v xwininfo >/dev/null && command -v import >/dev/null; then
  [ -n "$(fc-list :lang=zh 2>/dev/null | head -n 1)" ]
  check $? "a font with Chinese characters is installed (fc-list :lang=zh; package fonts-wqy-microhei)"
  mkdir -p "$artifacts" "$T/home/.config/loadscope"
  # The window on each page (the page left last is the one it opens on:
  # its settings' last-page), over the sweep recorded above: Setup, then
  # Results with its charts and History with its runs.
  for page in setup results history; do
    shot=$(cd "$artifacts" && pwd)/window-zh_CN-$page.png
    [ "$page" = setup ] && shot=$(cd "$artifacts" && pwd)/window-zh_CN.png
    printf "[workbench]\nlast-page='%s'\n" "$page" >"$T/home/.config/loadscope/settings.ini"
    env -i PATH="$PATH" HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" LANG=zh_CN.UTF-8 GTK_A11Y=none \
      LOADSCOPE_DB="$T/runs.sqlite" SHOT="$shot" \
      xvfb-run -a -s "-screen 0 1400x1000x24" bash -c '
        "$0" >"$HOME/window.log" 2>&1 &
        app=$!
        found=
        for _ in $(seq 1 450); do
          xwininfo -root -tree 2>/dev/null | grep -q "\"Loadscope\": " && { found=1; break; }
          kill -0 "$app" 2>/dev/null || break
          sleep 0.2
        done
        [ -n "$found" ] && sleep 4 && import -window root "$SHOT"
        kill "$app" 2>/dev/null
        wait "$app" 2>/dev/null
        [ -n "$found" ]' "$loadscope"
    check $? "the window opens under LANG=zh_CN.UTF-8 on $page (screenshot $shot)"
  done
  # A report in Chinese, as headless Chromium draws it (where it is).
  chrome=$(command -v chromium || command -v chromium-browser || true)
  if [ -n "$chrome" ]; then
    shot=$(cd "$artifacts" && pwd)/report-zh_CN.png
    LANG=zh_CN.UTF-8 "$loadscope" report --sweep 1 --db "$T/runs.sqlite" -o "$T/report.html" >/dev/null 2>&1 &&
      cjk 20 <"$T/report.html" &&
      timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2000 \
        --user-data-dir="$T/chromium" --screenshot="$shot" "file://$T/report.html" >/dev/null 2>&1 &&
      [ -s "$shot" ]
    check $? "loadscope report under zh_CN.UTF-8 is Chinese, and Chromium draws it (screenshot $shot)"
  else
    echo "# the report in Chromium skipped: no chromium"
  fi
else
  echo "# the window in zh_CN skipped: no ARTIFACTS folder given, or no xvfb-run, xwininfo or import"
fi

echo "1..$n"
[ "$fails" -eq 0 ]
