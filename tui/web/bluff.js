// Auction Bluff on the audience page (the view says "game": "bluff"): what the rulebook announces
// (D8): during the declarations every valid one as accepted, the one that would be selected now
// marked; per judged period the declaration selected and the win or elimination; who owns which gem.
// At the end the view adds the true counts, the dice each player holds and each result. The public
// view holds no die's face, and none of those before the end, so none can show. Uses page.js's $,
// el and money.
"use strict";

const BLUFF_PHASES = { new: "Waiting for the game", ready: "Between periods", dice: "Dice vote",
                       declare: "Declarations", finished: "Game over" };
const BLUFF_OUTCOMES = { won: "WINS", eliminated: "ELIMINATED", no_declaration: "NO DECLARATION" };
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
  document.title = "Auction Bluff";
  document.body.classList.add("-bluff");
  bluffPage();
  const who = new Map(view.players.map((p) => [p.no, p.name]));
  const during = view.period && (view.phase === "dice" || view.phase === "declare");
  $("b-event").textContent = view.event;
  $("b-phase").textContent = (during ? `Period ${view.period}: ` : "") + (BLUFF_PHASES[view.phase] || view.phase);
  $("b-wild").textContent = view.star_wild ? "★ is wild" : "★ is not wild";
  showBluffVerdict(view, who);
  showBluffDeclarations(view, who);
  showBluffPeriods(view.periods, who);
  showBluffGems(view);
}

function finalLine(view) {
  if (view.phase !== "finished") return "";
  if (view.winner === null) return "No winner: no die pays; every player pays the ¥100,000,000 fee";
  const winner = view.players.find((p) => p.no === view.winner);
  return `Every ${winner.gem} die pays its holder ¥100,000,000; ${winner.name} also takes the bonus`;
}

function showBluffVerdict(view, who) {
  const box = $("b-verdict");
  const last = view.periods.length ? view.periods[view.periods.length - 1] : null;
  box.replaceChildren();
  box.className = last ? "-" + last.result : "";
  if (!last) { box.append(el("div", "line", "No period judged yet")); return; }
  const chosen = last.selected;
  box.append(el("div", "headline", (chosen ? `${who.get(chosen.player)} ` : "") + BLUFF_OUTCOMES[last.result]),
             el("div", "line", chosen
               ? `Period ${last.no}: declared ${declaredAs(chosen)}` + trueCount(last, " · true count ")
               : `Period ${last.no}: nobody declared: the game ends`),
             el("div", "final", finalLine(view)));
}

// D8: the true count is in the view only once the game is over.
const trueCount = (period, words = "") => (period.true_count == null ? "" : words + String(period.true_count));

function showBluffDeclarations(view, who) {
  const box = $("b-declarations");
  const made = view.declarations || [];
  box.replaceChildren();
  box.hidden = view.phase !== "declare";
  if (box.hidden) return;
  box.append(el("div", "cap", "DECLARATIONS · ▶ would be selected now"));
  if (!made.length) box.append(el("div", "line", "None yet"));
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
  for (const words of ["", "Declarer", "Declared", "True count", "Outcome"]) head.append(el("span", "", words));
  box.replaceChildren(el("div", "cap", "PERIODS"), ...(periods.length ? [head] : []));
  for (const p of periods) {
    const row = el("div", "period -" + p.result);
    row.dataset.period = String(p.no);
    row.append(el("span", "no", String(p.no)), el("span", "who", p.selected ? who.get(p.selected.player) : "nobody"),
               el("span", "declared", p.selected ? declaredAs(p.selected) : "–"),
               el("span", "count", trueCount(p) || "–"),
               el("span", "outcome", BLUFF_OUTCOMES[p.result]));
    box.append(row);
  }
}

function showBluffGems(view) {
  const box = $("b-gems");
  box.replaceChildren(el("div", "cap", "GEMS"));
  for (const p of view.players) {
    const row = el("div", "gemrow" + (p.eliminated ? " -out" : "") + (p.no === view.winner ? " -winner" : ""));
    row.dataset.player = String(p.no);
    const dice = p.dice ? Object.entries(p.dice).map(([gem, n]) => `${n} ${gem}`).join(", ") || "no dice" : "–";
    row.append(el("span", "who", p.name + (p.eliminated ? " (out)" : "")), el("span", "gem -" + p.gem, p.gem),
               el("span", "dice", dice),
               el("span", "result" + (p.result > 0 ? " -up" : p.result < 0 ? " -down" : ""),
                  p.result === null ? "" : yen(p.result)));
    box.append(row);
  }
}
