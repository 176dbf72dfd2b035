// The jail card game on the audience page (the view says "game": "jail"): the three rows with a
// gap between groups, the jail with its progress towards both end conditions (J4), each player's
// display, hand size and scores, the winner. Drawn from views.public only; text via textContent.
"use strict";

const JAIL_PHASES = {
  new: "Waiting for the table", layout: "Laying out the rows", deal: "Dealing the hands", turn: "Take a group",
  play: "Play a group, or refill", refill: "Refill the row", relayout: "New rows", round_over: "Round over",
  finished: "Game over",
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
  rows.append(el("div", "cap", "ROWS"), part("div", "j-lines"));
  jail.append(el("div", "cap", "JAIL"), part("div", "j-kinds"), part("div", "j-progress"));
  players.append(el("div", "cap", "PLAYERS"), part("div", "j-table"), part("div", "j-verdict"));
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
  document.title = "The jail card game";
  document.body.classList.add("-jail");
  jailPage();
  const who = new Map(view.players.map((p) => [p.no, p.name]));
  const playing = ["turn", "play", "refill", "relayout"].includes(view.phase) && view.turn_player !== null;
  $("j-round").textContent = `ROUND ${view.round} / 3`;
  $("j-phase").textContent = (playing ? `${who.get(view.turn_player)}: ` : "") + (JAIL_PHASES[view.phase] || view.phase);
  $("j-deck").textContent = `DECK ${view.deck_size}`;
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
    if (!row.length) line.append(el("span", "empty", "empty"));
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
  if (!Object.keys(view.jail).length) kinds.append(el("span", "empty", "empty"));
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
    line.append(el("span", "what", `${part.cards}+ of ${part.needed} kinds`), bar,
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
    row.append(el("span", "name", p.name), el("span", "hand", `${p.hand_size} in hand`), shows,
               el("span", "scores", p.scores.join(" + ") || "–"), el("span", "total", String(p.total)));
    table.append(row);
  }
  const last = view.rounds.length ? view.rounds[view.rounds.length - 1] : null;
  $("j-verdict").textContent = winners.length ? `WINNER: ${winners.map((no) => who.get(no)).join(", ")}`
    : last ? `Round ${last.no}: ` + Object.entries(last.scores).map(([no, s]) => `${who.get(Number(no))} ${s}`).join(", ")
    : "";
  $("j-verdict").classList.toggle("-winner", winners.length > 0);
}
