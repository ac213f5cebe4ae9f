"""The speech engine: a model folder and audio in, a timed transcript out. Imports no Qt.

    from tingji.engine import Engine, TranscribeOptions
    engine = Engine("models/fun-asr-nano")        # a model folder: loads and warms
    transcript = engine.transcribe("meeting.mp3", TranscribeOptions(language="zh", hotwords=("Tingji",)))
    print(transcript.text)

The pipeline (`transcribe.py`) is the same for every model family; a family
(`families/`) turns one window of audio into text.
"""

from ..errors import AudioError, Cancelled, ModelError, TingjiError
from .families.base import Capabilities
from .lanes import Lane
from .options import LoadOptions, TranscribeOptions
from .transcribe import Engine, transcribe
from .transcript import Progress, Segment, Transcript, WindowInfo

__all__ = [
    "Engine",
    "Lane",
    "TranscribeOptions",
    "LoadOptions",
    "Capabilities",
    "Transcript",
    "Segment",
    "Progress",
    "WindowInfo",
    "transcribe",
    "TingjiError",
    "AudioError",
    "ModelError",
    "Cancelled",
]
