// Voters on the audience page (the view says "game": "voters"), into its markup (voters.html): who has
// bet while the bets come in (the view holds no number then), every number at the open with the
// unique ones highlighted, the winner or DOBON, the pot; always the ledger. Drawn from views.public
// only; text via textContent; the words are page.js's t() (msgids).
"use strict";

const VOTERS_PHASES = { ready: "Waiting for the deal", betting: "Place your bets", closed: "Bets closed" };

function showVoters(view) {
  document.body.classList.add("-voters");
  const game = view.games.length ? view.games[view.games.length - 1] : null;
  const who = new Map(view.players.map((p) => [p.no, p.name]));
  const settled = game && game.result !== null;
  stack($("v-phase"), !settled ? (VOTERS_PHASES[view.phase] ? t(VOTERS_PHASES[view.phase]) : view.phase)
    : game.result === "no_game" ? t("No game") : t("The open"));
  stack($("v-game"), game ? t("GAME {no}", { no: game.no }) : view.event);
  stack($("v-pot"), game ? t("POT {pot}", { pot: money(game.pot) }) : "");
  const count = game ? (game.bets ? Object.keys(game.bets).length : game.bettors.length) : 0;
  sentence($("v-deal"), game ? [t("Dealer {name}", { name: who.get(game.dealer) }),
                                 t("stake {stake}", { stake: money(game.stake) }),
                                 count === 1 ? t("1 bet") : t("{n} bets", { n: count })] : []);
  showBets(game, view.players);
  showVerdict(game, who);
  showLedger(view.players, game ? game.dealer : null);
}

function showBets(game, players) {
  const box = $("v-bets");
  box.replaceChildren();
  box.classList.toggle("-open", Boolean(game && (game.result === "won" || game.result === "dobon")));  // numbers once settled
  if (!game) { box.append(el("div", "empty", t("The dealer deals the first game"))); return; }
  if (box.classList.contains("-open")) {
    for (const p of players) {
      if (!(String(p.no) in game.bets)) continue;
      const number = game.bets[String(p.no)];
      const winner = game.result === "won" && game.winner === p.no;
      const kind = number === null ? "-invalid" : game.unique.includes(number) ? "-unique" : "-duplicated";
      const card = el("div", `vcard ${kind}${winner ? " -winner" : ""}`);
      card.dataset.player = String(p.no);
      const note = t(winner ? "WINNER" : { "-invalid": "invalid card", "-unique": "unique", "-duplicated": "duplicated" }[kind]);
      card.append(el("div", "who", p.name), el("div", "number", number === null ? "✖" : String(number)),
                  el("div", "note", note));
      box.append(card);
    }
    return;
  }
  const bettors = new Set(game.bettors || Object.keys(game.bets).map(Number));
  for (const p of players) {
    if (p.no === game.dealer) continue;
    const chip = el("div", "chip" + (bettors.has(p.no) ? " -in" : ""), (bettors.has(p.no) ? "✔ " : "· ") + p.name);
    chip.dataset.player = String(p.no);
    box.append(chip);
  }
}

function showVerdict(game, who) {
  const box = $("v-verdict");
  box.replaceChildren();
  box.className = game && game.result ? "-" + game.result : "";
  if (!game || !game.result) return;
  const headline = { won: t("{name} WINS", { name: who.get(game.winner) }), dobon: t("DOBON!"),
                     no_game: t("NO GAME") }[game.result];
  const line = { won: t("with {number}: takes {pot}", { number: game.number, pot: money(game.pot) }),
                 dobon: t("no unique number: the dealer {name} takes {pot}", { name: who.get(game.winner), pot: money(game.pot) }),
                 no_game: t("every stake is returned") }[game.result];
  const [top, under] = [el("div", "headline"), el("div", "line")];
  stack(top, headline);
  stack(under, line);
  box.append(top, under);
}

function showLedger(players, dealer) {
  const box = $("v-ledger");
  box.replaceChildren();
  for (const p of players) {
    const row = el("div", "row");
    const name = el("span", "name", p.name);
    if (p.no === dealer) name.append(el("span", "role", ` (${t("dealer")})`));
    row.append(name,
               el("span", "net" + (p.net > 0 ? " -up" : p.net < 0 ? " -down" : ""), signed(p.net)));
    box.append(row);
  }
}

DRAWINGS.voters = showVoters;
