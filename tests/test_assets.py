"""The web pages' files under referee/*/assets/: every one the code reads is there and shipped, and each parses."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: HTML elements that have no end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def read_assets() -> dict[Path, Path]:
    """Each file a module reads with ``_asset("name")`` (its ``assets/name``), with the module."""
    found: dict[Path, Path] = {}
    for module in sorted((ROOT / "referee").rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_asset":
                name = node.args[0] if node.args else None
                # A literal name, so that this test sees every file the code can ask for.
                assert isinstance(name, ast.Constant) and isinstance(name.value, str), f"{module}:{node.lineno}"
                found[module.parent / "assets" / name.value] = module
    return found


def shipped() -> set[Path]:
    """The files pyproject.toml's ``[tool.setuptools.package-data]`` globs put in the package."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    files: set[Path] = set()
    for line in section.splitlines():
        entry = re.fullmatch(r'"?([\w.]+)"?\s*=\s*(\[.*\])', line.strip())
        if entry:
            folder = ROOT / entry[1].replace(".", "/")
            files |= {path for glob in ast.literal_eval(entry[2]) for path in folder.glob(glob) if path.is_file()}
    return files


def css_problem(text: str) -> str | None:
    """Why the braces of a stylesheet do not balance (comments and strings aside), or None."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', text)
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        for char in line:
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth < 0:
                return f"line {number}: a }} that closes nothing"
    return f"{depth} {{ never closed" if depth else None


class TagStack(HTMLParser):
    """Every element opened is closed, innermost first (void elements aside)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, int]] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.open.append((tag, self.getpos()[0]))

    def handle_endtag(self, tag: str) -> None:
        line = self.getpos()[0]
        if not self.open or self.open[-1][0] != tag:
            inner = f"<{self.open[-1][0]}> of line {self.open[-1][1]}" if self.open else "nothing"
            self.problems.append(f"line {line}: </{tag}> closes {inner}")
        else:
            self.open.pop()


def html_problem(text: str) -> str | None:
    """The first tag that does not balance, or None."""
    parser = TagStack()
    parser.feed(text)
    parser.close()
    parser.problems += [f"line {line}: <{tag}> never closed" for tag, line in parser.open]
    return parser.problems[0] if parser.problems else None


def js_problem(text: str) -> str | None:
    """A function declared twice at the top of a script (the second silently replaces the first), or None."""
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        declared = re.match(r"(?:async\s+)?function\s+([A-Za-z_$][\w$]*)", line)
        if declared:
            if declared[1] in seen:
                return f"line {number}: function {declared[1]} declared again (first on line {seen[declared[1]]})"
            seen[declared[1]] = number
    return None


def test_asset_files_are_there_shipped_and_well_formed():
    assets = read_assets()
    assert len(set(assets.values())) >= 5, "the pages' modules read their assets with _asset()"
    missing = [f"{path.relative_to(ROOT)} (read by {module.relative_to(ROOT)})"
               for path, module in assets.items() if not path.is_file()]
    assert not missing, "missing asset files: " + ", ".join(missing)
    unshipped = sorted(str(path.relative_to(ROOT)) for path in set(assets) - shipped())
    assert not unshipped, "not in pyproject.toml's package-data, so not installed: " + ", ".join(unshipped)
    unread = sorted(str(path.relative_to(ROOT)) for path in set((ROOT / "referee").glob("**/assets/*")) - set(assets))
    assert not unread, "asset files no module reads: " + ", ".join(unread)

    # The checks themselves catch what they are for.
    assert css_problem("a { color: red; ") and css_problem("a { } }") and not css_problem('a::after { content: "{" }')
    assert html_problem("<p><b>x</p></b>") and html_problem("<div>") and not html_problem("<p>a<br><input></p>")
    assert js_problem("function a() {}\nfunction b() {}\nfunction a(x) {}") and not js_problem("function a() {}")
    problems = []
    for path in sorted(assets):
        check = {".css": css_problem, ".html": html_problem, ".js": js_problem}.get(path.suffix)
        problem = check(path.read_text(encoding="utf-8")) if check else None
        if problem:
            problems.append(f"{path.relative_to(ROOT)}: {problem}")
    assert not problems, "\n".join(problems)

    scripts = sorted(path for path in assets if path.suffix == ".js")
    assert scripts
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the .js assets were not parsed (their CSS and HTML were checked)")
    for path in scripts:
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{path.relative_to(ROOT)} does not parse:\n{done.stderr}"
