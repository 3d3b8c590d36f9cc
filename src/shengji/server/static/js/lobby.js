// Lobby: create a table (name + RULES §10 options), list open tables.
import { useState, useEffect } from "../vendor/preact-hooks.mjs";
import { html, teamLetter } from "./ui.js";
import { t, tn, has } from "./i18n.js";
import { setToken } from "./net.js";
import { MIN_PLAYERS, MAX_PLAYERS, DECKS, defaultDecks, modesFor, shapeOf, shapeText } from "./seats.js";

// RULES §10 options: [key, kind, default, choices]
export const RULE_OPTIONS = [
  ["self_reinforce", "bool", false],
  ["strict_tractor_follow", "bool", false],
  ["no_trump_keeps_rank", "bool", false],
  ["band_80_115", "choice", "swap", ["swap", "stay"]],
  ["first_drawer", "choice", 0, [0, 1, 2, 3]],
  ["throw_penalty_per_card", "int", 10],
  ["throw_penalty", "choice", "returned", ["returned", "attempted", "none"]],
  ["kitty_multiplier", "choice", "per_card", ["per_card", "flat", "power"]],
  ["round1_no_declaration", "choice", "redeal", ["redeal", "flip"]],
  ["gap_tractors", "choice", "on", ["on", "trumps_only"]],
  ["throw_tractors", "choice", "on", ["on", "off"]],
  ["joker_pairs", "choice", "equal", ["equal", "red_over_black"]],
  ["win_at_a", "choice", "pass", ["pass", "as_declarers"]],
  ["max_levels_per_round", "maxlevels", null, [null, 1, 2, 3, 4, 5, 6]],
  ["stop_levels", "ranks", null, ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]],
];

/**
 * The RULES §12 table options the form sends (`players`, `mode`, `decks`): only those
 * that differ from the four-player default, so a four-player table is created as before.
 * An odd table plays friends (§12.1); `decks` null is the default, players // 2.
 */
export function tableOptions(players, mode, decks) {
  const out = {};
  if (players !== 4) out.players = players;
  const m = modesFor(players).includes(mode) ? mode : "friends";
  if (m !== "teams") out.mode = m;
  if (decks != null && decks !== defaultDecks(players)) out.decks = decks;
  return out;
}

/** The table's size, mode and decks (RULES §12): three choices above the house rules. */
function TableShape({ players, mode, decks, setPlayers, setMode, setDecks }) {
  const range = [];
  for (let n = MIN_PLAYERS; n <= MAX_PLAYERS; n++) range.push(n);
  const modes = modesFor(players);
  return html`<fieldset class="table-shape" id="table-shape">
    <legend><b>${t("lobby.table_shape")}</b><small>${t("lobby.table_shape.hint")}</small></legend>
    <label class="shape-field"><span>${t("lobby.players")}</span>
      <select name="players" onChange=${(e) => setPlayers(Number(e.target.value))}>
        ${range.map((n) => html`<option value=${n} selected=${n === players}>${n}</option>`)}
      </select>
    </label>
    <label class="shape-field"><span>${t("lobby.mode")}</span>
      <select name="mode" onChange=${(e) => setMode(e.target.value)}>
        ${["teams", "friends"].map((m) => html`<option value=${m} selected=${m === (modes.includes(mode) ? mode : "friends")} disabled=${!modes.includes(m)}>${t(`table.mode.${m}`)}</option>`)}
      </select>
    </label>
    <label class="shape-field"><span>${t("lobby.decks")}</span>
      <select name="decks" onChange=${(e) => setDecks(e.target.value === "" ? null : Number(e.target.value))}>
        <option value="" selected=${decks == null}>${t("lobby.decks_auto", { n: defaultDecks(players) })}</option>
        ${DECKS.map((d) => html`<option value=${d} selected=${d === decks}>${d}</option>`)}
      </select>
    </label>
    <small class="muted shape-note" id="shape-note">${t(`lobby.mode.${modes.includes(mode) ? mode : "friends"}.hint`, { f: Math.floor(players / 2) - 1 })}</small>
  </fieldset>`;
}

/** The options' defaults (as the form starts). */
export function defaultOptions() {
  return Object.fromEntries(RULE_OPTIONS.map((o) => [o[0], o[2]]));
}

