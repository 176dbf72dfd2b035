// The audience display: draws views.public as /events sends it, with the running game's drawing.
// Text goes in with textContent only (a player's name is never parsed as HTML); the page only reads.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { view: null, boards: [], deadline: null, offset: 0 };
const money = (n) => n.toLocaleString("en-US");
const signed = (n) => (n > 0 ? "+" : n < 0 ? "−" : "±") + money(Math.abs(n));

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A long word in "ja+en" on two lines, the Japanese above the English (class -two: smaller).
function stack(node, words) {
  const lines = words.split(" · ");
  node.textContent = lines.join("\n");
  node.classList.toggle("-two", lines.length > 1);
}

// Pieces of one line said in each language ("ja+en": a Japanese line above an English one).
function sentence(node, pieces) {
  const lines = byLanguage(pieces).map((line) => line.join("   ·   "));
  node.textContent = lines.join("\n");
  node.classList.toggle("-two", lines.length > 1);
}

// Each game's drawing of its view, by the view's "game" (a view that names none: DEFAULT_GAME's),
// and its setup once the words are loaded: the game's own scripts on the page (its GameRules.page) add them.
const DRAWINGS = {};
const STARTS = [];

function show(view) {
  state.view = view;
  document.body.classList.remove("-waiting");
  document.body.dataset.phase = view.phase;
  document.title = TITLES[view.game || DEFAULT_GAME] || document.title;
  DRAWINGS[view.game || DEFAULT_GAME](view);
  document.body.dataset.shown = String(Date.now());
}

function waiting(words) {
  $("notice").textContent = words;
  document.body.classList.add("-waiting");
}

function connect() {
  const events = new EventSource("/events");
  events.addEventListener("now", (e) => { state.offset = JSON.parse(e.data).now - Date.now() / 1000; });
  events.addEventListener("boards", (e) => { state.boards = JSON.parse(e.data); });
  events.addEventListener("clock", (e) => { state.deadline = JSON.parse(e.data).deadline; });
  events.addEventListener("waiting", (e) => waiting(JSON.parse(e.data).waiting));
  events.onmessage = (e) => show(JSON.parse(e.data));
  events.onerror = () => { if (events.readyState !== EventSource.OPEN) waiting(t("Reconnecting…")); };
  // EventSource retries by itself (the server asks for 2 s); the first message after it
  // reconnects is the current state.
}

// /?mqtt=ws://HOST:PORT[&topic=plunder/ID/public]: the view from the broker's websocket listener
// instead of /events (the server that sends the page can be anywhere). The MQTT bundle is loaded
// only then. The broker carries the view alone: the chart is built here from the boards seen
// (as server.py's Boards does) and there is no countdown.
const seen = [];
function noteBoard(view) {
  const board = view.accounts, same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  while (seen.length && seen[seen.length - 1].turn > view.turn) seen.pop();
  if (board && board.length && (!seen.length || !same(seen[seen.length - 1].accounts, board))) {
    if (seen.length && seen[seen.length - 1].turn === view.turn) seen.pop();
    seen.push({ turn: view.turn, accounts: board });
  }
  state.boards = board && board.length ? seen : [];
}

function connectMqtt(url) {
  if (!/^wss?:\/\//.test(url)) { waiting(t("?mqtt= must be ws://HOST:PORT or wss://HOST:PORT")); return; }
  const topic = new URLSearchParams(location.search).get("topic") || "plunder/+/public";
  const script = document.createElement("script");
  script.src = "/mqtt.min.js";
  script.onerror = () => waiting(t("Cannot load the MQTT client"));
  script.onload = () => {
    const client = mqtt.connect(url, { reconnectPeriod: 2000, clean: true });
    client.on("connect", () => { $("notice").textContent = t("Waiting for the game"); client.subscribe(topic, { qos: 1 }); });
    client.on("message", (_topic, payload) => {
      const view = JSON.parse(new TextDecoder().decode(payload));
      noteBoard(view);
      show(view);
    });
    client.on("offline", () => waiting(t("Reconnecting…")));
  };
  document.head.append(script);
}

function start() {
  document.body.classList.toggle("-both", SPOKEN > 1);     // two languages: a game's styles make room for both
  STARTS.forEach((begin) => begin());
  const broker = new URLSearchParams(location.search).get("mqtt");
  if (broker) connectMqtt(broker); else connect();
}

document.addEventListener("DOMContentLoaded", () => loadWords(start));   // once every game's script has run
