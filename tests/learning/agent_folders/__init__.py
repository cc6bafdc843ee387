"""Agent folders the learning environments' tests play against (``workdir`` = this folder)."""