/** The preset these options are (the server's named sets, RULES §10), or "custom". */
export function presetOf(options, presets) {
  const norm = (o) => JSON.stringify(RULE_OPTIONS.map(([k]) => [k, o[k] ?? null]));
  for (const [name, opts] of Object.entries(presets || {})) {
    if (norm({ ...defaultOptions(), ...opts }) === norm(options)) return name;
  }
  return "custom";
}

// Table timings: [key sent to the server, factor from the seconds typed to the value sent]
export const TIMINGS = [
  ["deal_ms", 1000],
  ["window_ms", 1000],
  ["bot_delay_ms", 1000],
  ["round_pause_ms", 1000],
  ["bot_timeout_s", 1],
];

// The turn timer's presets (seconds per turn; 0: off, a friends' table), as the server's
// schema.TURN_PRESETS.
export const TURN_PRESETS = [0, 15, 20, 30, 60];

export function getName() {
  try {
    return localStorage.getItem("shengji.name") || "";
  } catch {
    return "";
  }
}

export function saveName(name) {
  try {
    localStorage.setItem("shengji.name", name);
  } catch {
    /* ignore */
  }
}

/**
 * A refused table as words for the player: a timing out of range is said in the
 * seconds the form uses (the server speaks milliseconds), in the page's language.
 */
export function createError(status, body) {
  let detail = body;
  try {
    const parsed = JSON.parse(body);
    if (parsed && typeof parsed.detail === "string") detail = parsed.detail;
  } catch {
    /* not JSON: keep the text */
  }
  const m = String(detail).match(
    /^(\w+) must be (?:between|a number from) (\d+(?:\.\d+)?) (?:and|to) (\d+(?:\.\d+)?)\b/,
  );
  const timing = m ? TIMINGS.find(([key]) => key === m[1]) : null;
  if (timing) {
    const scale = timing[1];
    return t("lobby.timing_range", { field: t(`timing.${timing[0]}`), lo: Number(m[2]) / scale, hi: Number(m[3]) / scale });
  }
  return String(detail || `HTTP ${status}`);
}

function OptionField({ opt, value, onChange }) {
  const [key, kind, , choices] = opt;
  const label = t(`opt.${key}`);
  const hint = t(`opt.${key}.hint`);
  if (kind === "bool") {
    return html`<label class="opt opt-bool">
      <input type="checkbox" name=${key} checked=${!!value} onChange=${(e) => onChange(e.target.checked)} />
      <span><b>${label}</b><small>${hint}</small></span>
    </label>`;
  }
  if (kind === "maxlevels") {
    return html`<label class="opt">
      <span><b>${label}</b><small>${hint}</small></span>
      <select name=${key} onChange=${(e) => onChange(e.target.value === "" ? null : Number(e.target.value))}>
        ${choices.map((c) => html`<option value=${c == null ? "" : c} selected=${c === value}>${c == null ? t(`opt.${key}.none`) : c}</option>`)}
      </select>
    </label>`;
  }
  if (kind === "ranks") {
    const on = new Set(value || []);
    const flip = (r) => {
      const next = new Set(on);
      if (next.has(r)) next.delete(r);
      else next.add(r);
      const list = choices.filter((x) => next.has(x));
      onChange(list.length ? list : null);
    };
    return html`<fieldset class="opt opt-ranks" id=${"opt-" + key}>
      <legend><b>${label}</b><small>${hint}</small></legend>
      <div class="rank-chips">
        ${choices.map(
          (r) => html`<label class="rank-chip"><input type="checkbox" name=${key} value=${r} checked=${on.has(r)} onChange=${() => flip(r)} /><span>${r}</span></label>`,
        )}
      </div>
    </fieldset>`;
  }
  if (kind === "choice") {
    return html`<label class="opt">
      <span><b>${label}</b><small>${hint}</small></span>
      <select name=${key} onChange=${(e) => onChange(typeof choices[0] === "number" ? Number(e.target.value) : e.target.value)}>
        ${choices.map((c) => html`<option value=${c} selected=${c === value}>${t(`opt.${key}.${c}`)}</option>`)}
      </select>
    </label>`;
  }
  return html`<label class="opt">
    <span><b>${label}</b><small>${hint}</small></span>
    <input type="number" name=${key} min="0" max="100" step="5" value=${value} onInput=${(e) => onChange(Number(e.target.value))} />
  </label>`;
}

