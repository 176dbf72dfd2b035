// Auction Bluff's phases and period outcomes, as msgids (its catalogue: companion/bluff/locale): the
// audience page loads this before bluff.js (GameRules.page), the phone page before phone.js.
"use strict";

const BLUFF_PHASES = { new: "Waiting for the game", ready: "Between periods", dice: "Dice vote",
                       declare: "Declarations", finished: "Game over" };
const BLUFF_OUTCOMES = { won: "WINS", eliminated: "ELIMINATED", no_declaration: "NO DECLARATION" };
