"""Plays an HTML/terminal-escape payload as its move, to test that reports escape it."""

import sys

PAYLOAD = "<img/src=x/onerror=document.title='pwned'>\x1b[31m"

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arena":
        print("id name <b>evil</b>\x1b[2J", flush=True)
        print("arenaok 1", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        print(f"move {PAYLOAD}", flush=True)
    elif words[0] == "quit":
        break
