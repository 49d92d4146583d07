#!/usr/bin/env python3
# Checks the references to the docs:
#   - every `[text](target)` in README.md, python-free-docs/*.md and
#     bench/**/*.md whose target is a path (not a URL or a bare #anchor)
#     names a file or folder that exists, relative to the page;
#   - every `python-free-docs/<page>.md` named in the sources, scripts, tests
#     and docs names a page that exists.
# Prints each broken reference as FILE:LINE: target, exits 1 if any.
# Run by test/Docs/doc-links.test. Python 3 standard library only.
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# Not after "/": a path into another tree (a test's %t/python-free-docs/).
DOC_PATH = re.compile(r"(?<![\w/])python-free-docs/[\w./-]+\.md")
SOURCE_DIRS = ["dialects", "include", "lib", "tools", "test", "scripts",
               "bench", "examples", "python", "python-free-docs", ".ci"]
SOURCE_SUFFIXES = {".cpp", ".h", ".c", ".td", ".py", ".sh", ".md", ".mlir",
                   ".test", ".txt", ""}


def pages(root):
    yield root / "README.md"
    yield from sorted((root / "python-free-docs").glob("**/*.md"))
    yield from sorted((root / "bench").glob("**/*.md"))


def broken_links(page):
    in_code = False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if not (page.parent / path).exists():
                yield number, target


def sources(root):
    yield root / "README.md"
    for folder in SOURCE_DIRS:
        for path in sorted((root / folder).glob("**/*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path


def missing_pages(root, source):
    try:
        text = source.read_text()
    except UnicodeDecodeError:
        return
    for number, line in enumerate(text.splitlines(), 1):
        for name in DOC_PATH.findall(line):
            if not (root / name).exists():
                yield number, name


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    failures = 0
    for page in pages(root):
        for number, target in broken_links(page):
            print(f"{page.relative_to(root)}:{number}: no such file: {target}")
            failures += 1
    for source in sources(root):
        for number, name in missing_pages(root, source):
            print(f"{source.relative_to(root)}:{number}: no such page: {name}")
            failures += 1
    print(f"{failures} broken link(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
