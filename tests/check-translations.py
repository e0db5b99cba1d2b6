#!/usr/bin/env python3
"""Fails when a string a person reads is not ready for translation.

  check-translations.py SOURCE_ROOT

1. Every .ui file in ui/: each text property (label, title, subtitle,
   description, tooltip-text, placeholder-text, x-label, y-label, heading,
   body), menu label and GtkStringList <item> holding a letter says
   translatable="yes", or translatable="no" where it is an identifier the
   code reads back (a knob value such as "fork" or "staging").
2. Every .ui file is listed in po/POTFILES.in (else xgettext never sees it).
3. The strings xgettext finds now in the files of po/POTFILES.in are all
   translated in every po/LINGUAS catalogue: the catalogue merged with a
   fresh template (msgmerge), then `msgfmt --check --statistics` must say
   no fuzzy and no untranslated message.

Prints TAP; exits 1 on any failure.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TEXT_PROPS = {"label", "title", "subtitle", "description", "tooltip-text", "placeholder-text",
              "x-label", "y-label", "heading", "body"}
LETTER = re.compile(r"[^\W\d_]", re.UNICODE)

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
results = []


def check(ok, what):
    results.append((ok, what))


def unmarked_ui_texts(path):
    """(line-less) descriptions of the text elements of PATH without translatable."""
    bad = []
    for el in ET.parse(path).getroot().iter():
        name = el.get("name")
        is_text = (el.tag == "property" and name in TEXT_PROPS) or \
                  (el.tag == "attribute" and name == "label") or el.tag == "item"
        if not is_text or not el.text or not LETTER.search(el.text):
            continue
        if el.get("translatable") not in ("yes", "no"):
            bad.append(f'<{el.tag} name="{name}">{el.text.strip()[:40]}')
    return bad


potfiles_path = os.path.join(root, "po", "POTFILES.in")
potfiles = [l.strip() for l in open(potfiles_path, encoding="utf-8")
            if l.strip() and not l.lstrip().startswith("#")]
ui_dir = os.path.join(root, "ui")
for f in sorted(os.listdir(ui_dir)):
    if not f.endswith(".ui"):
        continue
    bad = unmarked_ui_texts(os.path.join(ui_dir, f))
    check(not bad, f"ui/{f}: every text marked translatable" + ("" if not bad else
          ": not marked: " + "; ".join(bad[:8]) + (f" (and {len(bad) - 8} more)" if len(bad) > 8 else "")))
    check(f"ui/{f}" in potfiles, f"ui/{f} is listed in po/POTFILES.in")
for f in potfiles:
    check(os.path.isfile(os.path.join(root, f)), f"po/POTFILES.in: {f} exists")

# A fresh template, as the loadscope-pot target makes it (meson's glib preset).
keywords = ["--keyword=_", "--keyword=N_", "--keyword=C_:1c,2", "--keyword=NC_:1c,2",
            "--keyword=g_dngettext:2,3", "--keyword=ngettext:1,2"]
with tempfile.TemporaryDirectory() as tmp:
    pot = os.path.join(tmp, "loadscope.pot")
    r = subprocess.run(["xgettext", "--package-name=loadscope", "--from-code=UTF-8", "--add-comments",
                        "-D", root, "-f", potfiles_path, "-o", pot] + keywords,
                       capture_output=True, text=True)
    check(r.returncode == 0 and os.path.exists(pot), "xgettext makes a template from po/POTFILES.in"
          + ("" if r.returncode == 0 else ": " + r.stderr.strip()[-400:]))
    linguas = [l for line in open(os.path.join(root, "po", "LINGUAS"), encoding="utf-8")
               for l in line.split("#")[0].split()]
    for lang in linguas:
        po = os.path.join(root, "po", lang + ".po")
        if not os.path.exists(pot):
            break
        merged = os.path.join(tmp, lang + ".po")
        m = subprocess.run(["msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged, po, pot],
                           capture_output=True, text=True)
        if m.returncode != 0:
            check(False, f"po/{lang}.po merges with the template: {m.stderr.strip()[-400:]}")
            continue
        s = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, merged],
                           capture_output=True, text=True)
        stats = s.stderr.strip()
        complete = s.returncode == 0 and "fuzzy" not in stats and "untranslated" not in stats
        check(complete, f"po/{lang}.po translates every marked string: {stats}")
        # what is missing, so the failure says which strings
        if not complete:
            u = subprocess.run(["msgattrib", "--untranslated", "--no-obsolete", merged],
                               capture_output=True, text=True).stdout
            f = subprocess.run(["msgattrib", "--only-fuzzy", "--no-obsolete", merged],
                               capture_output=True, text=True).stdout
            for msgid in re.findall(r'(?m)^msgid "(.+)"$', u + f)[:10]:
                print(f"# missing: {msgid}")

print(f"1..{len(results)}")
for i, (ok, what) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {what}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
