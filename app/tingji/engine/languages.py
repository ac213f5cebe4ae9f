"""Language codes: one vocabulary for users, the pipeline and every model family.

Users type "en", "English", "zh", "中文" or "auto"; each family prompts or
conditions its model in its own words (Fun-ASR-Nano wants "英文", SenseVoice a
query-row id, Qwen3-ASR "English"). The pipeline and the `Transcript` speak
codes only; a family translates a code into its model's wording, and the
manifest lists the codes a model accepts.
"""

from __future__ import annotations

# code -> English name. The names are what users may type besides the code.
NAMES: dict[str, str] = {
    "zh": "Chinese",
    "en": "English",
    "yue": "Cantonese",
    "ja": "Japanese",
    "ko": "Korean",
    "ar": "Arabic",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "id": "Indonesian",
    "it": "Italian",
    "ru": "Russian",
    "th": "Thai",
    "vi": "Vietnamese",
    "tr": "Turkish",
    "hi": "Hindi",
    "ms": "Malay",
    "nl": "Dutch",
    "sv": "Swedish",
    "da": "Danish",
    "fi": "Finnish",
    "pl": "Polish",
    "cs": "Czech",
    "fil": "Filipino",
    "fa": "Persian",
    "el": "Greek",
    "hu": "Hungarian",
    "mk": "Macedonian",
    "ro": "Romanian",
}

# Other spellings users (and older settings files) use for the same languages.
_ALIASES: dict[str, str] = {
    "mandarin": "zh",
    "中文": "zh",
    "汉语": "zh",
    "英文": "en",
    "英语": "en",
    "日文": "ja",
    "日语": "ja",
    "粤语": "yue",
    "韩文": "ko",
    "韩语": "ko",
    "tagalog": "fil",
    "tl": "fil",
    "zh-cn": "zh",
}


def normalise(language: str | None) -> str | None:
    """A code for what the user typed; None for "detect". Unknown names pass through unchanged.

    Passing unknown names through (rather than refusing them) lets a family
    whose model knows more languages than this table accept them; the family
    decides whether it can use the result.
    """
    if language is None:
        return None
    text = language.strip()
    if not text or text.lower() == "auto":
        return None
    key = text.lower()
    if key in NAMES:
        return key
    for code, name in NAMES.items():
        if name.lower() == key:
            return code
    return _ALIASES.get(key, _ALIASES.get(text, text))
