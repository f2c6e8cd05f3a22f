"""The trainer as an iterator of events (d2l §11.7 training): losses, determinism, control flags, failures."""
from __future__ import annotations

import queue
import threading
import time

import numpy as np
import pytest
import torch

from explorer.core.training.events import ErrorEvent, FinishedEvent, ModelStateEvent, SnapshotEvent, StepEvent
from explorer.core.data.text import build_dataset
from explorer.core.model.transformer import ConfigError
from explorer.core.training.trainer import Trainer, clip_grad_norm
from explorer.core.training.config import TrainingConfig, TrainingHistory
from explorer.core.training.devices import resolve_device
from explorer.core.model.transformer import TransformerConfig

WORDS = "a b c d e f g h".split()


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _dataset(n: int = 40, num_steps: int = 8):
    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(n):
        words = list(rng.choice(WORDS, size=int(rng.integers(1, 6))))
        pairs.append((" ".join(words), " ".join(reversed(words))))
    return build_dataset(pairs, num_steps, min_freq=1)


def _config(**kw: object) -> TrainingConfig:
    base = dict(model=TransformerConfig(num_hiddens=16, num_heads=2, ffn_num_hiddens=32), batch_size=16,
                num_steps=8, num_epochs=2, snapshot_every=2, device="cpu")
    base.update(kw)
    return TrainingConfig(**base)  # type: ignore[arg-type]


def test_event_stream_shape_and_history() -> None:
    ds = _dataset()
    trainer = Trainer(_config(), ds, probe=("a b c", "c b a"))
    events = list(trainer)
    kinds = [e.kind for e in events]
    assert kinds[0] == "snapshot" and kinds[-1] == "finished"
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [e.step for e in steps] == list(range(1, 7))  # 40 pairs / 16 = 3 batches × 2 epochs
    assert kinds.count("epoch") == 2 and kinds.count("snapshot") == 1 + 3
    assert steps[-1].progress == 1.0 and steps[2].epoch_fraction == 1.0
    assert all(e.book_loss == pytest.approx(e.loss / 8) for e in steps)
    assert sum(e.tokens for e in steps[:3]) == int(ds.tgt_valid_len.sum())
    assert trainer.history.step_loss == [e.loss for e in steps]
    assert len(trainer.history.epoch_loss) == 2
    assert TrainingHistory.from_dict(trainer.history.to_dict()) == trainer.history
    finished = events[-1]
    assert isinstance(finished, FinishedEvent) and not finished.stopped and finished.device == "cpu"
    snap = next(e for e in events if isinstance(e, SnapshotEvent))
    assert snap.src_tokens == ["a", "b", "c", "<eos>"] and snap.tgt_input_tokens == ["<bos>", "c", "b", "a"]
    assert snap.maps["encoder"].shape == (2, 2, 4, 4) and snap.maps["cross"].shape == (2, 2, 4, 4)
    np.testing.assert_allclose(snap.maps["cross"].sum(-1), 1.0, atol=1e-5)
    with pytest.raises(RuntimeError, match="runs once"):
        iter(trainer)


def test_same_seed_same_losses_and_other_seed_differs() -> None:
    ds = _dataset()
    run = lambda seed: [e.loss for e in Trainer(_config(seed=seed, snapshot_every=0), ds)  # noqa: E731
                        if isinstance(e, StepEvent)]
    first, again, other = run(3), run(3), run(4)
    assert first == again
    assert first != other


def test_reported_loss_is_the_masked_per_token_cross_entropy() -> None:
    ds = _dataset()
    cfg = _config(batch_size=64, num_epochs=1, snapshot_every=0, model=TransformerConfig(
        num_hiddens=16, num_heads=2, ffn_num_hiddens=32, dropout=0.0))
    trainer = Trainer(cfg, ds)
    model = trainer.model
    with torch.no_grad():  # one batch holds the whole (shuffled) data set: the sum does not depend on order
        dec_in = torch.cat([torch.full((len(ds), 1), ds.tgt_vocab.bos), ds.tgt[:, :-1]], dim=1)
        logits, _ = model(ds.src, ds.src_valid_len, dec_in)
        logp = torch.log_softmax(logits.double(), -1).gather(-1, ds.tgt[..., None])[..., 0]  # (N, T)
        mask = torch.arange(8)[None, :] < ds.tgt_valid_len[:, None]
        per_token = float(-(logp * mask).sum() / mask.sum())
    step = next(e for e in trainer if isinstance(e, StepEvent))
    assert step.loss == pytest.approx(per_token, rel=1e-5)
    assert step.book_loss == pytest.approx(per_token / 8, rel=1e-5)


