"""The announcement grammar: mission times, languages, training pace, phrase tables, the script (Scenario -> Timeline of cues) and the default voice's phrase lengths."""
