"""Marking: Gradescope autograders for Part A and Part B, and a cohort's marking report.

``python -m referee autograde partA|partB|init|report`` (:mod:`.cli`);
:mod:`.gradescope` holds the ``results.json`` format every autograder writes.
"""
