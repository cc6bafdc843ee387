"""Agents written the way course agents are, for the compatibility tests."""
