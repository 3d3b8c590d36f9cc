"""A random bot for the shengji bot protocol (docs/BOT_PROTOCOL.md): shengji arena --a 'exec:python examples/bots/random_bot.py'"""
import json
import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "hello", "protocol": "shengji-bot/1", "name": "random.py"}
    elif msg["type"] == "decide":
        seat, view = msg["view"]["seat"], msg["view"]
        if msg["choices"]:  # every legal action (or the first 100 of them)
            action = rng.choice(msg["choices"])
        else:  # the kitty: bury any 8 cards of the hand (RULES §4)
            action = ["bury", seat, " ".join(rng.sample(view["hand"], 8))]
        reply = {"type": "action", "id": msg["id"], "action": action}
    else:  # "result" after a round of a game, "end" at the end: nothing to answer
        continue
    print(json.dumps(reply), flush=True)
