"""timekeeper: a companion for the board game Space Alert."""

__version__ = "0.1.0"
