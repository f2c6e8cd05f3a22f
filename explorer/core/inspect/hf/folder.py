"""Opening a local Hugging Face model folder safely: checks with user-fit messages, local files only, no pickle
code ever run. ``transformers`` (the optional ``[hf]`` extra) is imported only when a folder is opened."""
from __future__ import annotations

import json
import os
import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.core.inspect.hf.no_tokenizer import IdsOnlyTokenizer
from explorer.core.inspect.interface import ModelError

INSTALL_HINT = "pip install 'attention-explorer[hf]'"
OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
SAFETENSORS_FILES = ("model.safetensors", "model.safetensors.index.json")
BIN_FILES = ("pytorch_model.bin", "pytorch_model.bin.index.json")
OTHER_WEIGHTS = ("tf_model.h5", "flax_model.msgpack", "model.ckpt.index", "model.onnx")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "source.spm",
                   "sentencepiece.bpe.model", "tokenizer.model")


class HFModelError(ModelError):
    """A Hugging Face folder could not be opened; the message is fit to show to a user."""


class MissingExtraError(HFModelError):
    """The optional ``[hf]`` extra (transformers, tokenizers, sentencepiece) is not installed."""


@dataclass(frozen=True)
class FolderCheck:
    """What a folder holds, found without importing transformers."""

    folder: Path
    model_type: str
    safetensors: bool  # False: PyTorch .bin weights (loaded with weights_only=True)
    tokenizer: bool = True  # False: no tokenizer file; the model reads token ids only


def check_folder(path: str | os.PathLike[str]) -> FolderCheck:
    """Check a folder for config, weights and tokenizer; raise :class:`HFModelError` naming what is wrong."""
    folder = Path(path).expanduser().resolve()
    if not folder.is_dir():
        raise HFModelError(f"{folder} is not a folder")
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError as exc:
        raise HFModelError(f"cannot read the folder {folder}: {exc.strerror or exc}") from exc
    if not names:
        raise HFModelError(f"{folder.name} is an empty folder: a model folder holds config.json, "
                           "weights (model.safetensors) and a tokenizer")
    if "config.json" not in names:
        raise HFModelError(f"{folder.name} has no config.json: it is not a Hugging Face model folder")
    model_type = _model_type(folder / "config.json")
    has_st = any(n in names for n in SAFETENSORS_FILES)
    if not has_st and not any(n in names for n in BIN_FILES):
        other = [n for n in OTHER_WEIGHTS if n in names]
        hint = f" ({other[0]} is a format this app does not read)" if other else ""
        raise HFModelError(f"{folder.name} has no weights: expected model.safetensors (or pytorch_model.bin){hint}")
    # without a tokenizer the model still opens: it reads token ids (the CLI's --token-ids)
    return FolderCheck(folder, model_type, has_st, any(n in names for n in TOKENIZER_FILES))


