"""This machine's Debian sources for one release: the one reader of apt's
sources for the scripts.

  python3 scripts/apt-sources.py OUT [CODENAME]
  python3 scripts/apt-sources.py --deb-src FILE CODENAME

The first copies each apt source file (one-line .list and deb822 .sources)
that names CODENAME (default: this system's VERSION_CODENAME, else bookworm)
into OUT (only its lines of that release, for sources.list) and prints the
first archive URI (not the security suite's), for debootstrap. Exit 1: none
found. The second writes FILE, a deb822 list of deb-src entries made from
this machine's entries of that release's suites (CODENAME, CODENAME-updates,
CODENAME-security, ...), with their URIs, components and keyrings: the
private source lists of scripts/windows/apt-source.sh. Exit status 1 with a
message when there is none.
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


def deb_src(out, name):
    entries = []  # (uris, suites, components, signed_by)

    def add(types, uris, suites, comps, signed):
        if "deb" not in types and "deb-src" not in types:
            return
        suites = [s for s in suites if s == name or s.startswith(name + "-") or s.startswith(name + "/")]
        if suites and uris:
            entries.append((uris, suites, comps or ["main"], signed))

    def one_line(path):
        for line in open(path, errors="replace"):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            typ, rest = parts[0], parts[1:]
            opts = {}
            if rest and rest[0].startswith("["):
                o = []
                while rest:
                    w = rest.pop(0)
                    o.append(w)
                    if w.endswith("]"):
                        break
                for kv in " ".join(o).strip("[]").split():
                    if "=" in kv:
                        k, v = kv.split("=", 1)
                        opts[k.lower()] = v
            if len(rest) >= 2:
                add([typ], [rest[0]], [rest[1]], rest[2:], opts.get("signed-by", ""))

    def deb822(path):
        for para in open(path, errors="replace").read().split("\n\n"):
            fields, key = {}, None
            for line in para.splitlines():
                if line.startswith("#") or not line.strip():
                    continue
                if line[0] in " \t" and key:
                    fields[key] += "\n" + line.strip()
                    continue
                if ":" in line:
                    key, v = line.split(":", 1)
                    key = key.strip().lower()
                    fields[key] = v.strip()
            if fields.get("enabled", "yes").lower() == "no":
                continue
            add(fields.get("types", "").split(), fields.get("uris", "").split(),
                fields.get("suites", "").split(), fields.get("components", "").split(),
                fields.get("signed-by", ""))

    if os.path.exists("/etc/apt/sources.list"):
        one_line("/etc/apt/sources.list")
    for p in sorted(glob.glob("/etc/apt/sources.list.d/*")):
        if p.endswith(".list"):
            one_line(p)
        elif p.endswith(".sources"):
            deb822(p)
    if not entries:
        sys.exit("no Debian %s entries in /etc/apt/sources.list{,.d}" % name)
    with open(out, "w") as f:
        for uris, suites, comps, signed in entries:
            f.write("Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n"
                    % (" ".join(uris), " ".join(suites), " ".join(comps)))
            if signed and "\n" not in signed:
                f.write("Signed-By: %s\n" % signed)
            f.write("\n")


def main():
    if sys.argv[1] == "--deb-src":
        deb_src(sys.argv[2], sys.argv[3])
        return
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
