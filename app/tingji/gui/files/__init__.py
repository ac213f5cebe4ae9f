"""The Files page: the transcription queue, its storage and the transcript view (module map: `tingji.gui`)."""