def _model_type(config: Path) -> str:
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise HFModelError(f"{config.parent.name}/config.json cannot be read as JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise HFModelError(f"{config.parent.name}/config.json holds no settings (a JSON object is expected)")
    model_type = data.get("model_type")
    if isinstance(model_type, str) and model_type:
        return model_type
    return _infer_model_type(config.parent, data)


def _infer_model_type(folder: Path, data: dict[str, Any]) -> str:
    """The ``model_type`` that transformers' own auto mappings give the config's ``architectures`` (older folders
    omit it); otherwise a message naming the exact line to add, guessed from the weights' names where it can."""
    architectures = data.get("architectures")
    names = [a for a in architectures if isinstance(a, str)] if isinstance(architectures, list) else []
    unknown = " and no architecture transformers knows" if names else ""
    if names:
        import_transformers()
        from transformers.models.auto import modeling_auto

        owners: dict[str, str] = {}
        for attr in dir(modeling_auto):
            if attr.endswith("_MAPPING_NAMES"):
                for model_type, classes in getattr(modeling_auto, attr).items():
                    for cls in (classes,) if isinstance(classes, str) else classes:
                        owners.setdefault(cls, model_type)
        for name in names:
            if name in owners:
                return owners[name]
    prefixes = _weight_prefixes(folder)
    if prefixes:
        import_transformers()
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

        known = prefixes & set(CONFIG_MAPPING_NAMES)  # a base model saved under its family's name: bert.*
        if len(known) == 1:
            prefix = known.pop()
            raise HFModelError(f"{folder.name}/config.json names no model_type{unknown}: add the line "
                               f"\"model_type\": \"{prefix}\", to config.json (its weights are named {prefix}.*)")
    raise HFModelError(f"{folder.name}/config.json names no model_type{unknown}: add a line such as "
                       "\"model_type\": \"bert\", to config.json, naming the model's family (bert, gpt2, llama, …)")


def _weight_prefixes(folder: Path) -> set[str]:
    """The first parts of the weights' names (``bert`` and ``cls`` in ``bert.embeddings…``, ``cls.predictions…``),
    read without loading a tensor where the format allows; empty when they cannot be read."""
    names: list[str] = []
    try:
        for index in (SAFETENSORS_FILES[1], BIN_FILES[1]):
            if (folder / index).is_file():
                names = list(json.loads((folder / index).read_text(encoding="utf-8"))["weight_map"])
                break
        else:
            if (folder / SAFETENSORS_FILES[0]).is_file():
                with open(folder / SAFETENSORS_FILES[0], "rb") as fh:  # an 8-byte length, then a JSON header
                    size = int.from_bytes(fh.read(8), "little")
                    names = [k for k in json.loads(fh.read(min(size, 2**26))) if k != "__metadata__"]
            elif (folder / BIN_FILES[0]).is_file():
                import torch

                path = folder / BIN_FILES[0]
                try:
                    names = list(torch.load(path, map_location="cpu", weights_only=True, mmap=True))
                except RuntimeError:  # files saved before torch's zip format cannot be mapped
                    names = list(torch.load(path, map_location="cpu", weights_only=True))
    except Exception:  # a hint only: a damaged file is reported when the weights are loaded
        return set()
    return {name.split(".", 1)[0] for name in names if "." in name}


def import_transformers() -> Any:
    """``transformers``, or :class:`MissingExtraError` saying how to install it."""
    try:
        import transformers
    except ImportError as exc:
        python = "" if sys.version_info >= (3, 11) else "; transformers 5 needs Python 3.11 or newer"
        raise MissingExtraError(f"opening a Hugging Face model needs the optional [hf] extra: {INSTALL_HINT}"
                                f" ({exc.name or 'transformers'} is not installed{python})") from exc
    return transformers


@contextmanager
def hf_session() -> Iterator[Any]:
    """Offline, quiet transformers for the duration: no hub access, no progress bars, and what
    :func:`quiet_transformers` keeps in (its load reports would otherwise reach the CLI's stderr). Yields the
    ``transformers`` module."""
    saved = {k: os.environ.get(k) for k in OFFLINE_VARS}
    os.environ.update({k: "1" for k in OFFLINE_VARS})
    # one sentence at a time gains nothing from the tokenizers' thread pool, which warns in forked children
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        transformers = import_transformers()
        log = transformers.utils.logging
        bars = log.is_progress_bar_enabled()
        log.disable_progress_bar()
        try:
            with quiet_transformers():
                yield transformers
        finally:
            if bars:
                log.enable_progress_bar()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Errors-only logging and no Python warnings from transformers, tokenizers or the hub for the duration: a
    model's advice while it loads or runs never reaches the user. It changes no environment variable, so a forward
    pass on a worker thread can use it."""
    log = import_transformers().utils.logging
    verbosity = log.get_verbosity()
    log.set_verbosity_error()
    try:
        with warnings.catch_warnings():
            for module in (r"transformers(\.|$)", r"tokenizers(\.|$)", r"huggingface_hub(\.|$)"):
                warnings.filterwarnings("ignore", module=module)
            yield
    finally:
        log.set_verbosity(verbosity)


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def check_bin_weights(check: FolderCheck) -> None:
    """Load every ``.bin`` weight file with ``weights_only=True`` (tensors only, no code) before transformers
    does; refuse the folder when that fails."""
    import torch

    names = [BIN_FILES[0]]
    index = check.folder / BIN_FILES[1]
    if index.is_file():
        try:
            names = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise HFModelError(f"{check.folder.name}/{BIN_FILES[1]} is damaged: {exc}") from exc
    for name in names:
        path = check.folder / name
        if path.name != name or not path.is_file():
            raise HFModelError(f"{check.folder.name}: the weight file {name!r} is missing")
        try:
            torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # UnpicklingError for code, RuntimeError/EOFError for damage
            called = re.search(r"GLOBAL ([\w.]+)", str(exc))
            why = (f"it asks to call {called.group(1)}, so loading it could run code" if called else
                   "it is not a plain file of tensors (damaged, or a pickle that could run code)")
            raise HFModelError(f"{check.folder.name}/{name} was refused: {why}. "
                               "Use a model.safetensors version of the model") from exc


def load_folder(check: FolderCheck, device: Any) -> tuple[Any, Any]:
    """``(model in eval mode on device, tokenizer)`` for a checked folder; eager attention, float32."""
    import torch

    with hf_session() as transformers:
        if not check.safetensors:
            check_bin_weights(check)
        config = load_config(transformers, check)
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(
                check.folder, config=config, local_files_only=True, trust_remote_code=False) \
                if check.tokenizer else IdsOnlyTokenizer(check.folder.name)
        except ImportError as exc:
            raise MissingExtraError(f"reading this tokenizer needs the [hf] extra: {INSTALL_HINT} "
                                    f"({_first_line(exc)})") from exc
        except Exception as exc:  # tokenizer loaders raise OSError, ValueError, TypeError, KeyError …
            raise HFModelError(f"{check.folder.name}: the tokenizer cannot be read ({_first_line(exc)})") from exc
        auto = model_class(transformers, check)
        try:
            model, info = auto.from_pretrained(
                check.folder, config=config, local_files_only=True, trust_remote_code=False, attn_implementation="eager",
                use_safetensors=check.safetensors, weights_only=True, dtype=torch.float32,
                ignore_mismatched_sizes=True, output_loading_info=True)  # mismatches are refused below, by name
        except Exception as exc:  # damaged files (OSError, SafetensorsError, RuntimeError)
            raise HFModelError(f"{check.folder.name}: the weights cannot be read ({_first_line(exc)})") from exc
    _check_loaded(check.folder.name, info)
    vocab = int(getattr(model.config, "vocab_size", 0) or 0)
    if vocab and len(tokenizer) > vocab:
        raise HFModelError(f"{check.folder.name}: the tokenizer has {len(tokenizer)} tokens but the model's "
                           f"vocabulary only {vocab}; tokenizer and weights belong to different models")
    model.to(device).eval()
    return model, tokenizer


def load_config(transformers: Any, check: FolderCheck) -> Any:
    """The folder's config, built by the class its ``model_type`` (found or inferred) names, so that a
    config.json without one loads like any other."""
    try:
        return transformers.CONFIG_MAPPING[check.model_type].from_pretrained(check.folder, local_files_only=True)
    except Exception as exc:  # KeyError for a model_type this transformers does not know, ValueError …
        raise HFModelError(f"{check.folder.name}: unknown or unsupported architecture {check.model_type!r}: "
                           f"transformers {transformers.__version__} cannot build it ({_first_line(exc)}); "
                           "check model_type in config.json, or update transformers") from exc


def _check_loaded(name: str, info: dict[str, Any]) -> None:
    """Refuse weights that leave tensors of the configured model missing or of another shape."""
    missing = [k for k in info.get("missing_keys", ()) if not k.startswith("pooler.")]  # the pooler: no attention
    mismatched = list(info.get("mismatched_keys", ()))
    if mismatched:
        key, stored, wanted = mismatched[0]
        raise HFModelError(f"{name}: the weights do not match config.json: {len(mismatched)} tensor(s) of another "
                           f"shape, e.g. {key} is {tuple(stored)} in the weights but {tuple(wanted)} by config.json")
    if missing:
        raise HFModelError(f"{name}: the weights do not match config.json: {len(missing)} tensor(s) missing, "
                           f"e.g. {missing[0]}")


#: Names of the classes a checkpoint was saved from that carry a language-model head for generation.
_GENERATING = ("ForCausalLM", "LMHeadModel")


def model_class(transformers: Any, check: FolderCheck) -> Any:
    """The Auto class that builds the folder's model, found from its config, never from a list of architectures:
    an encoder–decoder (``is_encoder_decoder``) gets its sequence-to-sequence LM; a model saved with a causal LM
    head (``architectures``), or of a type that only has one, gets it; any other the bare ``AutoModel``."""
    config = load_config(transformers, check)
    auto = transformers.models.auto.modeling_auto
    kind = type(config)
    if getattr(config, "is_encoder_decoder", False) and kind in auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING:
        return transformers.AutoModelForSeq2SeqLM
    if kind in auto.MODEL_FOR_CAUSAL_LM_MAPPING:
        saved = [str(a) for a in (getattr(config, "architectures", None) or [])]
        if any(a.endswith(_GENERATING) for a in saved) or (
                not saved and kind not in auto.MODEL_FOR_MASKED_LM_MAPPING):
            return transformers.AutoModelForCausalLM
    return transformers.AutoModel
