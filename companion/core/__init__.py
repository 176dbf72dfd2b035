"""What every game shares: the journal, the session that writes it, the event file, command shapes
and their checks, the review corrections (hold, rule, void, undo), and the game protocol with its
registry. Each game is one package of the protocol beside this folder (companion/<game>/)."""
