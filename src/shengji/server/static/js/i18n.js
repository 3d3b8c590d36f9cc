// Message catalogues: static/i18n/{lang}.json, the same keys in each.
// t("key", {name: "x"}) substitutes {name}; a missing key falls back to English,
// then to the key itself.

export const LANGS = [
  ["en", "English"],
  ["zh", "中文"],
  ["vi", "Tiếng Việt"],
  ["th", "ไทย"],
  ["ko", "한국어"],
  ["sq", "Shqip"],
  ["mn", "Монгол"],
];
const KNOWN = new Set(LANGS.map((l) => l[0]));
const STORE_KEY = "shengji.lang";

let messages = {};
let fallback = {};
export let current = "en";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The language to use: the remembered choice, else navigator.language(s), else English. */
export function pickLang() {
  const saved = storage()?.getItem(STORE_KEY);
  if (saved && KNOWN.has(saved)) return saved;
  const prefs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const p of prefs) {
    const base = String(p).toLowerCase().split(/[-_]/)[0];
    if (KNOWN.has(base)) return base;
  }
  return "en";
}

async function fetchCatalogue(lang) {
  const r = await fetch(`/static/i18n/${lang}.json`);
  if (!r.ok) throw new Error(`i18n ${lang}: HTTP ${r.status}`);
  return r.json();
}

/** Load a language (and English as the fallback); remember=true stores the choice. */
export async function loadLang(lang, remember = false) {
  if (!KNOWN.has(lang)) lang = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalogue("en");
  messages = lang === "en" ? fallback : await fetchCatalogue(lang);
  current = lang;
  document.documentElement.lang = lang;
  if (remember) storage()?.setItem(STORE_KEY, lang);
  return lang;
}

export function t(key, params) {
  let s = messages[key] ?? fallback[key] ?? key;
  if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => (params[k] ?? m));
  return s;
}

export function has(key) {
  return key in messages || key in fallback;
}

const plurals = new Map();
/**
 * A message with a count: picks `key.one`, `key.few`, … by the language's plural
 * rules (Intl.PluralRules), else `key.other`; {n} is the count.
 */
export function tn(key, n, params = {}) {
  let rules = plurals.get(current);
  if (!rules) {
    rules = new Intl.PluralRules(current);
    plurals.set(current, rules);
  }
  const cat = rules.select(n);
  const k = has(`${key}.${cat}`) ? `${key}.${cat}` : `${key}.other`;
  return t(k, { ...params, n });
}
