"""``python -m referee replay RECORD``: a recorded game again, in the terminal or as an HTML page (:mod:`.cli`)."""
