// Entry point: one page for the lobby (/), a table (/t/{id}) and a replay (/games/{id}).
import { useState, useEffect } from "../vendor/preact-hooks.mjs";
import { html, render } from "./ui.js";
import { LANGS, loadLang, pickLang, t, current } from "./i18n.js";
import { Lobby } from "./lobby.js";
import { Table } from "./table.js";
import { Replay } from "./replay.js";
import { Globe, Book } from "./icons.js";
import { Rules, rulesRoute } from "./rules.js";
import { SoundSwitch } from "./feel.js";

export function route(path = location.pathname) {
  let m = path.match(/^\/t\/([^/]+)\/?$/);
  if (m) return { page: "table", id: decodeURIComponent(m[1]) };
  m = path.match(/^\/games\/([^/]+)\/?$/);
  if (m) return { page: "replay", id: decodeURIComponent(m[1]) };
  return { page: "lobby" };
}

function LangSwitch({ lang, onChange }) {
  return html`<label class="lang-switch">
    <span class="sr-only">${t("app.language")}</span>
    <${Globe} />
    <select id="lang-select" value=${lang} onChange=${(e) => onChange(e.target.value)} aria-label=${t("app.language")}>
      ${LANGS.map(([code, name]) => html`<option value=${code} selected=${code === lang}>${name}</option>`)}
    </select>
  </label>`;
}

function App() {
  const [lang, setLang] = useState(current);
  const r = route();
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  const rulesAt = rulesRoute(hash);
  // Behind the rules overlay (a modal dialog) the page is inert: out of the tab order and
  // the accessibility tree until the rules close.
  const rulesShown = rulesAt !== null;
  useEffect(() => {
    for (const el of document.querySelectorAll(".app > :not(#rules)")) {
      el.inert = rulesShown;
      if (rulesShown) el.setAttribute("aria-hidden", "true");
      else el.removeAttribute("aria-hidden");
    }
  }, [rulesShown, r.page]);
  const closeRules = () => {
    // Back to where the player came from; a page opened at #/rules just drops the hash.
    if (history.state && history.state.rulesFrom) history.back();
    else {
      history.replaceState(null, "", location.pathname + location.search);
      setHash("");
    }
  };
  const openRules = (e) => {
    e.preventDefault();
    history.pushState({ rulesFrom: location.pathname }, "", "#/rules");
    setHash(location.hash);
  };
  const changeLang = async (l) => {
    await loadLang(l, true);
    setLang(l);
  };
  useEffect(() => {
    document.title = r.page === "lobby" ? t("app.title") : `${t("app.title")} · ${r.id}`;
  }, [lang]);
  let page;
  if (r.page === "table") page = html`<${Table} id=${r.id} lang=${lang} />`;
  else if (r.page === "replay") page = html`<${Replay} id=${r.id} lang=${lang} />`;
  else page = html`<${Lobby} lang=${lang} />`;
  return html`<div class=${"app page-" + r.page}>
    <header class="topbar">
      <a class="brand" href="/"><span class="brand-mark" aria-hidden="true">拖</span><span class="brand-name">${t("app.title")}</span></a>
      <span class="spacer"></span>
      <a class="btn small ghost rules-link" id="rules-link" href="#/rules" onClick=${openRules} title=${t("rules.link")}><${Book} /><span class="rules-link-text">${t("rules.link")}</span></a>
      <${SoundSwitch} />
      <${LangSwitch} lang=${lang} onChange=${changeLang} />
    </header>
    ${page}
    ${rulesAt !== null && html`<${Rules} lang=${lang} at=${rulesAt} onClose=${closeRules} />`}
  </div>`;
}

async function start() {
  await loadLang(pickLang());
  const root = document.getElementById("app");
  root.textContent = "";
  render(html`<${App} />`, root);
}

start().catch((e) => {
  document.getElementById("app").textContent = String(e);
});
