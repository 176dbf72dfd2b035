// A player's private Auction Bluff page: /p/<token>. It reads /p/<token>/state.json (only this
// player's dice, vote and declaration, and the public view) and posts the player's dice faces and
// declaration; the server sends them to the open console, which is the one writer. The words are
// words.js's t() in the event's language; a player's name and the game's refusals stay as they are.
"use strict";
const FACES = ["1", "2", "3", "4", "5", "★"];
const base = location.pathname.replace(/\/+$/, "");
const $ = (id) => document.getElementById(id);
const phone = { view: null, picks: null, voteShown: null };

function nonce() {          // crypto.randomUUID needs https; getRandomValues works on the venue's http too
  return [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function text(id, value) { $(id).textContent = value; }

function facesText(vote) {
  if (!vote) return "–";
  return listed(Object.entries(vote).map(([gem, faces]) => t("{gem} {faces}", { gem: word(gem), faces: faces.join(" ") })));
}

const declared = (d) => `${d.face} × ${d.count}`;

function declarationText(d) {
  if (!d) return "–";
  return d.invalid ? t("{declared} (invalid: {reason})", { declared: declared(d), reason: d.invalid }) : declared(d);
}

function closed(action, deadlines) {
  const until = { until: deadlines[action].until };
  return action === "dice" ? t("Dice votes closed at {until}", until) : t("Declarations closed at {until}", until);
}

function notice(view) {
  if (view.waiting) return t("Waiting for the game");
  const me = view.me, deadlines = view.deadlines;
  if (me.eliminated) return t("You are eliminated: no more votes or declarations (AB3)");
  if (!view.console) return t("No console is open: ask the dealer");
  if (view.public.phase === "dice" && !deadlines.dice.open) return closed("dice", deadlines);
  if (view.public.phase === "declare" && !deadlines.declare.open) return closed("declare", deadlines);
  return "";
}

function drawDice(me, canVote) {
  const voteKey = JSON.stringify(me.vote);
  if (phone.picks === null || voteKey !== phone.voteShown) {       // the journal changed: start from it
    phone.voteShown = voteKey;
    phone.picks = Object.fromEntries(Object.entries(me.dice).map(([gem, n]) =>
      [gem, Array.from({ length: n }, (_, i) => (me.vote && me.vote[gem] ? me.vote[gem][i] : null) ?? null)]));
  }
  const rows = $("dice-rows");
  rows.replaceChildren();
  for (const [gem, faces] of Object.entries(phone.picks)) {
    faces.forEach((picked, i) => {
      const row = document.createElement("div");
      row.className = "die";
      row.dataset.gem = gem; row.dataset.die = i;
      const label = document.createElement("span");
      label.className = "label"; label.textContent = t("{gem} die {n}", { gem: word(gem), n: i + 1 }).split(" · ").join("\n");   // a line each
      row.append(label);
      for (const face of FACES) {
        const button = document.createElement("button");
        button.type = "button"; button.className = "face" + (face === picked ? " -picked" : "");
        button.textContent = face; button.dataset.face = face; button.disabled = !canVote;
        button.onclick = () => { phone.picks[gem][i] = face; draw(phone.view); };
        row.append(button);
      }
      rows.append(row);
    });
  }
  const complete = Object.values(phone.picks).every((faces) => faces.every((f) => f !== null));
  $("send-dice").disabled = !canVote || !complete;
}

function periodText(period, players) {
  const s = period.selected;
  if (!s) return t("Period {n}: nobody declared: the game ends, every player pays (AB4)", { n: period.no });
  const fill = { n: period.no, name: players.find((p) => p.no === s.player).name, declared: declared(s),
                 count: period.true_count };
  const won = period.result === "won";
  if (period.true_count == null) {
    return won ? t("Period {n}: {name} declared {declared}; WINS", fill) : t("Period {n}: {name} declared {declared}; is ELIMINATED", fill);
  }
  return won ? t("Period {n}: {name} declared {declared}; true count {count}: WINS", fill)
    : t("Period {n}: {name} declared {declared}; true count {count}: is ELIMINATED", fill);
}

function drawTable(view) {
  const body = $("players").tBodies[0];
  body.replaceChildren();
  for (const p of view.public.players) {
    const row = body.insertRow();
    row.className = (p.eliminated ? "-out" : "") + (p.no === view.me.no ? " -me" : "");
    // D8: the public view holds each player's dice only once the game is over; the player's own are in view.me
    const dice = p.no === view.me.no ? view.me.dice : p.dice;
    const held = dice ? listed(Object.entries(dice).map(([gem, n]) => t("{n} {gem}", { n, gem: word(gem) }))) : "–";
    for (const value of [p.no, p.name, t(p.gem), held]) row.insertCell().textContent = value;
  }
  const periods = $("periods");
  periods.replaceChildren();
  for (const period of view.public.periods) {
    const item = document.createElement("li");
    item.textContent = periodText(period, view.public.players);
    periods.append(item);
  }
  const phase = word(BLUFF_PHASES[view.public.phase] || view.public.phase);
  text("phase", view.public.period == null ? t(phase.word) : t("Period {n}: {phase}", { n: view.public.period, phase }));
}

function draw(view) {
  phone.view = view;
  text("notice", notice(view));
  text("dice-until", view.deadlines.dice.until);
  text("declare-until", view.deadlines.declare.until);
  if (view.waiting) return;
  const me = view.me, phase = view.public.phase, active = !me.eliminated && view.console;
  text("name", `${me.name} (No.${me.no})`);
  text("gem", t(me.gem));
  $("gem").dataset.gem = me.gem;
  text("my-vote", facesText(me.vote));
  text("my-declaration", declarationText(me.declaration));
  drawDice(me, active && phase === "dice" && view.deadlines.dice.open);
  const canDeclare = active && phase === "declare" && view.deadlines.declare.open;
  for (const id of ["face", "count", "send-declare"]) $(id).disabled = !canDeclare;
  drawTable(view);
  document.body.dataset.ready = "1";
}

async function refresh() {
  const answer = await fetch(`${base}/state.json`, { cache: "no-store" });
  if (answer.status === 403) { text("notice", t("This page's pass is not valid")); return; }
  if (answer.ok) draw(await answer.json());
}

// What the server answered, in words: the game's own refusal (its reason) stays as the game says it.
function answerText(action, reply, status) {
  if (reply.status === "ok") return t("Accepted");
  if (status === 403) return t("This page's pass is not valid");
  if (reply.status === "closed") return closed(action, phone.view.deadlines);
  if (reply.status === "no_console") return t("No console is open: ask the dealer");
  return t("Refused: {reason}", { reason: reply.reason });
}

async function send(action, body) {
  const answer = await fetch(`${base}/${action}`, { method: "POST", headers: { "Content-Type": "application/json" },
                                                   body: JSON.stringify({ ...body, nonce: nonce() }) });
  const reply = answer.status === 403 ? { status: "refused" } : await answer.json();
  $("answer").dataset.status = reply.status;
  text("answer", answerText(action, reply, answer.status));
  if (reply.me) { if (reply.status === "ok") phone.picks = null; draw(reply); }
}

$("send-dice").onclick = () => send("dice", { faces: phone.picks });
$("send-declare").onclick = () => send("declare", { face: Number($("face").value), count: Number($("count").value) });
loadWords(() => { refresh(); setInterval(refresh, 3000); });
