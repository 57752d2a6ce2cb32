"""The languages timekeeper ships phrase tables for (voices/<code>.yaml): one list for every module."""

LANGUAGES = ("en", "de", "es", "fr", "it", "pl", "cs")
