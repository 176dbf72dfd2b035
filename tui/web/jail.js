// The jail card game on the audience page (the view says "game": "jail"): the three rows with a
// gap between groups, the jail with its progress towards both end conditions (J4), each player's
// display, hand size and scores, the winner. Drawn from views.public only; text via textContent;
// the words are page.js's t() (msgids, as tui/jail/words.py's).
"use strict";

const JAIL_PHASES = {  // msgids
  new: "Waiting for the table", layout: "Lay out the rows", deal: "Deal the hands", turn: "Take a group",
  play: "Play a group, or refill", refill: "Refill the row", relayout: "No row can be taken from: new rows",
  round_over: "Round over", finished: "Game over",
};
const JAIL_COLOURS = ["#ff5a4f", "#ffd400", "#00d26a", "#3d8bff", "#ff9f1a", "#d36bff", "#00e5ff", "#ff6ec7",
                      "#b5e853", "#9a9a9a", "#66ff99", "#ff9999"];

function jailPage() {
  let page = document.getElementById("jail");
  if (page) return page;
  page = el("main", "");
  page.id = "jail";
  page.setAttribute("aria-label", "The jail card game");
  const part = (tag, id, label) => { const node = el(tag, ""); node.id = id; if (label) node.setAttribute("aria-label", label); return node; };
  const top = part("header", "j-top");
  top.append(part("div", "j-round"), part("div", "j-phase"), part("div", "j-deck"));
  const rows = part("section", "j-rows", "The rows"), jail = part("section", "j-jail", "The jail");
  const players = part("section", "j-players", "The players");
  rows.append(el("div", "cap", t("ROWS")), part("div", "j-lines"));
  jail.append(el("div", "cap", t("JAIL")), part("div", "j-kinds"), part("div", "j-progress"));
  players.append(el("div", "cap", t("PLAYERS")), part("div", "j-table"), part("div", "j-verdict"));
  page.append(top, rows, jail, players);
  document.body.append(page);
  return page;
}

function jailCard(view, kind, className) {
  const card = el("span", className, kind);
  const at = view.kinds.indexOf(kind);
  card.style.setProperty("--kind", at < 0 ? "#fff" : JAIL_COLOURS[at % JAIL_COLOURS.length]);
  return card;
}

function showJail(view) {
  document.body.classList.add("-jail");
  jailPage();
  const who = new Map(view.players.map((p) => [p.no, p.name]));
  const playing = ["turn", "play", "refill", "relayout"].includes(view.phase) && view.turn_player !== null;
  const phase = JAIL_PHASES[view.phase];
  stack($("j-round"), t("ROUND {round} / 3", { round: view.round }));
  stack($("j-phase"), !phase ? view.phase
    : playing ? t("{name}: {phase}", { name: who.get(view.turn_player), phase: word(phase) }) : t(phase));
  stack($("j-deck"), t("DECK {n}", { n: view.deck_size }));
  showJailRows(view);
  showJailCells(view);
  showJailPlayers(view, who);
}

function showJailRows(view) {
  const lines = $("j-lines");
  lines.replaceChildren();
  view.rows.forEach((row, i) => {
    const line = el("div", "jrow");
    line.dataset.row = String(i + 1);
    line.append(el("span", "no", String(i + 1)));
    row.forEach((kind, at) => line.append(jailCard(view, kind, "jcard" + (at && row[at - 1] !== kind ? " -group" : ""))));
    if (!row.length) line.append(el("span", "empty", t("empty")));
    lines.append(line);
  });
}

function showJailCells(view) {
  const kinds = $("j-kinds");
  kinds.replaceChildren();
  for (const [kind, count] of Object.entries(view.jail)) {
    const cell = el("span", "jcell");
    cell.dataset.kind = kind;
    cell.append(jailCard(view, kind, "jcard"), el("span", "count", String(count)));
    kinds.append(cell);
  }
  if (!Object.keys(view.jail).length) kinds.append(el("span", "empty", t("empty")));
  const progress = $("j-progress");
  progress.replaceChildren();
  for (const part of view.progress) {
    const done = Math.min(part.kinds, part.needed);
    const line = el("div", "jprogress" + (done >= part.needed - 1 ? " -near" : ""));
    const bar = el("span", "bar");
    const fill = el("span", "fill"), rest = el("span", "rest");   // flex shares: the kinds done, the kinds to go
    fill.style.flexGrow = String(done);
    rest.style.flexGrow = String(part.needed - done);
    bar.append(fill, rest);
    const what = el("span", "what");
    stack(what, t("{cards}+ of {needed} kinds", { cards: part.cards, needed: part.needed }));   // "ja+en": a line each
    line.append(what, bar,
                el("span", "done", `${part.kinds}/${part.needed}`));
    progress.append(line);
  }
}

function showJailPlayers(view, who) {
  const table = $("j-table");
  table.replaceChildren();
  const winners = view.winner || [];
  for (const p of view.players) {
    const turn = p.no === view.turn_player && !["round_over", "finished"].includes(view.phase);
    const row = el("div", "jplayer" + (turn ? " -turn" : "") + (winners.includes(p.no) ? " -winner" : ""));
    row.dataset.player = String(p.no);
    const shows = el("span", "shows");
    for (const [kind, count] of Object.entries(p.display)) {
      const group = el("span", "jshown");
      group.append(jailCard(view, kind, "jcard"), el("span", "count", `×${count}`));
      shows.append(group);
    }
    row.append(el("span", "name", p.name), el("span", "hand", t("{n} in hand", { n: p.hand_size })), shows,
               el("span", "scores", p.scores.join(" + ") || "–"), el("span", "total", String(p.total)));
    table.append(row);
  }
  const last = view.rounds.length ? view.rounds[view.rounds.length - 1] : null;
  stack($("j-verdict"), winners.length ? t("WINNER: {names}", { names: winners.map((no) => who.get(no)).join(", ") })
    : last ? t("Round {n}: {scores}", { n: last.no,
                                        scores: Object.entries(last.scores).map(([no, s]) => `${who.get(Number(no))} ${s}`).join(", ") })
    : "");
  $("j-verdict").classList.toggle("-winner", winners.length > 0);
}

DRAWINGS.jail = showJail;
