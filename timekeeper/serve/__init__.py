"""`timekeeper serve`: the web and phone front end (an aiohttp server and one static page).

Its parts, from the bottom up (each imports only the ones before it; tests/test_layers.py):

- `refusal.py`, `quiet.py`: a request refused (status, code, field); what the terminal shows.
- `tracks/`: what the page offers to play: the track library, the generate form, voice installs.
- `games/`: a game and its clock, its lobby (short codes, who is connected), and the stores that
  keep them: this process's state folder (`store.py`) or Redis for several workers (`redis_store.py`).
- `guards/`: who is asking and how much they may hold: the client address, crews, connection and
  WebSocket limits, per-client rates (in this process or in Redis), the bounded queues of slow work.
- `sound/`: the sound a game plays and the soundtracks it downloads: mixes, the mp3 stream, the
  sound files and their encoder child, renders in child processes, work done once across workers.
- `server.py`: everything one running server knows (`ServerState`), built from its `ServeConfig`.
- `web/`: the aiohttp application and its middleware, the routes and their schemas, what a game is
  sent as JSON, the lobby's, the log's and the offline app's routes, hosted mode and its rooms.
- `assets/`: the page (native ES modules, no build step).
"""
