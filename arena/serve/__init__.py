"""The local web app (``arena serve``): results folders served, finished or running, their games
watched live as they are played, and a person playing engines (docs/serve.md, docs/play.md)."""
