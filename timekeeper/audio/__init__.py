"""Audio basics: PCM clips, editing, loudness, the clip cache, codecs, the shipped clips and the synthesized sound effects."""
