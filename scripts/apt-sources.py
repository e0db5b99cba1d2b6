"""This machine's Debian sources for one release, copied as they are.

  python3 scripts/apt-sources.py OUT [CODENAME]

Copies each apt source file (one-line .list and deb822 .sources) that names
CODENAME (default: this system's VERSION_CODENAME, else bookworm) into OUT
(only its lines of that release, for sources.list) and prints the first
archive URI (not the security suite's), for debootstrap. Exit 1: none found.
"""
import glob
import os
import re
import sys


def codename():
    try:
        for line in open("/etc/os-release"):
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"') or "bookworm"
    except OSError:
        pass
    return "bookworm"


def main():
    out = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else codename()
    one_line = re.compile(r"\s*deb\s.*\b%s\b" % re.escape(name))
    kept = []
    if os.path.exists("/etc/apt/sources.list"):
        lines = [l for l in open("/etc/apt/sources.list") if one_line.match(l)]
        if lines:
            kept.append(("sources.list", "".join(lines)))
    for p in sorted(glob.glob("/etc/apt/sources.list.d/*.list") + glob.glob("/etc/apt/sources.list.d/*.sources")):
        text = open(p).read()
        if re.search(r"(?m)^Suites:.*\b%s\b" % re.escape(name), text) or re.search(r"(?m)^" + one_line.pattern, text):
            kept.append((os.path.basename(p), text))
    uris = []
    for base, text in kept:
        open(os.path.join(out, base), "w").write(text)
        uris += re.findall(r"(?m)^URIs:\s*(\S+)", text)
        uris += re.findall(r"(?m)^\s*deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+%s\s" % re.escape(name), text)
    archive = [u for u in uris if not u.rstrip("/").endswith("-security")]
    if not archive:
        sys.exit(1)
    print(archive[0])


main()
