"""The web layer: the aiohttp application and its middleware (app.py), the routes (routes.py) and
the schema each declares (schemas.py), what the page is sent about a game (views.py), the lobby's,
the ship's log's and the offline app's routes, hosted mode (hosted.py) and its rooms (rooms.py),
this machine's LAN addresses for `--lan` (network.py), and a worker's graceful stop (drain.py). A new route goes in routes.py, or in
the module of its screen, with its schema in schemas.py."""