// A refused table creation, said in the player's language: a timing out of range in
// seconds, else the server's error code translated, else its text.
async function refusal(r) {
  const text = await r.text();
  let e = null;
  try {
    e = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  // A setting out of range comes with its field, limits and unit (schema.InputError):
  // named as the form names it, in the form's seconds.
  if (e && e.code === "bad_setting" && typeof e.field === "string" && has(`timing.${e.field}`) && e.min != null && e.max != null) {
    const scale = e.unit === "ms" ? 1000 : 1;
    const field = t(`timing.${e.field}`);
    return t("lobby.timing_range", { field, lo: e.min / scale, hi: e.max / scale });
  }
  const said = createError(r.status, text);
  if (e && typeof e.detail === "string" && said !== e.detail) return said;
  const key = e && e.code ? `error.code.${e.code}` : null;
  if (key && has(key)) return t(key, { field: e.field || "" });
  return said;
}

function CreateTable() {
  const [name, setName] = useState(() => {
    const n = getName();
    return n ? t("lobby.default_table", { name: n }) : "";
  });
  const [options, setOptions] = useState(defaultOptions);
  const [presets, setPresets] = useState(null);
  useEffect(() => {
    let stop = false;
    fetch("/api/options")
      .then((r) => (r.ok ? r.json() : null))
      .then((d) => !stop && d && setPresets(d.presets || null))
      .catch(() => {});
    return () => {
      stop = true;
    };
  }, []);
  const preset = presetOf(options, presets);
  const choosePreset = (name) => {
    if (presets && presets[name]) setOptions({ ...defaultOptions(), ...presets[name] });
  };
  const [players, setPlayers] = useState(4);
  const [mode, setMode] = useState("teams");
  const [decks, setDecks] = useState(null);
  const [timing, setTiming] = useState({});
  const [turnS, setTurnS] = useState(0);
  const [spectatorChat, setSpectatorChat] = useState(false);
  const [hints, setHints] = useState("auto"); // the `hints` setting: auto is null (issue 32)
  const [cardCounter, setCardCounter] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setErr(null);
    try {
      const body = {
        name: name.trim() || t("lobby.unnamed"),
        options: { ...options, ...tableOptions(players, mode, decks) },
      };
      if (turnS > 0) body.turn_s = turnS;
      if (spectatorChat) body.spectator_chat = true;
      if (hints !== "auto") body.hints = hints === "on";
      if (cardCounter) body.card_counter = true;
      for (const [key, scale] of TIMINGS) {
        const raw = timing[key];
        if (raw === undefined || raw === "") continue;
        body[key] = scale === 1 ? Number(raw) : Math.round(Number(raw) * scale);
      }
      const r = await fetch("/api/tables", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(await refusal(r));
      const data = await r.json();
      if (data.host_token) setToken(data.id, data.host_token);
      location.href = `/t/${encodeURIComponent(data.id)}`;
    } catch (ex) {
      setErr(String(ex.message || ex));
      setBusy(false);
    }
  };
  return html`<form class="panel create" onSubmit=${submit} id="create-form">
    <h2>${t("lobby.create")}</h2>
    <label class="field">
      <span>${t("lobby.table_name")}</span>
      <input name="table-name" value=${name} maxlength="60" placeholder=${t("lobby.table_name_ph")} onInput=${(e) => setName(e.target.value)} />
    </label>
    <${TableShape} players=${players} mode=${mode} decks=${decks} setPlayers=${setPlayers} setMode=${setMode} setDecks=${setDecks} />
    <label class="top-choice" id="turn-timer">
      <span><b>${t("timing.turn_s")}</b><small>${t("timing.turn_s.hint")}</small></span>
      <select name="turn_s" onChange=${(e) => setTurnS(Number(e.target.value))}>
        ${TURN_PRESETS.map((n) => html`<option value=${n} selected=${n === turnS}>${n ? t("timing.turn_preset", { n }) : t("timing.turn_off")}</option>`)}
      </select>
    </label>
    <label class="opt opt-bool" id="spectator-chat-field">
      <input type="checkbox" name="spectator_chat" checked=${spectatorChat} onChange=${(e) => setSpectatorChat(e.target.checked)} />
      <span><b>${t("lobby.spectator_chat")}</b><small>${t("lobby.spectator_chat.hint")}</small></span>
    </label>
    <label class="top-choice" id="hints-field">
      <span><b>${t("lobby.hints")}</b></span>
      <select name="hints" onChange=${(e) => setHints(e.target.value)}>
        ${["auto", "on", "off"].map((v) => html`<option value=${v} selected=${v === hints}>${t(`lobby.hints.${v}`)}</option>`)}
      </select>
    </label>
    <label class="opt opt-bool" id="card-counter-field">
      <input type="checkbox" name="card_counter" checked=${cardCounter} onChange=${(e) => setCardCounter(e.target.checked)} />
      <span><b>${t("lobby.card_counter")}</b><small>${t("lobby.card_counter.hint")}</small></span>
    </label>
    ${presets &&
    html`<label class="top-choice" id="preset-field">
      <span><b>${t("lobby.preset")}</b><small>${t("lobby.preset.hint")}</small></span>
      <select name="preset" onChange=${(e) => choosePreset(e.target.value)}>
        ${Object.keys(presets).map((name) => html`<option value=${name} selected=${preset === name}>${t(`preset.${name}`)}</option>`)}
        <option value="custom" disabled selected=${preset === "custom"}>${t("preset.custom")}</option>
      </select>
    </label>`}
    <details class="options">
      <summary>${t("lobby.rules")}</summary>
      ${RULE_OPTIONS.map(
        (o) => html`<${OptionField} key=${o[0]} opt=${o} value=${options[o[0]]} onChange=${(v) => setOptions({ ...options, [o[0]]: v })} />`,
      )}
      <h3 class="opt-head">${t("lobby.timing")}</h3>
      ${TIMINGS.map(
        ([key]) => html`<label class="opt" key=${key}>
          <span><b>${t(`timing.${key}`)}</b><small>${t(`timing.${key}.hint`)}</small></span>
          <input type="number" name=${key} min="0" step="any" value=${timing[key] ?? ""} placeholder=${t("timing.default")}
            onInput=${(e) => setTiming({ ...timing, [key]: e.target.value })} />
        </label>`,
      )}
    </details>
    ${err && html`<p class="error-text">${t("lobby.create_failed")} ${err}</p>`}
    <button class="btn primary big" type="submit" disabled=${busy} id="create-btn">${t("lobby.create_btn")}</button>
  </form>`;
}

function TableList() {
  const [tables, setTables] = useState(null);
  const [err, setErr] = useState(false);
  useEffect(() => {
    let stop = false;
    const load = async () => {
      try {
        const r = await fetch("/api/tables");
        if (!r.ok) throw new Error(r.status);
        const data = await r.json();
        if (!stop) {
          setTables(Array.isArray(data) ? data : data.tables || []);
          setErr(false);
        }
      } catch {
        if (!stop) setErr(true);
      }
    };
    load();
    const timer = setInterval(load, 4000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);
  return html`<section class="panel tables">
    <h2>${t("lobby.open_tables")}</h2>
    ${err && html`<p class="error-text">${t("lobby.load_failed")}</p>`}
    ${tables === null && !err && html`<p class="muted">${t("app.loading")}</p>`}
    ${tables && !tables.length && html`<p class="muted">${t("lobby.no_tables")}</p>`}
    <ul class="table-list">
      ${(tables || []).map((tb) => {
        const seats = tb.seats || [];
        const taken = seats.filter(Boolean).length;
        // RULES §12: the seat count is the seats listed; the mode comes with the entry
        const shape = shapeOf({ players: seats.length || 4, mode: tb.mode, decks: tb.decks });
        const kind = shapeText(shape);
        return html`<li key=${tb.id} class="table-item" data-table=${tb.id} data-players=${shape.n} data-mode=${kind ? shape.mode : null}>
          <div class="ti-main">
            <b class="ti-name">${tb.name}</b>
            <span class=${"status status-" + tb.status}>${t(`status.${tb.status}`)}</span>
            ${kind && html`<span class="ti-kind">${kind}</span>`}
          </div>
          <div class="ti-seats">
            ${Array.from({ length: shape.n }, (_, i) => {
              const s = seats[i];
              const side = shape.friends ? " no-team" : " team" + (i % 2);
              return html`<span class=${"ti-seat" + side + (s ? "" : " empty")}>${s ? (s.kind && s.kind !== "human" ? t("bot.name", { kind: t(`bot.${s.kind}`), n: i + 1 }) : s.name) : t("lobby.free")}</span>`;
            })}
          </div>
          <div class="ti-links">
            <a class="btn" href=${"/t/" + encodeURIComponent(tb.id)}>${taken < shape.n && tb.status === "waiting" ? t("lobby.join") : t("lobby.watch")}</a>
            ${tb.status !== "waiting" && html`<a class="btn small ghost replay-link" href=${"/games/" + encodeURIComponent(tb.id)}>${t("lobby.replay")}</a>`}
          </div>
        </li>`;
      })}
    </ul>
  </section>`;
}

function seatLabel(s, i) {
  if (!s) return t("lobby.free");
  return s.kind && s.kind !== "human" ? t("bot.name", { kind: t(`bot.${s.kind}`), n: i + 1 }) : s.name;
}

/** A finished game's result in words: the winners, the final levels, how many rounds. */
export function resultText(g) {
  const r = g.result;
  if (!r || r.winner == null) return t("lobby.result_unknown");
  const seats = g.seats || [];
  const levels = r.levels || [];
  if (levels.length > 2) {
    // friends mode (RULES §12.4): the winner is a player, each player has a level
    return t("lobby.result_won_player", { name: seatLabel(seats[r.winner], r.winner) }) + " · " + tn("lobby.result_rounds", r.rounds ?? 0);
  }
  const n = seats.length || 4;
  const names = Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === r.winner % 2).map((i) => seatLabel(seats[i], i)).join(" & ");
  return (
    t("lobby.result_won", { team: teamLetter(r.winner), names }) +
    " · " +
    t("lobby.result_levels", { a: levels[0] ?? "—", b: levels[1] ?? "—" }) +
    " · " +
    tn("lobby.result_rounds", r.rounds ?? 0)
  );
}

/** Recently finished games, each with its result and a link to its replay. */
function FinishedList() {
  const [games, setGames] = useState(null);
  useEffect(() => {
    let stop = false;
    const load = async () => {
      try {
        const r = await fetch("/api/games");
        if (!r.ok) throw new Error(r.status);
        const data = await r.json();
        if (!stop) setGames(Array.isArray(data) ? data : []);
      } catch {
        if (!stop) setGames((g) => g || []);
      }
    };
    load();
    const timer = setInterval(load, 15000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);
  return html`<section class="panel finished" id="finished-games">
    <h2>${t("lobby.finished")}</h2>
    ${games === null && html`<p class="muted">${t("app.loading")}</p>`}
    ${games && !games.length && html`<p class="muted">${t("lobby.no_finished")}</p>`}
    <ul class="table-list">
      ${(games || []).map(
        (g) => html`<li key=${g.id} class="table-item finished-item" data-table=${g.id}>
          <div class="ti-main">
            <b class="ti-name">${g.name}</b>
            <span class="status status-finished">${t("status.finished")}</span>
          </div>
          <div class="ti-result">${resultText(g)}</div>
          <div class="ti-links">
            <a class="btn small replay-link" href=${"/games/" + encodeURIComponent(g.id)}>${t("lobby.replay")}</a>
          </div>
        </li>`,
      )}
    </ul>
  </section>`;
}

export function Lobby() {
  return html`<main class="lobby">
    <section class="hero">
      <div class="hero-cards" aria-hidden="true">
        <span class="hero-card black">A♠</span><span class="hero-card red">K♥</span><span class="hero-card red">★</span>
      </div>
      <div>
        <h1>${t("lobby.headline")}</h1>
        <p class="muted">${t("lobby.tagline")} <a href="#/rules" id="hero-rules">${t("rules.link")}</a></p>
      </div>
    </section>
    <div class="lobby-grid">
      <${CreateTable} />
      <div class="lobby-lists">
        <${TableList} />
        <${FinishedList} />
      </div>
    </div>
  </main>`;
}
