// WebSocket connection to /ws/{table_id} (docs/WEB_PROTOCOL.md), with
// reconnection. Every (re)connection starts with `hello` and the stored seat token.

export function tokenKey(tableId) {
  return `shengji.token.${tableId}`;
}

export function getToken(tableId) {
  try {
    return localStorage.getItem(tokenKey(tableId));
  } catch {
    return null;
  }
}

export function setToken(tableId, token) {
  try {
    if (token) localStorage.setItem(tokenKey(tableId), token);
    else localStorage.removeItem(tokenKey(tableId));
  } catch {
    /* private mode: the seat is kept for this page only */
  }
}

/**
 * Rebuild a whole `state` message from what this connection holds (`held`: the last
 * view's round, history and rule options and the table's options, or null). The connection asks for the history
 * as it grows (`hello`'s `"history": "delta"`): a view then carries `history_from`, its
 * `tricks` and `failed_throws` continue the held ones from those indices, and the view
 * and the table have `options` only where the connection holds none yet
 * (docs/WEB_PROTOCOL.md). Returns what to hold next, or null where the message does not
 * continue what is held (the caller then reconnects for a whole one).
 */
export function mergeState(msg, held) {
  const view = msg.view;
  if (!view) return held;
  const from = view.history_from;
  if (from) {
    delete view.history_from;
    if (from.tricks || from.failed_throws) {
      if (!held || held.round_no !== view.round_no || held.tricks.length < from.tricks || held.failed_throws.length < from.failed_throws) return null;
      view.tricks = held.tricks.slice(0, from.tricks).concat(view.tricks);
      view.failed_throws = held.failed_throws.slice(0, from.failed_throws).concat(view.failed_throws);
    }
    if (!("options" in view)) {
      if (!held) return null;
      view.options = held.options;
      if (msg.table && !("options" in msg.table)) msg.table.options = held.table_options;
    }
  }
  const table_options = msg.table && "options" in msg.table ? msg.table.options : held && held.table_options;
  return { round_no: view.round_no, tricks: view.tricks, failed_throws: view.failed_throws, options: view.options, table_options };
}

/** After a 4429 close (too many connections from this address), the next try (ms). */
export const CROWDED_RETRY_MS = 30000;

export class Connection {
  constructor(tableId, { onMessage, onStatus, lang }) {
    this.tableId = tableId;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.lang = lang;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.queue = [];
    this.pingTimer = null;
    this.held = null; // what this connection holds of the view (mergeState)
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.tableId)}`);
    this.ws = ws;
    this.held = null; // a new connection is sent the whole history first
    this.onStatus("connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.onStatus("open");
      ws.send(JSON.stringify({ type: "hello", token: getToken(this.tableId), lang: this.lang, history: "delta" }));
      for (const m of this.queue.splice(0)) ws.send(JSON.stringify(m));
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg && msg.type === "seated" && msg.token) setToken(this.tableId, msg.token);
      if (msg && msg.type === "state") {
        const held = mergeState(msg, this.held);
        if (!held) {
          ws.close(); // not what we hold (never expected): reconnect for the whole history
          return;
        }
        this.held = held;
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      // 4404 / 1008: the table does not exist or the server refused us: stop.
      if (ev.code === 4404 || ev.code === 4004) {
        this.onStatus("gone");
        return;
      }
      // 4403: this page's origin may not use the server: trying again cannot help.
      if (ev.code === 4403) {
        this.onStatus("refused");
        return;
      }
      // 4429: too many connections from this address (other tabs): try again slowly,
      // not in the usual quick steps that would only be refused again.
      if (ev.code === 4429) {
        this.onStatus("crowded");
        setTimeout(() => this.connect(), CROWDED_RETRY_MS);
        return;
      }
      this.onStatus("closed");
      const delay = Math.min(10000, 500 * 2 ** this.retry++);
      setTimeout(() => this.connect(), delay);
    };
    ws.onerror = () => {};
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else if (msg.type !== "ping" && msg.type !== "check") this.queue.push(msg);
  }

  setLang(lang) {
    this.lang = lang;
  }

  close() {
    this.closed = true;
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close();
  }
}
