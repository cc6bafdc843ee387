"""games.jsonl on disk: whole lines, torn tails repaired, bad lines named."""
from __future__ import annotations

import pytest

from referee.tournament.journal import FolderLock, GamesFile, JournalError

from .fakes import make_record


def test_append_writes_whole_lines_that_read_back(tmp_path):
    games = GamesFile(tmp_path / "games.jsonl")
    records = [make_record("a", "b", "RED"), make_record("b", "a", None)]
    for record in records:
        games.append(record)
    games.close()
    data = (tmp_path / "games.jsonl").read_bytes()
    assert data.count(b"\n") == 2 and data.endswith(b"\n")
    assert list(games.records()) == records


def test_a_torn_last_line_is_ignored_then_cut_off(tmp_path):
    path = tmp_path / "games.jsonl"
    whole = make_record("a", "b", "RED").to_json() + "\n"
    path.write_text(whole + whole[: len(whole) // 2])  # killed in the middle of a write
    games = GamesFile(path)
    assert len(list(games.records())) == 1
    assert games.torn_tail() == len(whole) // 2
    assert games.repair() == len(whole) // 2
    assert path.read_text() == whole
    assert games.repair() == 0


def test_a_file_holding_only_a_torn_line(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text('{"game": "inf')
    assert GamesFile(path).repair() == 13 and path.read_bytes() == b""


def test_a_bad_line_in_the_middle_is_an_error_naming_it(tmp_path):
    path = tmp_path / "games.jsonl"
    good = make_record("a", "b", "RED").to_json()
    path.write_text(f"{good}\nnot json\n{good}\n")
    with pytest.raises(JournalError, match=r"games\.jsonl:2: not a game record"):
        list(GamesFile(path).records())


def test_the_folder_lock_is_exclusive(tmp_path):
    with FolderLock(tmp_path / "out"):
        with pytest.raises(JournalError, match="another tournament is writing"):
            FolderLock(tmp_path / "out").acquire()
    with FolderLock(tmp_path / "out"):
        pass  # released


def test_a_torn_line_written_by_someone_else_is_cut_off_before_the_next_append(tmp_path):
    path = tmp_path / "games.jsonl"
    games = GamesFile(path)
    first, second = make_record("a", "b", "RED"), make_record("b", "a", None)
    assert games.append(first) is None
    with open(path, "ab") as other:  # another writer, between two of our appends
        other.write(b"xxxxx")
    trimmed = games.append(second)
    assert trimmed is not None and trimmed.size == 5 and "5 bytes without a newline (b'xxxxx')" in trimmed.describe()
    games.close()
    # The next record got a line of its own instead of being glued to the junk.
    assert list(games.records()) == [first, second]


def test_lines_that_are_not_records_are_listed_by_number(tmp_path):
    path = tmp_path / "games.jsonl"
    good = make_record("a", "b", "RED").to_json()
    path.write_text(f"{good}\n\nnot json\n{good}\n{good[:9]}")
    entries = [(number, record is not None, problem) for number, record, problem in GamesFile(path).entries()]
    assert [e[:2] for e in entries] == [(1, True), (3, False), (4, True)]  # blank line 2, torn line 5
    assert entries[1][2].startswith("not a game record: not JSON")


def test_a_torn_line_written_just_before_an_append_is_cut_out_from_in_front_of_it(tmp_path):
    # The junk arrives after append's look at the file and before its write
    # (simulated: the file's size is what append last saw, junk included).
    path = tmp_path / "games.jsonl"
    games = GamesFile(path)
    first, second = make_record("a", "b", "RED"), make_record("b", "a", None)
    games.append(first)
    with open(path, "ab") as other:
        other.write(b"yyyyyyy")
    games._size = path.stat().st_size
    trimmed = games.append(second)
    assert trimmed is not None and trimmed.size == 7 and trimmed.start == b"yyyyyyy"
    games.close()
    assert list(games.records()) == [first, second] and path.read_bytes().endswith(b"\n")
