"""Who may ask and how much: the real client address behind a proxy (clients.py), crews of hosted
mode (crews.py), connection, WebSocket and message limits (limits.py), per-client rates counted in
this process (rates.py) or in Redis (redis_rates.py), and the bounded queues of slow work
(work_queues.py). docs/serve.md#limits lists every figure."""
