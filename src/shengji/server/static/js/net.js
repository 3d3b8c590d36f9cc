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
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.tableId)}`);
    this.ws = ws;
    this.onStatus("connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.onStatus("open");
      ws.send(JSON.stringify({ type: "hello", token: getToken(this.tableId), lang: this.lang }));
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