def test_clipping_matches_the_books_rule() -> None:
    """The trainer's clip (PyTorch's) is the book's ``grad_clipping`` up to its 1e-6 guard."""
    g = torch.Generator().manual_seed(0)
    grads = [torch.randn(5, 3, generator=g), torch.randn(7, generator=g)]
    norm_ref = torch.sqrt(sum((t ** 2).sum() for t in grads))

    def params(scale: float) -> list[torch.Tensor]:
        out = [torch.zeros(t.shape, requires_grad=True) for t in grads]
        for p, t in zip(out, grads):
            p.grad = t * scale
        return out

    big = params(1.0)
    norm = clip_grad_norm(big, 1.0, foreach=True)
    torch.testing.assert_close(norm, norm_ref)
    for p, t in zip(big, grads):
        torch.testing.assert_close(p.grad, t / norm_ref)
    small = params(1.0)
    clip_grad_norm(small, 100.0, foreach=True)
    assert all(torch.equal(p.grad, t) for p, t in zip(small, grads))  # below the threshold: untouched


def _run_in_thread(trainer: Trainer) -> tuple[threading.Thread, queue.Queue]:
    events: queue.Queue = queue.Queue()

    def consume() -> None:
        for event in trainer:
            events.put(event)

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    return thread, events


def _next_step(events: queue.Queue, timeout: float = 30.0) -> StepEvent | FinishedEvent:
    deadline = time.monotonic() + timeout
    while True:
        event = events.get(timeout=max(deadline - time.monotonic(), 0.01))
        if isinstance(event, (StepEvent, FinishedEvent)):
            return event


def test_pause_single_step_resume_and_stop_from_another_thread() -> None:
    trainer = Trainer(_config(num_epochs=200, snapshot_every=0), _dataset())
    trainer.pause()
    thread, events = _run_in_thread(trainer)
    time.sleep(0.3)
    assert trainer.paused  # blocked inside the iterator before step 1, after handing out the weights
    assert [(e.kind, e.step) for e in list(events.queue)] == [("model_state", 0)]
    trainer.request_step()
    assert _next_step(events).step == 1
    time.sleep(0.3)
    assert all(not isinstance(e, StepEvent) for e in list(events.queue))  # still paused after one batch
    trainer.resume()
    first = _next_step(events)
    assert first.step == 2
    trainer.stop()
    thread.join(timeout=30)
    assert not thread.is_alive()
    tail = list(events.queue)
    assert isinstance(tail[-1], FinishedEvent) and tail[-1].stopped
    assert tail[-1].step < trainer.total_steps


def test_stop_wakes_a_paused_trainer() -> None:
    trainer = Trainer(_config(snapshot_every=0), _dataset())
    trainer.pause()
    thread, events = _run_in_thread(trainer)
    time.sleep(0.2)
    trainer.stop()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert isinstance(events.get_nowait(), ModelStateEvent)  # entering the pause
    final = events.get_nowait()
    assert isinstance(final, FinishedEvent) and final.stopped and final.step == 0


def test_nonfinite_loss_reports_the_step_and_keeps_last_good_weights() -> None:
    trainer = Trainer(_config(snapshot_every=0), _dataset())
    model = trainer.model
    forward = model.forward
    calls = {"n": 0}
    kept: dict[str, torch.Tensor] = {}

    def poisoned(*args, **kwargs):
        calls["n"] += 1
        logits, maps = forward(*args, **kwargs)
        return (logits * float("nan") if calls["n"] == 3 else logits), maps

    model.forward = poisoned  # type: ignore[method-assign]
    events = []
    for event in trainer:
        events.append(event)
        if isinstance(event, StepEvent) and event.step == 2:
            kept = {k: v.clone() for k, v in model.state_dict().items()}
    error = events[-1]
    assert isinstance(error, ErrorEvent) and error.step == 3 and error.reason == "nonfinite"
    assert "step 3" in error.message and "learning rate" in error.message
    for k, v in model.state_dict().items():
        assert torch.equal(v, kept[k]), k


