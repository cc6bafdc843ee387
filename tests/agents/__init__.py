"""Tests of the bundled agents (agents/)."""
