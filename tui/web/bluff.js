// Auction Bluff on the audience page (the view says "game": "bluff"): what the rulebook announces
// (D8): during the declarations every valid one as accepted, the one that would be selected now
// marked; per judged period the declaration selected and the win or elimination; who owns which gem.
// At the end the view adds the true counts, the dice each player holds and each result. The public
// view holds no die's face, and none of those before the end, so none can show. Uses page.js's $,
// el, money and words.js's t(), word(), listed() and the Bluff tables (msgids, as tui/bluff/words.py's: a gem's name is one too).
"use strict";

const yen = (n) => (n > 0 ? "+" : n < 0 ? "−" : "±") + "¥" + money(Math.abs(n));
const declaredAs = (chosen) => `${chosen.count} × ${chosen.face}`;

function bluffPage() {
  if ($("bluff")) return;
  const page = el("main");
  page.id = "bluff";
  page.setAttribute("aria-label", "Auction Bluff");
  const top = el("header");
  top.id = "b-top";
  for (const id of ["b-event", "b-phase", "b-wild"]) top.append(Object.assign(el("div"), { id }));
  const sections = ["b-verdict", "b-declarations", "b-periods", "b-gems"].map((id) => Object.assign(el("section"), { id }));
  page.append(top, ...sections);
  document.body.append(page);
}

function showBluff(view) {
  document.body.classList.add("-bluff");
  bluffPage();
  const who = new Map(view.players.map((p) => [p.no, p.name]));
  const during = view.period && (view.phase === "dice" || view.phase === "declare");
  $("b-event").textContent = view.event;
  const phase = BLUFF_PHASES[view.phase];
  stack($("b-phase"), !phase ? view.phase
    : during ? t("Period {n}: {phase}", { n: view.period, phase: word(phase) }) : t(phase));
  stack($("b-wild"), view.star_wild ? t("★ is wild") : t("★ is not wild"));
  showBluffVerdict(view, who);
  showBluffDeclarations(view, who);
  showBluffPeriods(view.periods, who);
  showBluffGems(view);
}

function finalLine(view) {
  if (view.phase !== "finished") return "";
  if (view.winner === null) return t("No winner: no die pays, every player pays the ¥100,000,000 fee (D4)");
  const winner = view.players.find((p) => p.no === view.winner);
  return t("{name} wins: every {gem} die pays its holder ¥100,000,000 (AB6)", { name: winner.name, gem: word(winner.gem) });
}

function showBluffVerdict(view, who) {
  const box = $("b-verdict");
  const last = view.periods.length ? view.periods[view.periods.length - 1] : null;
  box.replaceChildren();
  box.className = last ? "-" + last.result : "";
  if (!last) { box.append(el("div", "line", t("No period judged yet"))); return; }
  const chosen = last.selected;
  const headline = el("div", "headline", (chosen ? `${who.get(chosen.player)} ` : "") + t(BLUFF_OUTCOMES[last.result]));
  const [line, final] = [el("div", "line"), el("div", "final")];
  const pieces = !chosen ? [t("Period {n}: nobody declared: the game ends, every player pays (AB4)", { n: last.no })]
    : [t("Period {n}: declared {declared}", { n: last.no, declared: declaredAs(chosen) }),
       ...(last.true_count == null ? [] : [t("true count {count}", { count: last.true_count })])];
  sentence(line, pieces);
  stack(final, finalLine(view));
  box.append(headline, line, final);
}

// D8: the true count is in the view only once the game is over.
const trueCount = (period) => (period.true_count == null ? "" : String(period.true_count));

function showBluffDeclarations(view, who) {
  const box = $("b-declarations");
  const made = view.declarations || [];
  box.replaceChildren();
  box.hidden = view.phase !== "declare";
  if (box.hidden) return;
  box.append(el("div", "cap", t("DECLARATIONS (▶ would be selected now)")));
  if (!made.length) box.append(el("div", "line", t("None yet")));
  for (const d of made) {
    const row = el("div", "declaration" + (d.leading ? " -leading" : ""),
                   `${d.leading ? "▶ " : ""}${who.get(d.player)}: ${declaredAs(d)}`);
    row.dataset.player = String(d.player);
    box.append(row);
  }
}

function showBluffPeriods(periods, who) {
  const box = $("b-periods");
  const head = el("div", "phead");
  for (const words of ["", t("Declarer"), t("Declared"), t("True count"), t("Outcome")]) {
    const cell = el("span");
    stack(cell, words);                    // "ja+en": the Japanese above the English
    head.append(cell);
  }
  box.replaceChildren(el("div", "cap", t("PERIODS")), ...(periods.length ? [head] : []));
  for (const p of periods) {
    const row = el("div", "period -" + p.result);
    row.dataset.period = String(p.no);
    const [count, outcome] = [el("span", "count", trueCount(p) || "–"), el("span", "outcome")];
    stack(outcome, t(BLUFF_OUTCOMES[p.result]));
    count.dataset.caption = t("True count").split(" · ").join("\n");     // on a phone, before the count
    row.append(el("span", "no", String(p.no)), el("span", "who", p.selected ? who.get(p.selected.player) : t("nobody")),
               el("span", "declared", p.selected ? declaredAs(p.selected) : "–"),
               count,
               outcome);
    box.append(row);
  }
}

function showBluffGems(view) {
  const box = $("b-gems");
  box.replaceChildren(el("div", "cap", t("GEMS")));
  for (const p of view.players) {
    const row = el("div", "gemrow" + (p.eliminated ? " -out" : "") + (p.no === view.winner ? " -winner" : ""));
    row.dataset.player = String(p.no);
    const dice = p.dice ? listed(Object.entries(p.dice).map(([gem, n]) => t("{n} {gem}", { n, gem: word(gem) })))
                          || t("no dice") : "–";
    const held = el("span", "dice");
    stack(held, dice);                     // "ja+en": a line in each
    row.append(el("span", "who", p.name + (p.eliminated ? ` (${t("out")})` : "")), el("span", "gem -" + p.gem, t(p.gem)),
               held,
               el("span", "result" + (p.result > 0 ? " -up" : p.result < 0 ? " -down" : ""),
                  p.result === null ? "" : yen(p.result)));
    box.append(row);
  }
}

DRAWINGS.bluff = showBluff;
