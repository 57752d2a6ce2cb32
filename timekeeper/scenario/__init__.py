"""Scenario files: loading (with located problems), dumping, finding built-in tracks."""
