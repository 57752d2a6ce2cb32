"""`timekeeper serve`: the web and phone front end (an aiohttp server and one static page)."""
