"""What counts as "left in English" on a translated screen, and as Chinese on an English one.

A text passes :func:`english_words` when every word left after the exemptions below is short (one or two letters:
the book's symbols q, k, v, d, h, n, x, T, W, P …) or on the allow-list of names. Exempt, in this order:

* rich-text tags and entities; ``&`` mnemonics;
* the app's own name "Attention Explorer";
* tokens from data: anything in quotes (“go .”, 'cat', "…") and ``<pad>``-style special tokens;
* code and file names: words with ``_`` (``num_hiddens``, ``W_o``), a ``.`` inside (``torch.eye``, ``run.json``,
  ``*.safetensors``) or a ``/``;
* mathematical notation: a word written as a function or with an index, i.e. followed by ``(``, ``[``, ``<sub>``,
  ``<sup>`` or ``ᵢ``/``ⱼ`` (``softmax(…)``, ``head<sub>i</sub>``, ``Var(q·k)``, ``sin(iω)``);
* the names in :data:`NAMES` (models, libraries, formats, devices, the book's layer names).

Widgets whose own text is data (a translation the model produced, a path the user opened) carry the dynamic
property ``i18n_data`` and are skipped by ``explorer.ui.i18n.text_walk.text_slots`` (their tool tips are not).
"""
from __future__ import annotations

import html
import re

#: Proper names and fixed technical names that stay as they are in the Chinese edition of the book and its UI.
NAMES = frozenset({
    # models, layers and methods named as in the book (the Chinese edition keeps them in Latin letters)
    "Transformer", "softmax", "LayerNorm", "BatchNorm", "CNN", "RNN", "FFN", "ReLU", "Linear", "AddNorm",
    "MultiHead", "Nadaraya", "Watson", "Epanechnikov", "Xavier", "SGD", "Adam", "BLEU", "Pre-LN", "Post-LN",
    "BERT", "RoBERTa", "GPT-2", "Marian", "BART", "mBART", "T5", "logit", "FFT", "PyQtGraph",
    "dropout", "epoch", "tanh", "exp", "sin", "cos", "max", "min", "log", "argmax", "Var", "top-k", "top-p",
    # libraries, tools, formats, devices
    "PyTorch", "torch", "Python", "Qt", "PySide6", "pyqtgraph", "numpy", "superqt", "imageio-ffmpeg", "ffmpeg",
    "Hugging", "Face", "safetensors", "torchrun", "d2l", "Tatoeba", "PNG", "SVG", "CSV", "GIF", "MP4", "JSON",
    "HTML", "UTF-8", "CPU", "GPU", "CUDA", "MPS", "cpu", "cuda", "mps", "NVIDIA", "float32", "base64", "Fusion",
    "linux", "darwin", "win32",
    "English",  # the Language menu names each language in itself
})
_TAG = re.compile(r"<[^<>]*>")
_QUOTED = re.compile(r"“[^”]*”|‘[^’]*’|'[^'\n]*'|\"[^\"\n]*\"|«[^»]*»")
_SPECIAL_TOKEN = re.compile(r"<(pad|bos|eos|unk|s|/s|mask|sep|cls)>", re.IGNORECASE)
_MATH = re.compile(r"[A-Za-z][A-Za-z0-9]*(?=\(|\[|<sub>|<sup>|[ᵢⱼₖ₀-₉⁰-⁹])")
_BIG_O = re.compile(r"\bO\([^()]*\)")
_CODE = re.compile(r"[\w*./:\\-]*(?:_|\w\.\w|/)[\w*./:\\-]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*[A-Za-z0-9]|[A-Za-z]")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def english_words(text: str) -> list[str]:
    """The English words of ``text`` left after the exemptions of the module docstring ([] if none)."""
    if not re.search(r"[A-Za-z]", text):
        return []
    text = text.replace("Attention Explorer", " ")
    text = _SPECIAL_TOKEN.sub(" ", html.unescape(_SPECIAL_TOKEN.sub(" ", text)))
    text = _BIG_O.sub(" ", text)
    text = _MATH.sub(" ", text)  # before the tags go: <sub> marks an index
    text = html.unescape(_TAG.sub(" ", text))
    text = re.sub(r"&(?=\w)", "", text)
    text = _QUOTED.sub(" ", text)
    text = _MATH.sub(" ", text)
    text = _CODE.sub(" ", text)
    words = []
    for word in _WORD.findall(text):
        word = word.strip("'’-")
        if word in NAMES or all(part in NAMES or sum(ch.isalpha() for ch in part) <= 2 for part in word.split("-")):
            continue
        words.append(word)
    return words


def has_cjk(text: str) -> bool:
    """True if ``text`` holds Chinese characters or full-width punctuation."""
    return bool(_CJK.search(text))
