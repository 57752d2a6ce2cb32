"""Voices: phrase tables, synthesized speech (with a disk cache) and prerecorded clip packs."""
