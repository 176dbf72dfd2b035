// Plunder Bingo on the audience page (its view names no game: the page's default one), into its
// markup (bingo.html): the turn and the clock, the three drawn balls, the vote, every ball by
// place, the accounts and their chart, the final ranking. Drawn from views.public only; text via
// textContent; the words are page.js's t() (msgids).
"use strict";

const PHASES = {  // msgids
  new: "Waiting for the game", ready: "Get ready", draw: "Drawing the balls", voting: "Vote now!",
  resolve: "Votes counted", turn_over: "Turn over", final: "Final robbery cards",
  counting: "Counting the cash", finished: "Final ranking",
};
const PLACES = [  // [place, tag shown in the ball (the cue beside the colour), legend]
  ["machine", "M", "in the machine"], ["drawn", "D", "drawn"], ["valid", "✓", "valid"],
  ["pool", "P", "pool"], ["trash", "T", "trash"], ["excluded", "✕", "excluded"],
];
const SLOTS = ["X", "Y", "Z"];
const BALLS = 27;
const COLOURS = ["#ffd400", "#00d26a", "#3d8bff", "#ff5a4f", "#d36bff", "#ffffff",
                 "#ff9f1a", "#00e5ff", "#ff6ec7", "#b5e853", "#c8a2ff", "#9a9a9a"];
const SVG = "http://www.w3.org/2000/svg";

function placeOf(balls) {
  const where = new Map();
  for (const [place] of PLACES) for (const n of balls[place] || []) where.set(n, place);
  return where;
}

function showTop(view) {
  $("turn").textContent = view.turn ? String(view.turn) : "–";
  stack($("phase"), PHASES[view.phase] ? t(PHASES[view.phase]) : view.phase);
}

function showDraw(view) {
  const tally = view.tally;
  const drawn = view.balls.drawn.length ? view.balls.drawn
    : tally && view.phase !== "ready" ? SLOTS.map((s) => tally.options[s]).filter((n) => n !== undefined) : [];
  const valid = new Set(tally && view.phase !== "voting" ? tally.valid : []);
  document.querySelectorAll(".pick").forEach((pick, i) => {
    const n = drawn[i];
    const number = pick.querySelector(".num");
    number.textContent = n === undefined ? "–" : String(n);
    number.classList.toggle("-none", n === undefined);
    pick.classList.toggle("-drawn", n !== undefined && !valid.has(n));
    pick.classList.toggle("-valid", n !== undefined && valid.has(n));
  });
}

function showVotes(view) {
  const bars = $("bars");
  bars.replaceChildren();
  const tally = view.tally;
  const counted = tally && view.phase !== "voting";     // never a count while voting is open
  $("votes").classList.toggle("-counted", Boolean(counted));
  if (!counted) {
    bars.append(el("div", "note", view.phase === "voting" ? t("Voting is open") : ""));
    $("valid").textContent = "–";
    return;
  }
  const most = Math.max(1, ...SLOTS.map((s) => tally.votes[s] || 0));
  for (const slot of SLOTS) {
    if (!(slot in tally.options)) continue;
    const votes = tally.votes[slot] || 0;
    const bar = el("div", "bar" + (tally.valid.includes(tally.options[slot]) ? " -valid" : ""));
    const track = el("div", "track");
    const fill = el("div", "fill");
    fill.style.width = `${(100 * votes) / most}%`;
    track.append(fill);
    bar.append(el("span", "slot", slot), el("span", "ball-no", String(tally.options[slot])), track,
               el("span", "count", String(votes)));
    bars.append(bar);
  }
  const notes = [];
  if (tally.invalid) notes.push(t("{n} invalid", { n: tally.invalid }));
  if (tally.void) notes.push(t("vote void"));
  if (notes.length) bars.append(el("div", "note", notes.join(" · ")));
  $("valid").textContent = tally.valid.length ? tally.valid.join("  ") : t("none");
}

function buildBoard() {
  const legend = $("legend");
  for (const [place, tag, words] of PLACES) {
    const item = el("span", "-" + place, t(words));
    item.dataset.tag = tag;
    legend.append(item);
  }
  const balls = $("balls");
  for (let n = 1; n <= BALLS; n++) {
    const ball = el("div", "ball");
    ball.id = `ball-${n}`;
    ball.append(el("span", "n", String(n)), el("span", "tag", ""));
    balls.append(ball);
  }
}

function showBoard(view) {
  const where = placeOf(view.balls);
  for (let n = 1; n <= BALLS; n++) {
    const place = where.get(n);
    const ball = $(`ball-${n}`);
    ball.className = "ball" + (place ? " -" + place : "");
    const entry = PLACES.find(([p]) => p === place);
    ball.querySelector(".tag").textContent = entry ? entry[1] : "";
    ball.title = entry ? `${n}: ${t(entry[2])}` : String(n);
  }
}

