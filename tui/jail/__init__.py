"""The jail card game\x27s screens: the staff console and the audience display."""