def test_out_of_memory_becomes_an_error_event() -> None:
    trainer = Trainer(_config(snapshot_every=0), _dataset())

    def oom(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    trainer.model.forward = oom  # type: ignore[method-assign]
    events = list(trainer)
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert events[0].reason == "out_of_memory" and "smaller batch size" in events[0].message


@pytest.mark.parametrize("kwargs, fragment", [
    ({"batch_size": 0}, "batch_size"), ({"lr": -1.0}, "lr"), ({"lr": float("nan")}, "lr"),
    ({"objective": "fancy"}, "objective"), ({"device": "tpu"}, "device"), ({"num_steps": 1}, "num_steps"),
    ({"model": TransformerConfig(num_hiddens=10, num_heads=4)}, "divisible"),
])
def test_training_config_rejects_bad_settings(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        _config(**kwargs).validate()


def test_training_config_round_trip_and_mismatched_dataset() -> None:
    cfg = _config(lr=0.01, objective="token_mean")
    assert TrainingConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ConfigError, match="unknown training setting"):
        TrainingConfig.from_dict({**cfg.to_dict(), "speed": "max"})
    with pytest.raises(ConfigError, match="num_steps"):
        Trainer(_config(num_steps=10), _dataset(num_steps=8))


def test_resolve_device() -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type in {"cpu", "cuda", "mps"}
    if not torch.cuda.is_available():
        assert resolve_device("auto").type != "cuda"
        with pytest.raises(ConfigError, match="CUDA"):
            resolve_device("cuda")
    with pytest.raises(ConfigError):
        resolve_device("quantum")


def test_flattened_parameters_train_like_separate_ones() -> None:
    from explorer.core.training.optim import adam, flatten_parameters

    g = torch.Generator().manual_seed(1)
    w1, b1 = torch.randn(4, 3, generator=g), torch.randn(4, generator=g)
    x = torch.randn(6, 3, generator=g)
    sep = [w1.clone().requires_grad_(), b1.clone().requires_grad_()]
    flat_params = [w1.clone().requires_grad_(), b1.clone().requires_grad_()]
    flat = flatten_parameters(flat_params)
    assert torch.equal(flat, torch.cat([w1.reshape(-1), b1]))
    opt_sep, opt_flat = torch.optim.Adam(sep, lr=0.01, fused=True), adam(flat, lr=0.01)
    for _ in range(3):
        opt_sep.zero_grad()
        flat.grad.zero_()
        for (w, b), opt in (((sep[0], sep[1]), opt_sep), ((flat_params[0], flat_params[1]), opt_flat)):
            (torch.tanh(x @ w.T + b) ** 2).sum().backward()
            opt.step()
        assert flat_params[0].grad.data_ptr() == flat.grad.data_ptr()  # gradients accumulate in place
        for a, b in zip(sep, flat_params):
            torch.testing.assert_close(a, b, rtol=0, atol=1e-7)
    assert flat_params[0].is_leaf and flat_params[0].data_ptr() == flat.data_ptr()


def test_adam_falls_back_to_foreach_where_no_fused_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A device without a fused Adam (tested here by refusing fused=True) gets the foreach kernels."""
    from explorer.core.training import optim
    real = torch.optim.Adam

    def no_fused(params, **kw):  # type: ignore[no-untyped-def]
        if kw.get("fused"):
            raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported devices")
        return real(params, **kw)

    monkeypatch.setattr(optim.torch.optim, "Adam", no_fused)
    opt = optim.adam(torch.zeros(3, requires_grad=True), 0.1)
    assert opt.param_groups[0]["foreach"] and not opt.param_groups[0]["fused"]


def test_adam_moments_round_trip_continues_exactly() -> None:
    from explorer.core.training.optim import adam, adam_moments, load_adam_moments

    g = torch.Generator().manual_seed(2)
    a = torch.randn(9, generator=g).requires_grad_()
    b = a.detach().clone().requires_grad_()
    opt_a = adam(a, 0.01)
    assert adam_moments(opt_a, a)[2] == 0  # before a step: zeros and 0
    grads = [torch.randn(9, generator=g) for _ in range(4)]
    for grad in grads[:2]:
        a.grad = grad.clone()
        opt_a.step()
    m, v, steps = adam_moments(opt_a, a)
    with torch.no_grad():
        b.copy_(a)
    opt_b = adam(b, 0.01)
    load_adam_moments(opt_b, b, m.clone(), v.clone(), steps)
    for grad in grads[2:]:
        a.grad, b.grad = grad.clone(), grad.clone()
        opt_a.step()
        opt_b.step()
    assert steps == 2 and torch.equal(a, b)


def test_entering_a_pause_yields_one_copy_of_the_weights_before_blocking() -> None:
    trainer = Trainer(_config(num_epochs=200, snapshot_every=0), _dataset())
    initial = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    trainer.pause()
    thread, events = _run_in_thread(trainer)
    first = events.get(timeout=30)
    assert isinstance(first, ModelStateEvent) and (first.reason, first.step, first.epoch) == ("paused", 0, 0)
    assert first.state.keys() == initial.keys()
    for name, value in initial.items():
        assert np.array_equal(first.state[name], value.numpy()), name
    time.sleep(0.2)
    assert events.empty()  # blocked after handing out the weights

    trainer.request_step()
    step, state = events.get(timeout=30), events.get(timeout=30)
    assert isinstance(step, StepEvent) and step.step == 1
    assert isinstance(state, ModelStateEvent) and (state.reason, state.step, state.epoch) == ("paused", 1, 1)
    live = trainer.model.state_dict()
    for name, value in state.state.items():  # the weights after step 1, in fresh arrays
        assert np.array_equal(value, live[name].numpy()) and not np.shares_memory(value, live[name].numpy())
    kept = {k: v.copy() for k, v in state.state.items()}

    trainer.resume()
    assert _next_step(events).step == 2
    trainer.stop()
    thread.join(timeout=30)
    rest = list(events.queue)
    assert not any(isinstance(e, ModelStateEvent) for e in rest)  # running: no copies
    assert isinstance(rest[-1], FinishedEvent) and rest[-1].stopped
    assert any(not np.array_equal(kept[k], v.numpy()) for k, v in trainer.model.state_dict().items())
    assert all(np.array_equal(kept[k], v) for k, v in state.state.items())  # training went on; the copy did not


def test_an_uninterrupted_run_yields_no_weights() -> None:
    events = list(Trainer(_config(snapshot_every=0), _dataset()))
    assert not any(isinstance(e, ModelStateEvent) for e in events) and isinstance(events[-1], FinishedEvent)
