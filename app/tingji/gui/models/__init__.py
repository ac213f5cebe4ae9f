"""The model manager dialog, its worker, and which model the app loads (module map: `tingji.gui`)."""
