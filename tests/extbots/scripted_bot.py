"""A scripted external bot for tests/test_external_bots.py: plays the first legal choice
(buries the first 8 cards) and misbehaves once, at decision AT, as MODE says.

    python scripted_bot.py MODE AT [RECORD]

MODE: ok | timeout (answers decision AT 1.5 s late) | crash (exits at AT) | malformed
(a line that is not JSON, then keeps playing) | wrong_id | illegal (a card it does not
hold, or another seat) | badhello (answers the hello with garbage) | silent (never
answers the hello). RECORD: a file each line received is appended to.
"""

import json
import sys
import time

mode, at = sys.argv[1], int(sys.argv[2])
record = open(sys.argv[3], "a", encoding="utf-8") if len(sys.argv) > 3 else None  # noqa: SIM115


def send(msg: object) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if record is not None:
        record.write(line)
        record.flush()
    msg = json.loads(line)
    if msg["type"] == "hello":
        if mode == "badhello":
            print("hi there", flush=True)
        elif mode != "silent":
            send({"type": "hello", "protocol": "shengji-bot/1", "name": "scripted"})
        continue
    if msg["type"] != "decide":
        continue
    view, n = msg["view"], msg["id"]
    if msg["choices"]:
        action = msg["choices"][0]
    else:
        action = ["bury", view["seat"], " ".join(view["hand"][:8])]
    if n == at:
        if mode == "timeout":
            time.sleep(1.5)
        elif mode == "crash":
            print("scripted bot: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "malformed":
            print("{this is not json", flush=True)
            continue
        elif mode == "wrong_id":
            send({"type": "action", "id": n + 7, "action": action})
            continue
        elif mode == "illegal":
            other = (view["seat"] + 1) % 4
            action = [action[0], other] + action[2:]
    send({"type": "action", "id": n, "action": action})
