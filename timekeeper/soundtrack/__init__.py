"""Timeline + voice + effects -> the mixed soundtrack: its settings (one parser for the command
line and the page), the mix, its render to a file, and its measurement against the sound targets."""
