#!/usr/bin/env python3
"""Checks that the committed generated docs match the ones the build makes.

Usage: check-generated-docs.py BUILD_DOCS_DIR COMMITTED_DIR

BUILD_DOCS_DIR is where the `tgc-doc` target writes (build/docs); every
*.md file under it, recursively, must have an identical copy at the same
relative path under COMMITTED_DIR (docs/generated), and COMMITTED_DIR must
hold no *.md file that the build no longer makes. Run by the lit test
test/Docs/generated-docs-fresh.test; utils/update-generated-docs.sh
refreshes the committed copies.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

FIX = "docs/generated is stale: run utils/update-generated-docs.sh"
MAX_DIFF_LINES = 20


def markdown_files(root: Path) -> set[Path]:
    """Relative paths of the *.md files under root (CMake's own dirs skipped)."""
    if not root.is_dir():
        return set()
    return {
        path.relative_to(root)
        for path in root.rglob("*.md")
        if path.is_file() and "CMakeFiles" not in path.relative_to(root).parts
    }


def short_diff(committed: Path, built: Path, name: str) -> list[str]:
    old = committed.read_text(errors="replace").splitlines()
    new = built.read_text(errors="replace").splitlines()
    diff = list(
        difflib.unified_diff(
            old, new, f"committed/{name}", f"built/{name}", lineterm=""
        )
    )
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"... ({len(diff) - MAX_DIFF_LINES} more lines)"]
    return ["    " + line for line in diff]


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    built_dir, committed_dir = Path(argv[1]), Path(argv[2])

    built = markdown_files(built_dir)
    if not built:
        print(
            f"error: no generated docs (*.md) under {built_dir}: build the "
            "`tgc-doc` target first",
            file=sys.stderr,
        )
        return 1
    committed = markdown_files(committed_dir)

    problems: list[str] = []
    for name in sorted(built):
        copy = committed_dir / name
        if name not in committed:
            problems.append(f"  missing:  {copy}")
        elif copy.read_bytes() != (built_dir / name).read_bytes():
            problems.append(f"  differs:  {copy}")
            problems.extend(short_diff(copy, built_dir / name, name.as_posix()))
    for name in sorted(committed - built):
        problems.append(
            f"  obsolete: {committed_dir / name} (the build no longer makes it)"
        )

    if problems:
        print(f"error: {FIX}", file=sys.stderr)
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"docs/generated is up to date ({len(built)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
