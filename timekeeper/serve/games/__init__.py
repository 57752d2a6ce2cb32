"""Games and where they live: a game with its mission clock (game.py), its lobby of short codes and
connected screens (lobby.py), and the stores behind one interface (store.py): this process's state
folder, or Redis shared by several workers with pub/sub to every screen (redis_store.py)."""
