"""Fixtures the sealed and unsealed attack tests (test_sealed.py, test_unsealed.py) share."""
from __future__ import annotations

from pathlib import Path

import pytest

from .hostile_runs import clean_up, copy_tree, fresh_seed


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """A copy of the tree for the attacks that write nothing into it."""
    return copy_tree(tmp_path_factory.mktemp("tree"))


@pytest.fixture
def fresh_tree(tmp_path) -> Path:
    """A copy of the tree of this test's own, for the attacks that write into it."""
    return copy_tree(tmp_path / "tree")


@pytest.fixture
def seed():
    """A seed no other game uses (the hostile agents name their helpers after it); cleaned up after."""
    value = fresh_seed()
    yield value
    clean_up(value)
