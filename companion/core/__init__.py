"""What every game shares: command shapes and their checks, the review corrections (hold, rule,
void, undo), and the game protocol with its registry. The session and the journal beside this
folder are game-independent too; each game (bingo/, voters/, ...) is one module of the protocol."""
