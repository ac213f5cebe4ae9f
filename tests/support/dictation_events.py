"""A dictation event as the JSON line the subprocess harnesses print (test_e2e, test_overlay_x11)."""

from __future__ import annotations

from typing import Any

from tingji.dictation.events import DictationEvent, PreviewText


def event_json(event: DictationEvent) -> dict[str, Any]:
    """Its kind and fields, enums as their values; absent fields empty, a preview's run time as timings["run_s"]."""
    take = getattr(event, "take", None)
    state = getattr(event, "state", None)
    timings = {"run_s": event.run_s} if isinstance(event, PreviewText) else getattr(event, "timings", {})
    return {
        "kind": event.kind.value,
        "state": "" if state is None else state.value,
        "text": getattr(event, "text", ""),
        "message": getattr(event, "message", ""),
        "timings": timings,
        "take": None
        if take is None
        else {
            "text": take.text,
            "recording": take.recording,
            "error": take.error,
            "output": take.output,
            "latency_s": take.latency_s,
        },
    }
