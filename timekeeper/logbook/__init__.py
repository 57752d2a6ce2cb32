"""The ship's log: missions the crew scored, exploration campaigns, and what is read from them.

The API for other front ends (the `timekeeper log` commands, `timekeeper serve`) is in
`timekeeper.logbook.shiplog` (ShipLog, open_log); forms are checked by `timekeeper.logbook.form`.
"""
