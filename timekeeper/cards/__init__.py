"""Scenario cards: the rows a card shows, as text, markdown and PDF."""
