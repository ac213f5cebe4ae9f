"""The Dictation page and the host that runs dictation on the shared engine (module map: `tingji.gui`)."""
