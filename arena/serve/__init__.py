"""``arena serve``: a local web server over results folders, finished or running: their
report sites and, as they are played, their games in progress (docs/serve.md)."""
