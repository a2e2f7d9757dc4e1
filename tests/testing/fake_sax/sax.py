"""FAKE Saxml client module: a stand-in for Saxml's pybind `sax` client, so that sax-http runs.

Saxml's real client is built by Bazel from the Saxml tree and talks to an admin server and model
servers on TPUs; none of that can run here (../shared/notes/serving.md, "Saxml"). This module
offers the calls the sax-http servers make (the upstream FastAPI http_server.py, and the
project's stdlib sax_http_v1.py) and keeps the admin server's bookkeeping in memory. NO MODEL IS
SERVED: Generate returns a few words chosen by a hash of the model id and the query.

What it imitates, from the facts in ../shared/notes/manifests.md §4.2 and Saxml's admin server:
- model ids have the form /sax/<cell>/<name>; publishing one twice fails ("already exists"),
  and an unknown one is "not found";
- Publish returns before loading finishes: active_replicas stays 0 for FAKE_SAX_LOAD_SECONDS
  (default 3; negative: loading never finishes), then equals the replicas asked for, and
  "loading completed." is logged on stderr as the model server logs it;
- Generate fails while no replica has loaded the model.
Where it is stricter than Saxml: a model path outside FAKE_SAX_MODEL_PATHS (comma-separated;
default, the lm_cloud test models) is refused at Publish, where Saxml's admin would accept it and
never find a server for it, so that a test sees a typo at once.
Errors are raised as RuntimeError with a canonical-code prefix (NOT_FOUND: ...), the way the
pybind client's status exceptions read; sax-http turns them into its error answers.
"""

import hashlib
import os
import re
import sys
import threading
import time

_DEFAULT_MODEL_PATHS = (
    "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test",
    "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175BTest",
    "saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd2BTest",
)

# Saxml's naming: /sax/<cell>/<model>, names of letters, digits, '_' and '-'.
_CELL_ID = re.compile(r"^/sax/[A-Za-z0-9_-]+$")
_MODEL_ID = re.compile(r"^/sax/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+$")

# Words for the fake answers: plain, so that a test reading them knows they are not a model's.
_WORDS = (
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa",
    "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
    "yankee", "zulu", "tpu", "slice", "replica", "shard", "cell", "model",
)
_WORDS_PER_ANSWER = 6
_CANDIDATES = 2


def _load_seconds():
    return float(os.environ.get("FAKE_SAX_LOAD_SECONDS", "3"))


def _known_model_paths():
    configured = os.environ.get("FAKE_SAX_MODEL_PATHS")
    if configured is None:
        return set(_DEFAULT_MODEL_PATHS)
    return {path.strip() for path in configured.split(",") if path.strip()}


def _log(message):
    # The model server's absl-style line, so that a reader of the log sees the same milestone.
    stamp = time.strftime("%m%d %H:%M:%S")
    print(f"I{stamp} fake_sax servable_model.py] {message}", file=sys.stderr, flush=True)


def _check_model_id(model_id):
    if not isinstance(model_id, str) or not _MODEL_ID.match(model_id):
        raise RuntimeError(
            f"INVALID_ARGUMENT: model full name {model_id!r} should have the form /sax/<cell name>/<model name>")


class _Published:
    def __init__(self, model_path, checkpoint, replicas):
        self.model_path = model_path
        self.checkpoint = checkpoint
        self.replicas = replicas
        self.loaded = 0
        self.timer = None


_lock = threading.Lock()
_models = {}  # model id -> _Published


def _schedule_load(model_id, published):
    """Makes every asked-for replica active after the load time (never, when it is negative)."""
    seconds = _load_seconds()
    if published.timer is not None:
        published.timer.cancel()
        published.timer = None
    if seconds < 0:
        _log(f"{model_id}: loading {published.model_path} (FAKE_SAX_LOAD_SECONDS < 0: it never completes)")
        return

    def finish():
        with _lock:
            if _models.get(model_id) is not published:
                return  # unpublished (and perhaps published again) meanwhile
            published.loaded = published.replicas
            published.timer = None
        _log(f"{model_id}: loading completed. ({published.replicas} replica(s) of {published.model_path})")

    _log(f"{model_id}: loading {published.model_path}, {seconds:g} s")
    if seconds == 0:
        published.loaded = published.replicas
        _log(f"{model_id}: loading completed. ({published.replicas} replica(s) of {published.model_path})")
        return
    published.timer = threading.Timer(seconds, finish)
    published.timer.daemon = True
    published.timer.start()


