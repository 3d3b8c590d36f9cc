// A random bot for the shengji bot protocol (docs/BOT_PROTOCOL.md) in Node.js:
//   shengji arena --a 'exec:node examples/bots/random_bot.js'
const readline = require("readline");
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({ type: "hello", protocol: "shengji-bot/1", name: "random.js" });
  } else if (msg.type === "decide") {
    const view = msg.view;
    let action;
    if (msg.choices) {
      action = pick(msg.choices); // every legal action (or the first 100 of them)
    } else { // the kitty: bury any 8 cards of the hand (RULES §4)
      const hand = [...view.hand].sort(() => Math.random() - 0.5);
      action = ["bury", view.seat, hand.slice(0, 8).join(" ")];
    }
    send({ type: "action", id: msg.id, action });
  } // "result" after a round of a game and "end" at the end need no answer
});
