// Refusals and notices at the table: the server's refusal in the player's words, the
// link to the rule it cites, and the toasts that show them for a few seconds.
import { useState, useRef } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t, tn, has } from "./i18n.js";
import { rulesHref } from "./rules.js";

/**
 * A refusal from the server, localized where we know the rule it breaks: `rule` is the
 * server's `rule` field (the engine's `IllegalAction.rule`, e.g. "6.2"; null for the
 * server's own refusals), never parsed from the text. `ref` is the section to link.
 */
export function explain(message, rule, code, facts) {
  const msg = String(message || "");
  const ref = typeof rule === "string" && rule ? rule : null;
  // The engine's refusal code and facts, worded in the player's language (plurals by
  // Intl.PluralRules); the rule is cited once, by the link, never in the text.
  if (typeof code === "string" && code) {
    const f = facts && typeof facts === "object" ? facts : {};
    const n = f.need ?? f.n;
    if (typeof n === "number" && has(`refusal.${code}.other`)) return { title: tn(`refusal.${code}`, n, f), detail: "", ref };
    if (has(`refusal.${code}`)) return { title: t(`refusal.${code}`, f), detail: "", ref };
  }
  if (ref) {
    const major = ref.split(".")[0];
    if (has(`rule.${ref}`)) return { title: t(`rule.${ref}`), detail: msg, ref };
    if (has(`rule.${major}`)) return { title: t(`rule.${major}`), detail: msg, ref };
  }
  return { title: t("error.refused"), detail: msg, ref };
}

/** A link to the rules page section a refusal cites. */
export function RuleLink({ ref_ }) {
  if (!ref_) return null;
  return html`<a class="rule-link" href=${rulesHref(ref_)} onClick=${(e) => e.stopPropagation()}>${t("rules.see", { ref: ref_ })}</a>`;
}

/**
 * The toasts shown and `toast(kind, title, detail, ref)`, which adds one (stable: safe in
 * a long-lived handler). At most one toast of each kind: a newer one replaces the older.
 */
export function useToasts() {
  const [toasts, setToasts] = useState([]);
  const toastId = useRef(0);
  const toast = useRef((kind, title, detail, ref) => {
    const tid = ++toastId.current;
    setToasts((xs) => [...xs.filter((x) => x.kind !== kind), { id: tid, kind, title, detail, ref }]);
    setTimeout(() => setToasts((xs) => xs.filter((x) => x.id !== tid)), kind === "error" ? 8000 : 5000);
  }).current;
  const close = (id) => setToasts((xs) => xs.filter((y) => y.id !== id));
  return { toasts, toast, close };
}

export function Toasts({ toasts, onClose }) {
  return html`<div class="toasts" aria-live="polite">
    ${toasts.map(
      (x) => html`<div key=${x.id} class=${"toast toast-" + x.kind} role=${x.kind === "error" ? "alert" : "status"} onClick=${() => onClose(x.id)}>
        <b>${x.title}</b>${x.detail && html`<small>${x.detail}</small>`}<${RuleLink} ref_=${x.ref} />
      </div>`,
    )}
  </div>`;
}
