"""Runtime configuration: per-thread settings of the backward pass, deferred execution and replay.

Terms:
  setting    one of the names in ``SETTINGS`` (``tj.config.lazy``, ``tj.config.replay_warmup``, ...), read
             where the library decides (early aggregation in the tape, deferral in op dispatch, replay).
  per thread ``tj.config`` is a ``threading.local``: what a thread sets, and the ``with`` blocks it opens,
             are its own. A new thread starts from the values the main thread has set, read when the thread
             first touches ``tj.config`` (the library defaults where the main thread set nothing), so a
             setting made once at the top of a script holds in worker threads too.

Early aggregation: while the gradients waiting to be summed into one tensor are more than
``aggregation_min_count`` *and* weigh more than ``aggregation_min_bytes`` (real bytes: elements x
itemsize), the tape sums them at once to free memory (tape.h's early aggregation).

Every assignment is checked (type and range) as it is made, so a wrong value fails where it is set, not
in the middle of a later gradient. ``with tj.config.override(name=value, ...)`` sets several settings for a
block and puts back what was there before, also when the block raises.
"""
from __future__ import annotations

import contextlib
import numbers
import threading
from typing import Iterator, Optional

_FALLBACK_MIN_BYTES = 128 * 1024 * 1024
# Fraction of a device's memory that pending gradients of one tensor may take before early aggregation.
_DEVICE_MEMORY_FRACTION = 64


def _default_min_bytes() -> int:
    """128 MiB, or 1/64 of the default device's memory where the backend reports it."""
    try:
        import jax

        stats = jax.devices()[0].memory_stats() or {}
        limit = stats.get("bytes_limit")
        if limit:
            return max(int(limit) // _DEVICE_MEMORY_FRACTION, 1 << 20)
    except Exception:  # a backend without memory_stats: keep the fallback
        pass
    return _FALLBACK_MIN_BYTES


# Every setting: its kind ("bool", or the smallest int it may take) and what it does (help(tj.config)).
SETTINGS = {
    "aggregation_min_count": (0, "pending gradients of one tensor summed early only when more than this many"),
    "aggregation_min_bytes": (0, "... and when they weigh more than this (default: 1/64 of device memory "
                                 "where known, else 128 MiB)"),
    "lazy": ("bool", "ops recorded by a single tape are deferred and run when their value is needed"),
    "replay": ("bool", "a backward pass whose tape structure recurs runs as one compiled program"),
    "replay_warmup": (0, "op-by-op passes of a structure before it is compiled"),
    "replay_cache_size": (1, "compiled backward programs kept (least recently used dropped)"),
    "replay_shapes": (0, "shapes of one step (steps of the same set of ops, alike but for shapes, static "
                         "parameters such as a slice's bounds, and how many times each op runs, as a recurrent "
                         "net's over sequences of many lengths) compiled after replay_warmup passes each; a further "
                         "shape only once it comes back at nearly every step 16 times replay_warmup in a row"),
    "replay_exact": ("bool", "fence each op's kernel so replay equals op-by-op execution bit for bit; False "
                             "lets XLA fuse across ops (faster; last bits may differ, as jax.jit's)"),
    "replay_background": ("bool", "compile a replay program in a background thread (steps meanwhile go op "
                                  "by op); False compiles at once"),
    "replay_max_ops": (0, "longer tapes always go op by op (XLA compile time grows fast)"),
    "replay_ahead": ("bool", "a recurring step fused with an optimizer's update is dispatched as soon as its "
                             "inputs are known (or guessed: the same data as the step before, or the next batch "
                             "converted after it), while the rest of the step is recorded (its results are used "
                             "only when the step makes that very call)"),
}

# Where a setting is stored when a property computes its value (aggregation_min_bytes' default).
_SLOTS = {"aggregation_min_bytes": "_min_bytes"}

_DEFAULTS = dict(aggregation_min_count=4, aggregation_min_bytes=None, lazy=True, replay=True, replay_warmup=2,
                 replay_cache_size=64, replay_shapes=8, replay_exact=False, replay_background=True, replay_max_ops=1000,
                 replay_ahead=True)

# Values the main thread has set: the starting point of every other thread's config.
_main_thread_values: dict = {}
_main_thread_values_lock = threading.Lock()


def _checked(name: str, value):
    """``value`` as stored for setting ``name``; TypeError/ValueError naming the setting otherwise."""
    kind = SETTINGS[name][0]
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"tj.config.{name} must be True or False, got {value!r} ({type(value).__name__})")
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"tj.config.{name} must be an int >= {kind}, got {value!r} ({type(value).__name__})")
    if value < kind:
        hint = "; tj.config.replay = False turns replay off" if name == "replay_cache_size" else ""
        raise ValueError(f"tj.config.{name} must be >= {kind}, got {value}{hint}")
    return int(value)


