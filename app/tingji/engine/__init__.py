"""The speech engine: audio in, timed transcript out. Imports no Qt.

    from tingji.engine import Engine
    engine = Engine("models/fun-asr-nano")        # loads and warms
    transcript = engine.transcribe("meeting.mp3")
    print(transcript.text)
"""

from .errors import AudioError, Cancelled, ModelError, TingjiError
from .transcribe import Engine, Progress, Segment, Transcript, transcribe

__all__ = ["Engine", "Transcript", "Segment", "Progress", "transcribe",
           "TingjiError", "AudioError", "ModelError", "Cancelled"]
