#!/usr/bin/env python3
"""Fails when a string a person reads is not ready for translation.

  check-translations.py SOURCE_ROOT

1. Every .ui file in ui/: each text property (label, title, subtitle,
   description, tooltip-text, placeholder-text, x-label, y-label, heading,
   body), menu label and GtkStringList <item> holding a letter says
   translatable="yes", or translatable="no" where it is an identifier the
   code reads back (a knob value such as "fork" or "staging").
2. Every .ui file is listed in po/POTFILES.in (else xgettext never sees it).
3. Every C file under app/ and ui/ (listed in po/POTFILES.in or not)
   passes no unmarked sentence to a printf-like call (printf, fprintf, g_strdup_printf, g_string_append_printf,
   g_strdup, fputs, g_set_error, ...): a string literal that is that call's
   own argument (not inside _(), N_() or ngettext) and holds two words in a
   row is reported with its line, unless a comment on its line or the line
   above says "untranslated" (English on purpose: the DataLoader line, a
   knob as typed). A heuristic: sentences built elsewhere (a table, a
   GOptionEntry) are not looked at. A sample with one unmarked sentence
   checks that the heuristic still finds it. A file with no text for a
   person (a parser, a driver) simply has no finding.
   And every C file under app/ and ui/ that marks a string (_(), N_() or
   ngettext(), outside comments and string literals) is listed in
   po/POTFILES.in, else xgettext never sees what it marks.
4. The strings xgettext finds now in the files of po/POTFILES.in are all
   translated in every po/LINGUAS catalogue: the catalogue merged with a
   fresh template (msgmerge), then `msgfmt --check --statistics` must say
   no fuzzy and no untranslated message.
5. No translation brings a markup character (<, > or &) that its English
   does not have: the report puts catalogue text into HTML as it is.

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


def po_entries(path):
    """(msgid + msgid_plural, [msgstr...]) of each message of a .po file."""
    entries, cur, field = [], None, None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        m = re.match(r'^(msgid|msgid_plural|msgstr(?:\[\d+\])?) "(.*)"$', line)
        if m:
            key, text = m.group(1), m.group(2)
            if key == "msgid":
                cur = {"id": "", "str": []}
                entries.append(cur)
            field = key
            if key.startswith("msgstr"):
                cur["str"].append("")
        elif line.startswith('"') and cur is not None:
            text = line[1:-1]
        else:
            field = None
            continue
        if field in ("msgid", "msgid_plural"):
            cur["id"] += text
        elif field and field.startswith("msgstr"):
            cur["str"][-1] += text
    return [(e["id"], e["str"]) for e in entries if e["id"]]

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


# Calls whose string argument is text a person reads.
PRINTF_LIKE = {"printf", "fprintf", "g_printf", "g_fprintf", "g_print", "g_printerr", "puts", "fputs",
               "g_strdup_printf", "g_strdup", "g_string_append_printf", "g_string_printf", "g_string_append",
               "g_snprintf", "g_set_error", "g_set_error_literal", "g_prefix_error", "g_option_context_new",
               "g_option_context_set_summary"}
MARKS = {"_", "N_", "C_", "NC_", "ngettext", "g_dngettext", "g_dgettext", "g_dpgettext2"}
SENTENCE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")
FORMAT_SPEC = re.compile(r"%[-+ #0-9.*'$]*(?:hh|h|ll|l|z|j|t|L|q)?[a-zA-Z%]")
# "loadscope sweep: %s\n": the program's name before a message said elsewhere
PROGRAM_PREFIX = re.compile(r"^loadscope [a-z-]+: ")


def unmarked_c_strings(text):
    """(line, literal) of each sentence passed unmarked to a printf-like call in C source TEXT."""
    found = []
    comments = {}  # line -> comment text on it
    stack = []     # one entry per open ( or {: the name of the call, or None
    i, n, line = 0, len(text), 1
    last_ident = None
    literal, literal_line, literal_call = None, 0, None

    def flush():
        nonlocal literal
        if literal is not None:
            words = FORMAT_SPEC.sub(" ", PROGRAM_PREFIX.sub("", literal))
            said = comments.get(literal_line, "") + comments.get(literal_line - 1, "")
            if literal_call in PRINTF_LIKE and SENTENCE.search(words) and "untranslated" not in said:
                found.append((literal_line, literal))
        literal = None

    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if at_line_start and c == "#":
            while i < n and text[i] != "\n":  # a preprocessor line (no continuation lines here)
                i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            body = text[i:end]
            for k, part in enumerate(body.split("\n")):
                comments[line + k] = comments.get(line + k, "") + part
            line += body.count("\n")
            i = end
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            comments[line] = comments.get(line, "") + text[i:end]
            i = end
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            piece = text[i + 1:j]
            if literal is None:  # adjacent literals are one
                literal, literal_line = piece, line
                literal_call = stack[-1] if stack else None
            else:
                literal += piece
            line += piece.count("\n")
            i = j + 1
            continue
        if c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            last_ident = text[i:j]
            if literal is not None and not last_ident.isupper():
                flush()  # an identifier such as G_GINT64_FORMAT continues a literal; others end it
            i = j
            continue
        if c.isspace():
            i += 1
            continue
        flush()
        if c == "(":
            stack.append(last_ident)
        elif c == "{":
            stack.append(None)
        elif c in ")}" and stack:
            stack.pop()
        last_ident = None
        i += 1
    flush()
    return found


MARK_CALL = re.compile(r"(?<![\w])(?:_|N_|ngettext)\s*\(")


def marks_strings(text):
    """Whether C source TEXT calls _(), N_() or ngettext() outside comments and literals."""
    code = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', " ", text, flags=re.S)
    return bool(MARK_CALL.search(code))


def c_files(top):
    """The .c files under TOP (relative to root, sorted)."""
    found = []
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        found += [os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/") for f in files if f.endswith(".c")]
    return sorted(found)


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

sample = 'static void f (int n) {\n  printf (_("%d done\\n"), n);\n  printf ("%d runs left\\n", n);\n' \
         '  /* untranslated: a knob as typed */\n  puts ("pin_memory=True is the nearest");\n' \
         '  fprintf (stderr, "loadscope sweep: %s\\n", "x");\n}\n'
hits = unmarked_c_strings(sample)
check([h[0] for h in hits] == [3], f"the unmarked-string check finds the one unmarked sentence of its sample: {hits}")
marking = [marks_strings(t) for t in ('x = _("a");', '/* _("a") */ x = "_(";', 'ngettext ("a", "b", n);')]
check(marking == [True, False, True], f"the marked-string check tells a call from a comment or a literal: {marking}")
c_sources = [f for f in potfiles if f.endswith(".c") and os.path.isfile(os.path.join(root, f))]
c_sources += [f for f in c_files("app") + c_files("ui") if f not in c_sources]
for f in c_sources:
    text = open(os.path.join(root, f), encoding="utf-8").read()
    bad = unmarked_c_strings(text)
    check(not bad, f"{f}: every sentence given to a printf-like call is marked" + ("" if not bad else
          ": not marked: " + "; ".join(f'line {l}: "{t[:50]}"' for l, t in bad[:8])
          + (f" (and {len(bad) - 8} more)" if len(bad) > 8 else "")))
    if marks_strings(text):
        check(f in potfiles, f"{f} marks strings for translation and is listed in po/POTFILES.in")

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
        markup = [msgid for msgid, strs in po_entries(merged)
                  if any(c in t and c not in msgid for t in strs for c in "<>&")]
        check(not markup, f"po/{lang}.po brings no <, > or & its English does not have"
              + ("" if not markup else ": " + "; ".join(markup[:5])))
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