class _Config(threading.local):
    """The settings of this thread (see the module docstring and ``SETTINGS``)."""

    def __init__(self) -> None:
        # threading.local runs __init__ once per thread, at the thread's first access.
        for name, value in _DEFAULTS.items():
            self._store(name, value)
        if threading.current_thread() is not threading.main_thread():
            with _main_thread_values_lock:
                inherited = dict(_main_thread_values)
            for name, value in inherited.items():
                self._store(name, value)

    # Reads are plain attribute reads (op dispatch reads tj.config.lazy on every op: no __getattr__ or
    # __getattribute__ here, either would make every read several times slower); only
    # aggregation_min_bytes is a property, its default being computed from the device on first use.
    @property
    def aggregation_min_bytes(self) -> int:
        if self._min_bytes is None:
            self._store("aggregation_min_bytes", _default_min_bytes())
        return self._min_bytes

    def _store(self, name: str, value) -> None:
        """Store an already checked value; the main thread's are also where new threads start."""
        super().__setattr__(_SLOTS.get(name, name), value)
        if threading.current_thread() is threading.main_thread():
            with _main_thread_values_lock:
                _main_thread_values[name] = value

    def _stored(self, name: str):
        return getattr(self, _SLOTS.get(name, name))

    def __setattr__(self, name: str, value) -> None:
        if name not in SETTINGS:
            raise AttributeError(f"tj.config has no setting {name!r}; the settings are: {', '.join(SETTINGS)}")
        self._store(name, _checked(name, value))

    def settings(self) -> dict:
        """This thread's value of every setting, by name."""
        return {name: getattr(self, name) for name in SETTINGS}

    @contextlib.contextmanager
    def override(self, **settings) -> Iterator["_Config"]:
        """Set the given settings for this thread inside a ``with`` block, restoring them after.

        ``with tj.config.override(lazy=False, replay_warmup=0): ...``: each value is checked as an
        assignment (``tj.config.lazy = ...``) is, all before any is set; an unknown name raises TypeError
        listing the settings. The values from before come back when the block ends, also when it raises;
        blocks nest. Other threads keep their own values (a thread started inside the block on the main
        thread starts from the block's values, as from any value the main thread has set)."""
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise TypeError(f"tj.config.override: no setting named {', '.join(map(repr, unknown))}; the "
                            f"settings are: {', '.join(SETTINGS)}")
        checked = {name: _checked(name, value) for name, value in settings.items()}
        saved = {name: self._stored(name) for name in checked}  # None: aggregation_min_bytes' default
        try:
            for name, value in checked.items():
                self._store(name, value)
            yield self
        finally:
            for name, value in saved.items():
                self._store(name, value)

    @contextlib.contextmanager
    def aggregation(self, min_count: Optional[int] = None, min_bytes: Optional[int] = None) -> Iterator[None]:
        """Set the early-aggregation thresholds inside a ``with`` block, restoring them after (None: as is)."""
        given = dict(aggregation_min_count=min_count, aggregation_min_bytes=min_bytes)
        with self.override(**{name: value for name, value in given.items() if value is not None}):
            yield

    def __repr__(self) -> str:
        return "tj.config(" + ", ".join(f"{name}={value!r}" for name, value in self.settings().items()) + ")"


_Config.__doc__ += "\n\n" + "\n".join(f"    {name}: {what}" for name, (_, what) in SETTINGS.items())

config = _Config()
