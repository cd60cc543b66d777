"""docs/cli.md shows the CLI's own help (one usage text): every ``usage: graphgen ...`` block
in it equals what ``graphgen [<command>] --help`` prints at 100 columns, and every command has
its block."""

import os
import re
import subprocess
import sys

import pytest

from tests.support import REPO_ROOT

COMMANDS = ("verilog", "test", "synth", "golden", "sim", "sweep", "programs", "report", "board",
            "run")


def _doc_blocks() -> dict[str | None, str]:
    text = (REPO_ROOT / "docs" / "cli.md").read_text()
    blocks = {}
    for block in re.findall(r"```\n(usage: graphgen.*?)```", text, re.S):
        words = block.split()
        command = words[2] if len(words) > 2 and words[2] in COMMANDS else None
        blocks[command] = block
    return blocks


def _help(command: str | None) -> str:
    args = [sys.executable, "-m", "graphgen.cli", *([command] if command else []), "--help"]
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=REPO_ROOT,
                          check=True).stdout


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_cli_md_shows_the_current_help(command):
    blocks = _doc_blocks()
    assert command in blocks, f"docs/cli.md has no help block of {command or 'graphgen'}"
    assert blocks[command].strip() == _help(command).strip(), \
        f"docs/cli.md's help of {command or 'graphgen'} differs from --help: paste the output " \
        f"of COLUMNS=100 python -m graphgen.cli {command or ''} --help"
