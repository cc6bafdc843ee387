"""Every command's ``-h`` reads as help for a user: a usage line, a description, no markup, no developer notes.

The commands are taken from the dispatcher's own tables (:data:`referee.arguments.COMMANDS`, the autograder's
actions), so a command added later is checked too.  Each help is printed by the real ``main`` in this
process, with a terminal so wide that argparse wraps nothing: every option's help is one line, and a help
that ends in a colon ends its line with it.
"""
from __future__ import annotations

import re

import pytest

from referee.arguments import COMMANDS
from referee.cli import main
from referee.marking.cli import ACTIONS

#: Each command line whose help is checked: the game between two agents, every command, their actions.
HELPED = [[], *([name] for name in COMMANDS), ["serve", "tokens"], *(["autograde", action] for action in ACTIONS)]
#: What a user should never read: reST literals and roles, Markdown bold, a developers' note on the code's shape,
#: the games' internal word for their plug-in tables, Python's slang for a keyword argument.
JARGON = re.compile(r"``|:(mod|class|func|data|meth):`|\*\*|main\(argv|registration|kwarg")


def help_of(words: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The exit status and standard output of ``python -m referee WORDS -h``."""
    try:
        status = main([*words, "-h"])
    except SystemExit as exc:  # a command that lets argparse's exit through
        status = int(exc.code or 0)
    return status, capsys.readouterr().out


def entries(text: str) -> list[list[str]]:
    """Each entry of the help's sections (an option or argument, then its help's lines), as its lines.

    A section is a heading at the margin ending in ':' ("options:", "limits:") and the indented lines under it.
    """
    found: list[list[str]] = []
    in_section = False
    for line in text.splitlines():
        if not line.strip():
            in_section = False
        elif not line.startswith(" "):
            in_section = line.endswith(":")
        elif in_section and (len(line) - len(line.lstrip()) <= 4 or not found):
            found.append([line])  # argparse indents an entry by 2 (4 in a group), its help's lines further
        elif in_section:
            found[-1].append(line)
    return found


@pytest.mark.parametrize("words", [
    pytest.param(words, id=" ".join(words) or "RED BLUE") for words in HELPED
])
def test_every_commands_help_has_usage_and_a_description_in_plain_words(words, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # argparse reads the width from here: no line wrapped
    status, text = help_of(words, capsys)
    assert status == 0, text
    lines = text.splitlines()
    assert lines and lines[0].startswith("usage: python -m referee"), text
    # The description: the first paragraph after the usage (which may go on over indented lines), one line
    # of plain words ending a sentence, not a section's heading.
    after = lines.index("")
    description = lines[after + 1] if after + 1 < len(lines) else ""
    assert description[:1].isalpha() and description.endswith("."), f"no description line:\n{text}"
    assert not JARGON.search(text), f"{JARGON.search(text)[0]!r} in:\n{text}"
    items = entries(text)
    assert len(items) >= 2, f"no options found in:\n{text}"  # the check below must look at something
    for item in items:
        said = " ".join(" ".join(item).split()[1:])
        assert len(item) > 1 or "  " in item[0].strip(), f"an option without help: {item[0].strip()!r}"
        assert not item[-1].endswith(":"), f"a help ending in a colon: {said!r}"


def test_the_check_finds_a_dangling_colon_and_an_option_without_help():
    text = ("usage: x\n\nDoes x.\n\noptions:\n  -h, --help  show this\n  --seed SEED  as a tournament's options:\n"
            "  -c, --colour\n  --long-option-name VALUE\n                        its help\n")
    items = entries(text)
    assert [item[0].split()[0] for item in items] == ["-h,", "--seed", "-c,", "--long-option-name"]
    assert items[1][-1].endswith(":") and len(items[2]) == 1 and "  " not in items[2][0].strip()
    assert len(items[3]) == 2