def _check_publishable(model_path, replicas):
    if model_path not in _known_model_paths():
        raise RuntimeError(f"INVALID_ARGUMENT: model path {model_path!r} is not servable by any model server in the "
                           f"cell (fake Saxml knows: {', '.join(sorted(_known_model_paths()))})")
    if not isinstance(replicas, int) or replicas < 0:
        raise RuntimeError(f"INVALID_ARGUMENT: replicas must be a non-negative integer, got {replicas!r}")


class ModelDetail:
    """What ListDetail returns: the published model's specs and how many replicas serve it."""

    def __init__(self, model, ckpt, max_replicas, active_replicas):
        self.model = model  # the model path (a Python class name), as Saxml's ModelDetail calls it
        self.ckpt = ckpt
        self.max_replicas = max_replicas
        self.active_replicas = active_replicas


def Publish(model, model_path, checkpoint, replicas):
    _check_model_id(model)
    _check_publishable(model_path, replicas)
    with _lock:
        if model in _models:
            raise RuntimeError(f"ALREADY_EXISTS: model {model} already exists")
        published = _Published(model_path, checkpoint, replicas)
        _models[model] = published
        _schedule_load(model, published)


def Update(model, model_path, checkpoint, replicas):
    _check_model_id(model)
    _check_publishable(model_path, replicas)
    with _lock:
        published = _models.get(model)
        if published is None:
            raise RuntimeError(f"NOT_FOUND: model {model} not found")
        # Saxml's admin lets an update change the number of replicas only.
        if model_path != published.model_path:
            raise RuntimeError("INVALID_ARGUMENT: invalid model update: model path can't be changed")
        if checkpoint != published.checkpoint:
            raise RuntimeError("INVALID_ARGUMENT: invalid model update: checkpoint path can't be changed")
        published.replicas = replicas
        published.loaded = min(published.loaded, replicas)
        if published.loaded < replicas:
            _schedule_load(model, published)


def Unpublish(model):
    _check_model_id(model)
    with _lock:
        published = _models.pop(model, None)
        if published is None:
            raise RuntimeError(f"NOT_FOUND: model {model} not found")
        if published.timer is not None:
            published.timer.cancel()
    _log(f"{model}: unloaded")


def ListDetail(model):
    _check_model_id(model)
    with _lock:
        published = _models.get(model)
        if published is None:
            raise RuntimeError(f"NOT_FOUND: model {model} not found")
        return ModelDetail(published.model_path, published.checkpoint, published.replicas, published.loaded)


def ListAll(cell):
    if not isinstance(cell, str) or not _CELL_ID.match(cell):
        raise RuntimeError(f"INVALID_ARGUMENT: cell full name {cell!r} should have the form /sax/<cell name>")
    with _lock:
        return sorted(model_id for model_id in _models if model_id.rsplit("/", 1)[0] == cell)


class ModelOptions:
    """Per-request decoding settings; the fake records them and answers the same regardless."""

    def __init__(self):
        self._extra_inputs = {}

    def SetExtraInput(self, key, value):
        self._extra_inputs[str(key)] = float(value)

    def GetExtraInput(self, key):
        return self._extra_inputs[key]


def _answer(model_id, query, candidate):
    digest = hashlib.sha256(f"{model_id}\0{query}\0{candidate}".encode()).digest()
    words = " ".join(_WORDS[byte % len(_WORDS)] for byte in digest[:_WORDS_PER_ANSWER])
    # A log-probability: negative, the first candidate the likeliest.
    score = -round(1.0 + candidate + int.from_bytes(digest[-2:], "big") / 65536.0, 6)
    return words, score


class LanguageModel:
    """Model(...).LM(): Generate answers only once a replica has loaded the model."""

    def __init__(self, model_id):
        self._model_id = model_id

    def Generate(self, query, options=None):
        if not isinstance(query, str):
            raise TypeError(f"Generate(): query must be a str, got {type(query).__name__}")
        with _lock:
            published = _models.get(self._model_id)
            if published is None:
                raise RuntimeError(f"NOT_FOUND: model {self._model_id} not found")
            if published.loaded == 0:
                raise RuntimeError(f"UNAVAILABLE: no replica has loaded model {self._model_id} yet "
                                   f"(0 of {published.replicas} active)")
        return [_answer(self._model_id, query, candidate) for candidate in range(_CANDIDATES)]


class Model:
    def __init__(self, model_id, options=None):
        _check_model_id(model_id)
        self._model_id = model_id

    def LM(self):
        return LanguageModel(self._model_id)
