"""The shared YAML reader and field checker (referee.yaml_file) on real files."""
from __future__ import annotations

from pathlib import Path

import pytest

from referee.yaml_file import (
    MAX_DEPTH, MAX_VALUES, Document, Problems, YamlFileError, check_fields, in_file_order, read_text, shown,
)

#: A few hundred bytes that stand for 10**9 values once the aliases are expanded.
BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(ord('a') + n)}: &{chr(ord('a') + n)} [" + ", ".join([f"*{chr(ord('a') + n - 1)}"] * 10) + "]\n"
    for n in range(1, 9)
)


def document(tmp_path: Path, text: str) -> Document:
    """The document of a real file holding ``text``, read as the commands read it."""
    path = tmp_path / "settings.yaml"
    path.write_text(text)
    return Document(path, read_text(path), kind="a test file", guide="docs/test.md")


def problems_of(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(YamlFileError) as caught:
        document(tmp_path, text)
    return caught.value.problems


def test_fields_are_placed_at_their_lines(tmp_path):
    doc = document(tmp_path, "name: x\nagents:\n  - spec: a\n  - {spec: b, options: {depth: 2}}\n")
    assert doc.data["agents"][1]["options"] == {"depth": 2}
    path = tmp_path / "settings.yaml"
    assert doc.where("agents", 1, "options", "depth") == f"{path}:4: agents[1].options.depth"
    assert doc.where("agents", 0, "spec") == f"{path}:3: agents[0].spec"
    # A field that is not in the file is placed at the nearest one that is.
    assert doc.where("agents", 0, "name") == f"{path}:3: agents[0].name"
    assert doc.where("seed") == f"{path}:1: seed"  # the document itself starts at line 1
    assert str(doc.fail(("name",), "too short")) == f"{path}:1: name: too short"


def test_invalid_yaml_names_the_line_and_column(tmp_path):
    [problem] = problems_of(tmp_path, "name: x\nagents: [a, b\nseed: 1\n")
    assert problem.startswith(f"{tmp_path / 'settings.yaml'}:3:5: not valid YAML: ")


def test_an_empty_file_is_sent_to_the_guide(tmp_path):
    assert problems_of(tmp_path, "# nothing yet\n") == [
        f"{tmp_path / 'settings.yaml'}: the file is empty; see docs/test.md for the fields"
    ]


def test_a_field_given_twice_is_a_problem_not_a_silent_overwrite(tmp_path):
    doc = document(tmp_path, "seed: 1\nname: x\nseed: 2\n")
    assert doc.problems == [f"{tmp_path / 'settings.yaml'}:3: seed: given twice"]


def test_an_alias_bomb_is_refused_while_composing(tmp_path):
    [problem] = problems_of(tmp_path, BILLION_LAUGHS)
    assert f"holds more than {MAX_VALUES} values once its aliases (*name) are expanded" in problem
    assert "a test file never needs so many" in problem


def test_a_few_aliases_are_fine(tmp_path):
    doc = document(tmp_path, "base: &base {depth: 2}\nagents: [{spec: a, options: *base}]\n")
    assert doc.data["agents"][0]["options"] == {"depth": 2}


def test_an_alias_inside_what_it_names_and_deep_nesting_are_refused(tmp_path):
    [endless] = problems_of(tmp_path, "a: &a [1, *a]\n")
    assert endless == (f"{tmp_path / 'settings.yaml'}:1: the alias *a is used inside the value it names, "
                       "which would make an endless structure; a test file cannot use that")
    [deep] = problems_of(tmp_path, "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n")
    assert f"nested more than {MAX_DEPTH} deep" in deep


def test_unknown_fields_are_all_named_with_the_field_meant(tmp_path):
    doc = document(tmp_path, "seed: 1\ntime_limt: 3\nopponents:\n  - {spce: x}\nzzz: 1\n")
    problems = Problems(doc.problems)
    problems.check(lambda: check_fields(doc, (), doc.data, ("seed", "time_limit", "opponents")), None)
    problems.check(lambda: check_fields(doc, ("opponents", 0), doc.data["opponents"][0], ("spec", "name")), None)
    path = tmp_path / "settings.yaml"
    assert in_file_order(problems.messages, path) == [
        f"{path}:2: time_limt: unknown field (did you mean 'time_limit'?)",
        f"{path}:4: opponents[0].spce: unknown field (did you mean 'spec'?)",
        f"{path}:5: zzz: unknown field (known: seed, time_limit, opponents)",
    ]
    with pytest.raises(YamlFileError):
        problems.raise_any()


def test_a_missing_file_names_the_one_meant(tmp_path):
    (tmp_path / "scheme.yml").write_text("seed: 1\n")
    with pytest.raises(YamlFileError, match=r"scheme\.yaml: no such file \(did you mean .*scheme\.yml\?\)"):
        read_text(tmp_path / "scheme.yaml")
    with pytest.raises(YamlFileError, match=r"nothing\.yaml: no such file$"):
        read_text(tmp_path / "nothing.yaml")
    (tmp_path / "latin1.yaml").write_bytes(b"name: caf\xe9\n")
    with pytest.raises(YamlFileError, match="cannot be read"):
        read_text(tmp_path / "latin1.yaml")


@pytest.mark.parametrize("value, text", [
    (None, "empty"), (True, "true (a boolean)"), ({}, "a mapping"), ([1], "a list"), ("x", "'x'"), (3, "3"),
])
def test_values_are_named_as_a_person_wrote_them(value, text):
    assert shown(value) == text