function showAccounts(view) {
  const box = $("accounts");
  box.replaceChildren();
  box.classList.toggle("-many", view.accounts.length > 6);      // three columns, so the chart keeps its room
  const crowd = view.accounts.length > 12;                     // one line each, the side column wider
  box.classList.toggle("-crowd", crowd);
  document.body.classList.toggle("-crowd", crowd);
  const before = state.boards.length > 1 ? state.boards[state.boards.length - 2].accounts : [];
  const earlier = new Map(before.map((a) => [a.account, a.balance]));
  for (const { account, balance } of view.accounts) {
    const row = el("div", "account");
    row.dataset.account = account;
    const change = earlier.has(account) ? balance - earlier.get(account) : null;
    const delta = el("span", "delta" + (change > 0 ? " -up" : change < 0 ? " -down" : ""),
                     change === null ? "" : (change > 0 ? "▲ " : change < 0 ? "▼ " : "= ") + signed(change));
    row.append(el("span", "letter", account), el("span", "balance", money(balance)), delta);
    box.append(row);
  }
}

function showChart() {
  const svg = $("chart");
  svg.replaceChildren();
  const boards = state.boards;
  const box = svg.getBoundingClientRect();
  const width = Math.max(1, box.width), height = Math.max(1, box.height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  if (!boards.length) return;
  const font = parseFloat(getComputedStyle(svg).fontSize) || 16;   // every text of the chart, never smaller
  const values = boards.flatMap((b) => b.accounts.map((a) => a.balance));
  const spread = Math.max(...values) - Math.min(...values) || Math.max(1, Math.abs(values[0]));
  const low = Math.min(...values) - spread * 0.1, high = Math.max(...values) + spread * 0.1;
  const left = font * 4.2, right = font * 2.8, top = font * 0.7, bottom = font * 1.9;
  const x = (i) => left + (boards.length === 1 ? 0 : (i * (width - left - right)) / (boards.length - 1));
  const y = (v) => top + ((high - v) * (height - top - bottom)) / (high - low || 1);
  const draw = (tag, attrs) => {
    const node = document.createElementNS(SVG, tag);
    Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
    svg.append(node);
    return node;
  };
  const text = (tx, ty, words, attrs) => {
    const node = draw("text", { x: tx, y: ty, ...attrs });
    node.textContent = words;
    return node;
  };
  draw("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "axis" });
  draw("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, class: "axis" });
  for (const v of [Math.max(...values), Math.min(...values)]) {
    text(left - font * 0.3, y(v) + font * 0.35, short(v), { "text-anchor": "end", class: "tick" });
  }
  const every = turnStride(boards.length, width - left - right, font);
  boards.forEach((b, i) => (boards.length - 1 - i) % every === 0
    && text(x(i), height - font * 0.3, `T${b.turn}`, { "text-anchor": "middle", class: "tick" }));
  const lines = chartLines(boards, x, y);
  const labelled = placeLabels(lines, top + font * 0.5, height - bottom, font * 1.2);
  lines.sort((a, b) => labelled.has(a) - labelled.has(b));       // coloured lines over the grey ones
  for (const line of lines) {
    const colour = labelled.has(line) ? line.colour : "var(--line)";
    draw("polyline", { points: line.points.map((p) => p.join(",")).join(" "), fill: "none", stroke: colour,
                       "stroke-width": Math.max(2, font / (labelled.has(line) ? 6 : 10)), "data-account": line.letter });
    const [px, py] = line.points[line.points.length - 1];
    draw("circle", { cx: px, cy: py, r: Math.max(3, font / 4), fill: colour });
  }
  const column = width - right + font * 0.9;
  for (const [line, ly] of labelled) {
    const [px, py] = line.points[line.points.length - 1];
    draw("line", { x1: px, y1: py, x2: column - font * 0.2, y2: ly, stroke: line.colour, class: "leader" });
    text(column, ly + font * 0.36, line.letter, { class: "label" }).style.fill = line.colour;  // over the stylesheet's
  }
}

// One line per account (the letters of the latest board), with its last change.
function chartLines(boards, x, y) {
  const latest = boards[boards.length - 1].accounts;
  const before = new Map((boards.length > 1 ? boards[boards.length - 2].accounts : latest).map((a) => [a.account, a.balance]));
  return latest.map(({ account, balance }, k) => ({
    letter: account, colour: COLOURS[k % COLOURS.length], balance,
    change: Math.abs(balance - (before.has(account) ? before.get(account) : balance)),
    points: boards.map((b, i) => [i, b.accounts.find((a) => a.account === account)])
      .filter(([, a]) => a).map(([i, a]) => [x(i), y(a.balance)]),
  }));
}

// Labels at full size and never on each other: the leader first, then the turn's biggest movers,
// then the richest; each as near its line's end as a free place allows (at most three labels away),
// joined to it by a leader line. Those that find no place stay grey in the chart (the board above has every account).
function placeLabels(lines, first, last, gap) {
  const leader = lines.reduce((a, b) => (b.balance > a.balance ? b : a));
  const order = [...lines].sort((a, b) => (b === leader) - (a === leader) || b.change - a.change || b.balance - a.balance);
  const placed = new Map();
  for (const line of order) {
    const want = line.points[line.points.length - 1][1];
    const free = (at) => Math.abs(at - want) <= gap * 3      // further away, it would name the wrong line
      && [...placed.values()].every((other) => Math.abs(other - at) >= gap - 0.01);
    const tries = [want, first, last, ...[...placed.values()].flatMap((other) => [other - gap, other + gap])];
    const best = tries.map((at) => Math.min(last, Math.max(first, at))).filter(free)
      .sort((a, b) => Math.abs(a - want) - Math.abs(b - want))[0];
    if (best !== undefined) placed.set(line, best);
  }
  return placed;
}

// Every how many turns the axis names one, so that the names never touch (the latest is named).
function turnStride(turns, span, font) {
  return turns < 2 ? 1 : Math.max(1, Math.ceil((font * 2.4 * (turns - 1)) / Math.max(1, span)));
}

function short(v) {
  const a = Math.abs(v);
  return a >= 1e6 ? `${+(v / 1e6).toFixed(2)}M` : a >= 1e3 ? `${+(v / 1e3).toFixed(0)}k` : String(v);
}

// R2: a player whose final money is not negative beat the secretariat.
const beatsMark = (row) => (row.beats_secretariat ? " ★" : "");

function showFinal(view) {
  const ranking = view.ranking || [];
  document.body.classList.toggle("-finished", ranking.length > 0);
  if (!ranking.length) return;
  const podium = $("podium");
  podium.replaceChildren();
  for (const rank of [2, 1, 3]) {
    const row = ranking.find((r) => r.rank === rank) || null;
    const step = el("div", `step -r${rank}`);
    if (row) step.append(el("div", "who", row.name), el("div", "money", `${money(row.final)} L$${beatsMark(row)}`),
                         el("div", "block", String(rank)));
    podium.append(step);
  }
  const list = $("ranking");
  list.replaceChildren();
  list.style.setProperty("--rows", String(Math.ceil(ranking.length / (ranking.length > 8 ? 2 : 1))));
  for (const row of ranking) {
    const item = el("li", "");
    item.dataset.beats = String(Boolean(row.beats_secretariat));
    item.append(el("span", "rank", `${row.rank}.`), el("span", "name", row.name),
                el("span", "final", `${money(row.final)} L$`), el("span", "beats", beatsMark(row).trim()));
    list.append(item);
  }
  const beaten = ranking.filter((row) => row.beats_secretariat).length;
  $("beaten").textContent = "★ " + t("beat the secretariat (no debt): {beaten} of {players}",
                                      { beaten, players: ranking.length });
  $("chips").textContent = view.accounts.length ? ""
    : t("Final money in whole 10,000 L$ chips, rounded down: account letters stay secret.");
}

function showBingo(view) {
  showTop(view);
  showDraw(view);
  showVotes(view);
  showBoard(view);
  showAccounts(view);
  showFinal(view);
  showChart();
  tick();
}

function tick() {
  const timer = $("timer");
  if (state.deadline === null) {
    $("clock").textContent = "–";
    timer.classList.remove("-low");
    return;
  }
  const left = Math.max(0, Math.ceil(state.deadline - (Date.now() / 1000 + state.offset)));
  $("clock").textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  timer.classList.toggle("-low", left <= 10);
}

// Once the words are said: the fixed words, the board's balls, the clock, the chart redrawn at each size.
function startBingo() {
  stack($("phase"), t(PHASES.new));
  document.querySelectorAll(".pick .slot").forEach((node) => { node.dataset.valid = t("VALID"); });
  buildBoard();
  setInterval(tick, 250);
  window.addEventListener("resize", () => state.view && DRAWINGS[state.view.game || DEFAULT_GAME] === showBingo && showChart());
}

DRAWINGS.bingo = showBingo;
STARTS.push(startBingo);
