"""The sound of a game: its prepared mix and soundtrack downloads (mixes.py), the constant-bit-rate
mp3 the page plays (mp3stream.py), the shared folder of sound files (cache.py) made by an encoder
child (encoder_child.py) under a Redis lock across machines (maker_lock.py), soundtrack renders in
child processes (render_child.py), and work done once across workers (once.py)."""
