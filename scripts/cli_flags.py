#!/usr/bin/env python3
"""Writes README.md's flag tables of iosc and iosrun from the CLIs' own option lists
(`iosc --help-json`, `iosrun --help-json`: CLI11's options, their types, defaults and help), each
between the markers `<!-- TOOL flags: ... -->` and `<!-- end of TOOL flags -->`.

    cli_flags.py [--build-dir build] [--readme README.md] [--check]

--check writes nothing and exits 1 when the README differs from what this writes.
tests/python/test_readme_flags.py checks that the committed README is what this writes.
"""
import argparse
import json
import os
import subprocess
import sys

from ios_tools.files import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ("iosc", "iosrun")


def begin_marker(tool):
    return f"<!-- {tool} flags: scripts/cli_flags.py writes them from `{tool} --help-json` -->"


def end_marker(tool):
    return f"<!-- end of {tool} flags -->"


def help_json(binary):
    """The CLI's options, as its --help-json prints them (a dict)."""
    result = subprocess.run([binary, "--help-json"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{binary} --help-json failed: {result.stderr}")
    return json.loads(result.stdout)


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def render(tool, options):
    """The README section (markers included) of `tool` from its --help-json (a dict)."""
    positionals = [o["names"][-1].upper() for o in options["options"] if o["positional"]]
    lines = [begin_marker(tool), "",
             f"`{' '.join([tool] + positionals)} [OPTIONS]` ({cell(options['description'])}):", "",
             "| flag | value | default | what it does |", "| --- | --- | --- | --- |"]
    for o in options["options"]:
        names = [n.upper() for n in o["names"]] if o["positional"] else o["names"]
        value = f"`{cell(o['value'])}`" if o["value"] else ""
        if o["repeatable"] and not o["positional"]:
            value += " (repeatable)"
        default = f"`{cell(o['default'])}`" if o["default"] else ""
        if o["required"]:
            default = "required"
        lines.append(f"| {', '.join(f'`{n}`' for n in names)} | {value} | {default} | "
                     f"{cell(o['description'])} |")
    lines += ["", end_marker(tool)]
    return "\n".join(lines)


def section(readme, tool):
    """The README's current section of `tool`, markers included (None when it has none)."""
    begin = readme.find(begin_marker(tool))
    end = readme.find(end_marker(tool), begin)
    if begin < 0 or end < 0:
        return None
    return readme[begin:end + len(end_marker(tool))]


def update(readme, tool, options):
    """`readme` with the section of `tool` rewritten."""
    current = section(readme, tool)
    if current is None:
        raise ValueError(f"README has no section between {begin_marker(tool)!r} and "
                         f"{end_marker(tool)!r}")
    return readme.replace(current, render(tool, options))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="the build whose tools/iosc and tools/iosrun run (default: build)")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the README differs")
    args = parser.parse_args()
    with open(args.readme) as f:
        readme = f.read()
    updated = readme
    try:
        for tool in TOOLS:
            updated = update(updated, tool, help_json(os.path.join(args.build_dir, "tools", tool)))
    except (RuntimeError, ValueError, OSError) as e:
        print(f"cli_flags: error: {e}", file=sys.stderr)
        return 2
    if args.check:
        if updated != readme:
            print(f"cli_flags: {args.readme}'s flag tables differ from the CLIs' (rewrite them: "
                  "python3 scripts/cli_flags.py)", file=sys.stderr)
            return 1
        return 0
    if updated != readme:
        write_atomically(args.readme, updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
