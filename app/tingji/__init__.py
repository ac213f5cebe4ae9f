"""Tingji (听记): offline speech-to-text built on Fun-ASR-Nano.

The package is split so that the speech engine (`tingji.engine`) and the model
exporter (`tingji.export`) never import Qt; the desktop app (`tingji.gui`) and
live dictation (`tingji.dictation`) sit on top of them.
"""

__version__ = "0.1.0"
