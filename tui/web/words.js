// The pages' words (the audience page and the players' phone pages load this first). They come
// from /words.json in the event's language (companion/locale); t() shows one, filling its
// {placeholders}; a word missing there shows as its English msgid. A placeholder filled with
// word(msgid) is said in the language of each part ("ja+en": Japanese, then English).
"use strict";

let WORDS = {}, SPOKEN = 1;            // SPOKEN: how many languages ("ja+en": 2)
let TITLES = {}, DEFAULT_GAME = "";    // each game's title by its name; the game of a view that names none
const word = (id) => ({ word: id });
const t = (id, fill = {}) => {
  const parts = (WORDS[id] || id).split(" · ");
  while (parts.length < SPOKEN) parts.push(parts[parts.length - 1]);    // a word the same in both
  const filled = parts.map((part, i) => part.replace(/\{(\w+)\}/g, (all, key) => {
    const value = fill[key];
    if (value && value.word !== undefined) { const said = t(value.word).split(" · "); return said[Math.min(i, said.length - 1)]; }
    return String(value ?? all);
  }));
  return [...new Set(filled)].join(" · ");
};

// Pieces each said in the chosen languages, regrouped by language: [[ja pieces], [en pieces]].
function byLanguage(pieces) {
  const parts = pieces.map((piece) => piece.split(" · "));
  const count = Math.max(0, ...parts.map((p) => p.length));
  return Array.from({ length: count }, (_, i) => parts.map((p) => p[Math.min(i, p.length - 1)]));
}

// A list of words in each language, as t() says one word: "ルビー5個, … · 5 ruby, …".
const listed = (pieces, between = ", ") => byLanguage(pieces).map((line) => line.join(between)).join(" · ");

// Loads the words, says the page's fixed ones (data-words="msgid" in its HTML), then start(language).
function loadWords(start) {
  fetch("/words.json").then((answer) => (answer.ok ? answer.json() : {}))
    .catch(() => ({})).then((answer) => {
      WORDS = answer.words || {};
      TITLES = answer.titles || {};
      DEFAULT_GAME = answer.default_game;
      SPOKEN = (answer.language || "en").split("+").length;
      document.documentElement.lang = answer.language === "en" ? "en" : "ja";   // Japanese glyph forms for "ja+en"
      document.querySelectorAll("[data-words]").forEach((node) => { node.textContent = t(node.dataset.words); });
      start(answer.language);
    });
}
