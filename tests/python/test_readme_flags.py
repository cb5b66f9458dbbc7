"""README.md's flag tables of iosc and iosrun are what scripts/cli_flags.py writes from the CLIs'
own option lists (--help-json): a flag added, renamed or reworded in tools/ without rewriting
the README fails here."""
import os

import pytest

import cli_flags


@pytest.fixture(scope="module")
def readme(source_dir):
    with open(os.path.join(source_dir, "README.md")) as f:
        return f.read()


# Flags the hand-written summaries had lost, and the hidden --help-json itself.
@pytest.mark.parametrize("tool, flag, listed", [
    ("iosc", "--strip-weights", True), ("iosc", "--list-ops", True),
    ("iosrun", "--max-streams", True), ("iosrun", "--weights", True),
    ("iosc", "--help-json", False), ("iosrun", "--help-json", False)])
def test_help_json_lists_the_visible_flags(tool, flag, listed, iosc, iosrun):
    binary = {"iosc": iosc, "iosrun": iosrun}[tool]
    names = {name for o in cli_flags.help_json(binary)["options"] for name in o["names"]}
    assert (flag in names) == listed


@pytest.mark.parametrize("tool", cli_flags.TOOLS)
def test_readme_flags_are_the_clis(tool, iosc, iosrun, readme):
    binary = {"iosc": iosc, "iosrun": iosrun}[tool]
    expected = cli_flags.render(tool, cli_flags.help_json(binary))
    assert cli_flags.section(readme, tool) == expected, (
        f"README.md's {tool} flags differ from `{tool} --help-json`: rewrite them with "
        "`python3 scripts/cli_flags.py`")
