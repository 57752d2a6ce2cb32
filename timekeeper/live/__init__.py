"""Live playback: a prepared mix streamed in real time, a mission clock, keys and a screen.

`session.run_live` is the entry point; `outputs.open_output` picks the audio backend.
"""
