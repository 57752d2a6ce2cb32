"""Live playback: a prepared mix streamed in real time, a mission clock, keys and a screen.

`session.run_live` is the entry point; `devices.open_output` picks the audio backend.
"""
