"""System-agnostic fight engine: commands in, events out, state = fold(events), undo, replay."""
