// Entry point: one page for the lobby (/), a table (/t/{id}) and a replay (/games/{id}).
import { useState, useEffect } from "../vendor/preact-hooks.mjs";
import { html, render } from "./ui.js";
import { LANGS, loadLang, pickLang, t, current } from "./i18n.js";
import { Lobby } from "./lobby.js";
import { Table } from "./table.js";
import { Replay } from "./replay.js";
import { Globe } from "./icons.js";

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
      <${LangSwitch} lang=${lang} onChange=${changeLang} />
    </header>
    ${page}
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
