"""Apply French typography to the guide's Markdown, outside code and front matter.

    python scripts/fr_typography.py --check corpus/   # list the files to fix, exit 1 if any
    python scripts/fr_typography.py --write corpus/   # fix them in place

Uses ``assistant.typography.fr_typography`` (the rules the viewer and the answers apply):
U+202F before ``; ? !``, U+00A0 before ``:`` and inside « ». The YAML front matter is left
as it is, and so is the chapter's ``# title`` line: ``ingest`` requires it to equal the
front matter's ``title`` and ``plan.yaml`` (the viewer and the answers typeset titles when
they show them). Idempotent: a second ``--write`` changes nothing.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.typography import fr_typography  # noqa: E402


def fix(text: str) -> str:
    """The file's text with the body typeset; the front matter (``---`` … ``---``) kept."""
    head, body = "", text
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end >= 0:
            cut = text.find("\n", end + 4)
            cut = len(text) if cut < 0 else cut + 1
            head, body = text[:cut], text[cut:]
            title = re.match(r"\n*# [^\n]*\n", body)
            if title:
                head, body = head + title.group(0), body[title.end():]
    return head + fr_typography(body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="list the files that need fixing")
    mode.add_argument("--write", action="store_true", help="fix the files in place")
    parser.add_argument("corpus", type=Path)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"fr_typography : « {args.corpus} » n'est pas un dossier.", file=sys.stderr)
        return 2
    changed = []
    for path in sorted(args.corpus.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        new = fix(text)
        if new != text:
            changed.append(path)
            if args.write:
                path.write_text(new, encoding="utf-8")
    plural = "s" if len(changed) > 1 else ""
    verb = f"corrigé{plural}" if args.write else "à corriger"
    for path in changed:
        print(f"{'corrigé' if args.write else 'à corriger'}\u00a0: {path}")
    print(f"{len(changed)} fichier{plural} {verb}.")
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
