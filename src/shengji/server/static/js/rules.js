// "How to play": the rules for players, in the chosen language, at #/rules or
// #/rules/6.2 (a section of RULES.md). The text lives in static/i18n/rules/{lang}.json;
// the `shengji rules` command prints the same files in the terminal.
import { useState, useEffect } from "../vendor/preact-hooks.mjs";
import { html, Cards } from "./ui.js";
import { t } from "./i18n.js";
import { cardList } from "./cards.js";

const cache = new Map();

/** The rules text for a language (English when that file is missing). */
export async function loadRules(lang) {
  if (cache.has(lang)) return cache.get(lang);
  let r = await fetch(`/static/i18n/rules/${lang}.json`);
  if (!r.ok) r = await fetch("/static/i18n/rules/en.json");
  const data = await r.json();
  cache.set(lang, data);
  return data;
}

/** The section of the rules page that best covers a RULES reference ("6.2", "3"). */
export function sectionFor(sections, ref) {
  if (!ref) return null;
  const exact = sections.find((s) => (s.refs || []).includes(ref));
  if (exact) return exact.id;
  const major = String(ref).split(".")[0];
  const near = sections.find((s) => (s.refs || []).includes(major) || s.id.split(".")[0] === major);
  return near ? near.id : null;
}

/** The rules link for a RULES reference. */
export function rulesHref(ref) {
  return ref ? `#/rules/${ref}` : "#/rules";
}

/** The rules reference in a location hash ("#/rules/6.2" -> "6.2"), "" for the page, null if not rules. */
export function rulesRoute(hash = location.hash) {
  const m = String(hash || "").match(/^#\/rules(?:\/([0-9.]+))?\/?$/);
  if (!m) return null;
  return m[1] || "";
}

// RULES §8.2: [opponents' points, result key, n]
const LEVELS = [
  ["low", "levels_decl", 3],
  ["5 – 35", "levels_decl", 2],
  ["40 – 75", "levels_decl", 1],
  ["80 – 115", "levels_swap", 0],
  ["120 – 155", "levels_opp", 1],
  ["160 – 195", "levels_opp", 2],
  ["200 – 235", "levels_opp", 3],
  ["high", "levels_opp_more", 4],
];

function fill(s, n) {
  return String(s).replace("{n}", String(n));
}

function LevelTable({ R }) {
  return html`<table class="levels-table rules-levels" id="rules-level-table">
    <thead><tr><th>${R.levels_points}</th><th>${R.levels_result}</th></tr></thead>
    <tbody>
      ${LEVELS.map(
        ([pts, key, n]) => html`<tr class=${key}>
          <td>${pts === "low" ? R.levels_low : pts === "high" ? R.levels_high : pts}</td>
          <td>${fill(R[key], n)}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function Section({ s, R, focus }) {
  return html`<section class=${"rules-sec" + (focus ? " focus" : "")} id=${"rules-" + s.id} data-refs=${(s.refs || []).join(" ")}>
    <h2><span class="rules-ref">§${s.id}</span> ${s.title}</h2>
    ${(s.p || []).map((p) => html`<p>${p}</p>`)}
    ${s.ex &&
    html`<ul class="rules-ex">
      ${s.ex.map(
        (e) => html`<li>
          <${Cards} cards=${cardList(e.cards)} size="sm" overlap=${false} />
          <span>${e.text}</span>
        </li>`,
      )}
    </ul>`}
    ${s.table === "levels" && html`<${LevelTable} R=${R} />`}
    ${(s.after || []).map((p) => html`<p>${p}</p>`)}
  </section>`;
}

export function Rules({ lang, at, onClose }) {
  const [R, setR] = useState(null);
  const [err, setErr] = useState(null);
  useEffect(() => {
    loadRules(lang).then(setR, (e) => setErr(String(e)));
  }, [lang]);
  useEffect(() => {
    const onKey = (e) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  const focus = R ? sectionFor(R.sections, at) : null;
  useEffect(() => {
    if (!R) return;
    const el = focus ? document.getElementById("rules-" + focus) : null;
    const box = document.getElementById("rules");
    const head = box ? box.querySelector(".rules-head") : null;
    if (el && box) box.scrollTop = el.offsetTop - (head ? head.offsetHeight : 0) - 8; // not under the sticky head
    else if (box) box.scrollTop = 0;
  }, [R, focus]);
  return html`<div class="rules-page" id="rules" role="dialog" aria-modal="true" aria-labelledby="rules-title" data-lang=${lang}>
    <div class="rules-inner">
      <div class="rules-head">
        <h1 id="rules-title">${R ? R.title : t("rules.link")}</h1>
        <button class="btn" id="rules-close" onClick=${onClose}>${R ? R.back : t("app.close")}</button>
      </div>
      ${err && html`<p class="error-text">${err}</p>`}
      ${R &&
      html`<p class="rules-intro">${R.intro}</p>
        <nav class="rules-toc" aria-label=${R.contents}>
          ${R.sections.map((s) => html`<a href=${"#/rules/" + s.id} data-sec=${s.id}>${s.title}</a>`)}
        </nav>
        ${R.sections.map((s) => html`<${Section} key=${s.id} s=${s} R=${R} focus=${s.id === focus} />`)}
        <p class="muted">${R.full}</p>`}
    </div>
  </div>`;
}
