"""Differential test of tj.optimizers against Keras 3 (TensorFlow backend): random optimizer configurations
applied, step for step, by ``keras.optimizers.<Kind>`` and by ``tj.optimizers.<Kind>``.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/keras_optimizer_differential.py [--first K] [--programs N] [--verbose]

API.md ("Training") promises Keras 3's argument names, defaults and results, value for value. For each seed,
``numpy.random.default_rng(seed)`` draws a configuration (``Config``):

* the optimizer: SGD (momentum 0, or > 0 with or without nesterov), Adam (amsgrad on/off, sometimes
  weight_decay), AdamW, RMSprop (centered, momentum), Adagrad, with their own hyperparameters drawn or left
  at Keras's defaults;
* the learning rate: Keras's default, a float, a Keras ``LearningRateSchedule`` given to Keras with the
  equivalent optax schedule (or jnp callable of the step count) given to tapejax (``SCHEDULES``), or a
  callable of no arguments (Keras's "callable learning rate"; sometimes one whose value changes between
  steps); sometimes a new float rate (or a schedule) set between steps with ``opt.learning_rate = ...``;
* the options every Keras optimizer takes: weight_decay, clipnorm / clipvalue / global_clipnorm (at most one,
  Keras's rule; sometimes 0 or negative, which Keras reads as "no clipping"), use_ema with ema_momentum and
  ema_overwrite_frequency, loss_scale_factor, gradient_accumulation_steps; each mostly left at its default;
* rarely, a configuration Keras refuses (two clipping options, an ema_momentum outside [0, 1],
  gradient_accumulation_steps=1, AdamW(weight_decay=None), an SGD momentum outside [0, 1]): both must raise,
  tapejax an instance of Keras's exception class; or an RMSprop momentum outside [0, 1], which Keras takes
  (rmsprop.py checks nothing and keeps a momentum only when it is > 0): then neither may raise;
* 1-3 float32 Variables of small shapes (scalars included), and 3-8 steps of random gradients with exact
  zeros, occasional large values (1e4, and rarely 1e20, whose square overflows float32), and sometimes a
  ``None`` gradient for one Variable (both skip it: base_optimizer.py ``_filter_empty_gradients``) or for all
  of them (both raise ValueError, "No gradients provided for any variable", leaving everything unchanged).

Three runs apply the same steps: Keras eagerly (``opt.apply_gradients(zip(grads, keras.Variables))``), tapejax
eagerly, and tapejax with each ``apply_gradients`` inside a ``tj.function`` (one per seed, traced once per
pattern of None gradients; a new one after the kind of learning rate changes, and at every step for a
callable rate whose value changes, since a traced function calls the rate's callable when it is traced, as
tf.function would: that is the tracing's semantics, not the optimizer's). After every step each Variable is
compared (tapejax eager with Keras, tapejax in tj.function with Keras), and so are the iteration counts
(``opt.iterations``: with gradient accumulation the number of steps made, as Keras) and ``opt.learning_rate``
(the rate of the next step: a schedule's value at the count of calls, as Keras). A step that raises in
one run must raise in the others.

Tolerance: ``|tj - keras| <= RTOL * (max(|tj|, |keras|) + movement)`` elementwise, with ``RTOL = 1e-5`` (~84
float32 ulps) and ``movement`` the sum over the steps so far of that element's ``|change|`` in Keras's run.
The two sides compute the same formulas in a different order (optax's Adam bias-corrects the moments where
Keras folds the corrections into the step size and epsilon, the weight decay is added to the update rather
than assigned first, loss scaling and averaging of accumulated gradients come in another order), so each
step's update carries a relative error of a few float32 ulps of its own size, and the Variable holds its own
rounding: the first term covers the value's rounding, the second the updates' errors accumulated over the
(at most 8) steps. Where Keras's own formula is ill-conditioned (centered RMSprop with a small rho computes
``v - mean_g**2``, two nearly equal numbers; Adam's ``m / (sqrt(v) + epsilon)`` with a tiny v), float32
rounding is amplified on both sides alike, so the bound also has ``3 * |keras_float32 - keras_float64|``:
Keras's own float32 error, from a fourth run of Keras on float64 Variables and gradients (the
same schedule, whose rate is float32 in both; only while no gradient so far exceeds 1e15, so overflow never
passes for rounding). NaN must be NaN in both, and infinities equal.

A mismatch in values (or iterations, or a step raising on one side only) is then diagnosed: the seed is run
again without each of ``TRIGGERS`` in turn (a None gradient at a gradient-accumulation update step; gradients
whose square overflows float32; optax's polynomial schedule, replaced by the same formula with its fraction
clamped at 0), then without all of them, and the trigger(s) whose removal makes it pass is printed with what
Keras's source does there, and counted in a last line ("value mismatches by cause").

``KNOWN`` lists the deliberate differences (why tapejax differs, from Keras's source and tapejax's docs); a
mismatch it explains is counted as known, and so is one whose causes are all in ``KNOWN_CAUSES`` (optax's
formulas, which tapejax's optimizers compute by design). Exit status 1 on any other mismatch.
"""
from __future__ import annotations

import copy
import logging
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

import tapejax as tj  # noqa: E402
from seed_runs import seed_arguments  # noqa: E402

tf.get_logger().setLevel("ERROR")
logging.getLogger("tapejax").setLevel(logging.ERROR)  # (the retracing warning: one tj.function per seed)

RTOL = 1e-5
F32 = np.float32
KS = keras.optimizers.schedules

# Deliberate differences: a check label -> why tapejax differs. A mismatch is known when its label is here.
KNOWN: dict = {}

WORST = [0.0, None]  # the largest error of a comparison that passed (as a fraction of its tolerance), its seed


# -- learning-rate schedules: (Keras's LearningRateSchedule, the same schedule for tapejax) -----------------

def _piecewise(boundaries, values):
    b = jnp.asarray(boundaries, jnp.int32)
    v = jnp.asarray(values, jnp.float32)
    # Keras's PiecewiseConstantDecay: values[i] for boundaries[i-1] < step <= boundaries[i]
    return lambda count: v[jnp.sum(count > b)]


def _inverse_time(initial, decay_steps, rate, staircase):
    def schedule(count):
        p = jnp.asarray(count, jnp.float32) / jnp.float32(decay_steps)
        if staircase:
            p = jnp.floor(p)
        return jnp.float32(initial) / (1.0 + jnp.float32(rate) * p)
    return schedule


def _polynomial_clamped(initial, decay_steps, end, power):
    """optax.polynomial_schedule with its fraction clamped at 0 (used only to diagnose: see TRIGGERS)."""
    def schedule(count):
        frac = jnp.maximum(1.0 - jnp.minimum(count, decay_steps) / decay_steps, 0.0)
        return (initial - end) * frac ** power + end
    return schedule


SCHEDULES = {
    "exponential": lambda a: (KS.ExponentialDecay(a["init"], a["steps"], a["rate"], staircase=a["staircase"]),
                              optax.exponential_decay(a["init"], a["steps"], a["rate"], staircase=a["staircase"])),
    "piecewise": lambda a: (KS.PiecewiseConstantDecay(a["boundaries"], a["values"]),
                            _piecewise(a["boundaries"], a["values"])),
    "polynomial": lambda a: (KS.PolynomialDecay(a["init"], a["steps"], a["end"], a["power"]),
                             optax.polynomial_schedule(a["init"], a["end"], a["power"], a["steps"])),
    "polynomial_clamped": lambda a: (KS.PolynomialDecay(a["init"], a["steps"], a["end"], a["power"]),
                                     _polynomial_clamped(a["init"], a["steps"], a["end"], a["power"])),
    "cosine": lambda a: (KS.CosineDecay(a["init"], a["steps"], alpha=a["alpha"]),
                         optax.cosine_decay_schedule(a["init"], a["steps"], alpha=a["alpha"])),
    "inverse_time": lambda a: (KS.InverseTimeDecay(a["init"], a["steps"], a["rate"], staircase=a["staircase"]),
                               _inverse_time(a["init"], a["steps"], a["rate"], a["staircase"])),
}


def _draw_schedule(rng) -> tuple:
    name = str(rng.choice(sorted(set(SCHEDULES) - {"polynomial_clamped"})))
    init = float(np.round(10 ** rng.uniform(-3, -0.5), 5))
    steps = int(rng.integers(1, 6))
    if name == "piecewise":
        boundaries = sorted(int(b) for b in rng.choice(np.arange(0, 8), size=int(rng.integers(1, 4)), replace=False))
        values = [float(np.round(10 ** rng.uniform(-3, -0.5), 5)) for _ in range(len(boundaries) + 1)]
        return name, {"boundaries": boundaries, "values": values}
    args = {"init": init, "steps": steps}
    if name in ("exponential", "inverse_time"):
        args.update(rate=float(np.round(rng.uniform(0.3, 0.95), 3)), staircase=bool(rng.random() < 0.4))
    elif name == "polynomial":
        args.update(end=float(np.round(init * rng.uniform(0, 0.5), 6)), power=float(rng.choice([1.0, 0.5, 2.0])))
    elif name == "cosine":
        args.update(alpha=float(rng.choice([0.0, 0.1, 0.5])))
    return name, args


class ChangingRate:
    """A callable of no arguments (Keras's callable learning rate) whose value is ``values[i]`` at step i."""

    def __init__(self, values):
        self.values, self.i = list(values), 0

    def __call__(self):
        return self.values[min(self.i, len(self.values) - 1)]


# -- configurations ---------------------------------------------------------------------------------------

KINDS = ("SGD", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad")


@dataclass
class Config:
    seed: int
    kind: str
    kwargs: dict  # everything but learning_rate
    lr: tuple  # ("default",) | ("float", x) | ("schedule", name, args) | ("callable", x) | ("changing", values)
    inits: list  # float32 arrays
    grads: list  # per step: a list with one array or None per Variable
    lr_sets: dict = field(default_factory=dict)  # step -> ("float", x) | ("schedule", name, args), before it
    invalid: Optional[str] = None  # a configuration Keras refuses

    def __repr__(self) -> str:
        shapes = [tuple(a.shape) for a in self.inits]
        nones = [[i for i, g in enumerate(gs) if g is None] for gs in self.grads]
        return (f"seed {self.seed}: {self.kind}(learning_rate={self.lr}, {self.kwargs}) shapes={shapes} "
                f"steps={len(self.grads)} none_at={nones} lr_sets={self.lr_sets}"
                + (f" invalid={self.invalid}" if self.invalid else ""))


def _maybe(rng, p, value):
    return value if rng.random() < p else None


def _round(x, digits=4):
    return float(np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="k"))


def draw_config(seed: int) -> Config:
    rng = np.random.default_rng(seed)
    kind = str(rng.choice(KINDS))
    kw: dict = {}
    eps = lambda: float(rng.choice([1e-7, 1e-3, 1e-8, 1.0]))  # noqa: E731
    if kind == "SGD":
        if rng.random() < 0.6:
            kw["momentum"] = _round(rng.uniform(0.05, 0.99)) if rng.random() < 0.8 else 1.0
        if rng.random() < 0.5:
            kw["nesterov"] = bool(rng.random() < 0.6)
    elif kind in ("Adam", "AdamW"):
        if rng.random() < 0.4:
            kw["beta_1"] = _round(rng.uniform(0.0, 0.99))
        if rng.random() < 0.4:
            kw["beta_2"] = _round(rng.uniform(0.9, 0.9999), 5)
        if rng.random() < 0.4:
            kw["epsilon"] = eps()
        if rng.random() < 0.5:
            kw["amsgrad"] = bool(rng.random() < 0.7)
    elif kind == "RMSprop":
        if rng.random() < 0.4:
            kw["rho"] = _round(rng.uniform(0.0, 0.99))
        if rng.random() < 0.5:
            kw["momentum"] = _round(rng.uniform(0.05, 0.95))
        if rng.random() < 0.4:
            kw["epsilon"] = eps()
        if rng.random() < 0.5:
            kw["centered"] = bool(rng.random() < 0.7)
    elif kind == "Adagrad":
        if rng.random() < 0.4:
            kw["initial_accumulator_value"] = float(rng.choice([0.0, 0.01, 0.5, 2.0]))
        if rng.random() < 0.4:
            kw["epsilon"] = eps()
    # Keras's common options, mostly at their defaults
    if rng.random() < (0.5 if kind == "AdamW" else 0.25):
        kw["weight_decay"] = _round(10 ** rng.uniform(-3, -0.3)) if rng.random() < 0.9 else 0.0
    r = rng.random()
    if r < 0.36:
        option = str(rng.choice(["clipnorm", "clipvalue", "global_clipnorm"]))
        kw[option] = _round(10 ** rng.uniform(-1.5, 0.7)) if rng.random() < 0.85 else float(rng.choice([0.0, -1.0]))
    if rng.random() < 0.2:
        kw["use_ema"] = True
        if rng.random() < 0.6:
            kw["ema_momentum"] = float(rng.choice([0.0, 0.5, 0.9, 0.99, 1.0])) if rng.random() < 0.5 \
                else _round(rng.uniform(0, 1))
        if rng.random() < 0.6:
            kw["ema_overwrite_frequency"] = int(rng.integers(1, 5))
    elif rng.random() < 0.05:  # the EMA options without use_ema (ignored, as Keras)
        kw["ema_momentum"], kw["ema_overwrite_frequency"] = 0.5, 2
    if rng.random() < 0.2:
        kw["loss_scale_factor"] = float(rng.choice([2.0, 128.0, 0.5, 1000.0, 3.0]))
    if rng.random() < 0.2:
        kw["gradient_accumulation_steps"] = int(rng.integers(2, 4))
    # learning rate
    r = rng.random()
    if r < 0.2:
        lr: tuple = ("default",)
    elif r < 0.65:
        lr = ("float", _round(10 ** rng.uniform(-3.5, -0.3)))
    elif r < 0.9:
        lr = ("schedule",) + _draw_schedule(rng)
    elif r < 0.95:
        lr = ("callable", _round(10 ** rng.uniform(-3, -0.5)))
    else:
        lr = ("changing", [_round(10 ** rng.uniform(-3, -0.5)) for _ in range(8)])
    # a configuration Keras refuses
    invalid = None
    if rng.random() < 0.06:
        choices = ["two_clips", "ema_momentum", "accumulation_1"]
        choices += {"AdamW": ["adamw_no_decay"], "SGD": ["sgd_momentum"], "RMSprop": ["rmsprop_momentum"]}.get(kind, [])
        invalid = str(rng.choice(choices))
        if invalid == "two_clips":
            kw.pop("clipnorm", None), kw.pop("clipvalue", None), kw.pop("global_clipnorm", None)
            a, b = rng.choice(["clipnorm", "clipvalue", "global_clipnorm"], size=2, replace=False)
            kw[str(a)], kw[str(b)] = 1.0, 0.5
        elif invalid == "ema_momentum":
            kw["use_ema"], kw["ema_momentum"] = True, float(rng.choice([-0.1, 1.5]))
        elif invalid == "accumulation_1":
            kw["gradient_accumulation_steps"] = 1
        elif invalid == "adamw_no_decay":
            kw["weight_decay"] = None
        elif invalid == "sgd_momentum":
            kw["momentum"] = float(rng.choice([1.5, -0.5]))
        elif invalid == "rmsprop_momentum":
            kw["momentum"] = float(rng.choice([1.5, -0.5]))
    # Variables and gradients
    shapes_pool = [(), (1,), (3,), (2, 3), (4,), (2, 2, 2), (5, 1)]
    n_vars = int(rng.integers(1, 4))
    shapes = [shapes_pool[int(i)] for i in rng.integers(0, len(shapes_pool), size=n_vars)]
    inits = []
    for s in shapes:
        v = rng.normal(size=s) * float(rng.choice([1.0, 0.1, 10.0]))
        if rng.random() < 0.15:
            v = np.zeros(s)
        inits.append(np.asarray(v, F32))
    n_steps = int(rng.integers(3, 9))
    grads = []
    for _ in range(n_steps):
        gs: list = []
        for s in shapes:
            g = np.asarray(rng.normal(size=s) * float(rng.choice([1.0, 0.01, 10.0])))
            g = np.where(rng.random(size=s) < 0.2, 0.0, g)
            if rng.random() < 0.08:
                g = np.zeros(s)
            if rng.random() < 0.08:
                g = np.where(rng.random(size=s) < 0.5, g * 1e4, g)
            if rng.random() < 0.015:
                g = np.where(rng.random(size=s) < 0.5, np.sign(rng.normal(size=s)) * 1e20, g)
            gs.append(np.asarray(g, F32))
        if n_vars > 1 and rng.random() < 0.3:
            gs[int(rng.integers(0, n_vars))] = None
        elif rng.random() < 0.03:
            gs = [None] * n_vars
        grads.append(gs)
    lr_sets: dict = {}
    if lr[0] in ("default", "float") and rng.random() < 0.15:
        at = int(rng.integers(1, n_steps))
        lr_sets[at] = ("float", _round(10 ** rng.uniform(-3, -0.5))) if rng.random() < 0.7 \
            else ("schedule",) + _draw_schedule(rng)
    return Config(seed, kind, kw, lr, inits, grads, lr_sets, invalid)


# -- the three runs ---------------------------------------------------------------------------------------

def _rate(spec, side: int):
    """The learning rate ``spec`` describes, for Keras (``side`` 0) or tapejax (1): a schedule is each library's."""
    if spec[0] == "float":
        return spec[1]
    if spec[0] == "schedule":
        return SCHEDULES[spec[1]](spec[2])[side]
    if spec[0] == "callable":
        value = spec[1]
        return lambda: value
    raise AssertionError(spec)


def _make(module, cfg: Config, rate):
    cls = getattr(module, cfg.kind)
    kw = dict(cfg.kwargs)
    if rate is not None:
        kw["learning_rate"] = rate
    return cls(**kw)


def _outcome(fn):
    """``(None, result)`` or ``(exception, None)``."""
    try:
        return None, fn()
    except Exception as e:  # noqa: BLE001 (any exception is compared)
        return e, None


class Run:
    """One side: Keras, tapejax eager or tapejax in a tj.function."""

    def __init__(self, side: str, cfg: Config):
        self.side, self.cfg = side, cfg
        self.changing = None
        if cfg.lr[0] == "default":
            rate = None
        elif cfg.lr[0] == "changing":
            self.changing = ChangingRate(cfg.lr[1])
            rate = self.changing
        else:
            rate = _rate(cfg.lr, 1)
        keras_side = side.startswith("keras")
        if keras_side and cfg.lr[0] not in ("default", "changing"):
            rate = _rate(cfg.lr, 0)
        self.error, self.opt = _outcome(lambda: _make(keras.optimizers if keras_side else tj.optimizers, cfg, rate))
        if side == "keras64":
            self.vars = [keras.Variable(a.astype(np.float64), dtype="float64", name=f"v{i}")
                         for i, a in enumerate(cfg.inits)]
        elif side == "keras":
            self.vars = [keras.Variable(a, dtype="float32", name=f"v{i}") for i, a in enumerate(cfg.inits)]
        else:
            self.vars = [tj.Variable(a, name=f"v{i}") for i, a in enumerate(cfg.inits)]
        self.fn = None

    def _traced(self):
        opt, variables = self.opt, self.vars

        @tj.function
        def step(grads):
            opt.apply_gradients(zip(grads, variables))
        return step

    def set_rate(self, spec):
        if spec[0] == "schedule":
            self.fn = None  # (a traced function keeps the rate it was traced with, as tf.function)
        self.opt.learning_rate = _rate(spec, 0 if self.side.startswith("keras") else 1)

    def apply(self, step: int, grads):
        if self.changing is not None:
            self.changing.i = step
            self.fn = None  # (its callable is called when a tj.function is traced)
        if self.side.startswith("keras"):
            dtype = np.float64 if self.side == "keras64" else F32
            pairs = [(None if g is None else tf.constant(g.astype(dtype)), v) for g, v in zip(grads, self.vars)]
            return _outcome(lambda: self.opt.apply_gradients(pairs))
        given = [None if g is None else tj.constant(g) for g in grads]
        if self.side == "tj":
            return _outcome(lambda: self.opt.apply_gradients(zip(given, self.vars)))
        if self.fn is None:
            self.fn = self._traced()
        return _outcome(lambda: self.fn(given))

    def values(self):
        return [np.asarray(v.numpy(), np.float64) for v in self.vars]

    def rate(self) -> float:
        """``opt.learning_rate``'s value now (as the next step would use it)."""
        return float(np.asarray(self.opt.learning_rate.numpy() if hasattr(self.opt.learning_rate, "numpy")
                                else self.opt.learning_rate))

    def iterations(self):
        return int(np.asarray(self.opt.iterations.numpy() if hasattr(self.opt.iterations, "numpy")
                              else self.opt.iterations))


def _close(k: np.ndarray, t: np.ndarray, movement: np.ndarray, own: Any = 0.0) -> tuple:
    """(ok, worst excess ratio, index) of tapejax ``t`` against Keras ``k``."""
    nan_k, nan_t = np.isnan(k), np.isnan(t)
    if (nan_k != nan_t).any():
        i = np.unravel_index(np.argmax(nan_k != nan_t), k.shape) if k.shape else ()
        return False, np.inf, i
    inf_k, inf_t = np.isinf(k), np.isinf(t)
    if (inf_k != inf_t).any() or (k[inf_k] != t[inf_k]).any():
        bad = (inf_k != inf_t) | (inf_k & (k != t))
        i = np.unravel_index(np.argmax(bad), k.shape) if k.shape else ()
        return False, np.inf, i
    fin = ~(nan_k | inf_k)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(fin, np.abs(k - t), 0.0)
        mov = np.where(np.isfinite(movement), movement, 0.0)
        bound = RTOL * (np.maximum(np.abs(np.where(fin, k, 0.0)), np.abs(np.where(fin, t, 0.0))) + mov) + own
        ratio = np.where(err > 0, err / np.maximum(bound, 1e-300), 0.0)
    i = np.unravel_index(np.argmax(ratio), k.shape) if k.shape else ()
    return bool((err <= bound).all()), float(np.max(ratio)) if ratio.size else 0.0, i


def _fmt(x) -> str:
    return np.array2string(np.asarray(x, np.float32), precision=9, floatmode="maxprec", separator=", ")


def check(cfg: Config) -> tuple:
    """``(kind, detail)``: "ok", "mismatch" or "known" (first difference found)."""
    runs = [Run(side, cfg) for side in ("keras", "tj", "tj_function")]
    keras_run, tj_runs = runs[0], runs[1:]
    reference = Run("keras64", cfg)  # (float32's own error: see the module docstring)
    # construction: both refuse, or neither
    for r in tj_runs[:1]:
        if (keras_run.error is None) != (r.error is None) or (
                keras_run.error is not None and not isinstance(r.error, type(keras_run.error))):
            return _verdict("construct", f"Keras: {keras_run.error!r}; tapejax: {r.error!r}")
    if keras_run.error is not None:
        return "ok", f"both refuse: {type(keras_run.error).__name__}"
    movement = [np.zeros(a.shape) for a in cfg.inits]
    previous = keras_run.values()
    ordinary = True  # no gradient so far whose square or sums could come near float32's range
    for step, grads in enumerate(cfg.grads):
        ordinary = ordinary and all(g is None or not (np.abs(g) > 1e15).any() for g in grads)
        if step in cfg.lr_sets:
            _outcome(lambda: reference.set_rate(cfg.lr_sets[step]))
            for r in runs:
                err, _ = _outcome(lambda: r.set_rate(cfg.lr_sets[step]))
                if err is not None:
                    return _verdict("set_rate", f"step {step}: {r.side} raised {err!r} setting the learning rate")
        outcomes = [r.apply(step, grads) for r in runs]
        reference.apply(step, grads)
        k_err = outcomes[0][0]
        for r, (err, _) in zip(tj_runs, outcomes[1:]):
            if (k_err is None) != (err is None) or (k_err is not None and not isinstance(err, type(k_err))):
                return _verdict("raises", f"step {step}: Keras: {k_err!r}; {r.side}: {err!r}")
        now = keras_run.values()
        for i, (a, b) in enumerate(zip(now, previous)):
            with np.errstate(invalid="ignore"):
                movement[i] = movement[i] + np.abs(a - b)
        previous = now
        k_iter = keras_run.iterations()
        with np.errstate(invalid="ignore", over="ignore"):
            own = [np.nan_to_num(3 * np.abs(kv - rv), nan=0.0, posinf=0.0) if ordinary else np.zeros(kv.shape)
                   for kv, rv in zip(now, reference.values())]
        for r in tj_runs:
            for i, (kv, tv) in enumerate(zip(now, r.values())):
                ok, ratio, idx = _close(kv, tv, movement[i], own[i])
                if ok and ratio > WORST[0]:
                    WORST[:] = [ratio, cfg.seed]
                if not ok:
                    return _verdict("values", f"step {step} ({r.side}) variable v{i}{list(idx)}: keras "
                                    f"{_fmt(kv[idx])} tapejax {_fmt(tv[idx])} (error {ratio:.3g} x tolerance)\n"
                                    f"      keras   {_fmt(kv)}\n      tapejax {_fmt(tv)}")
            k_lr, t_lr = keras_run.rate(), r.rate()
            if not _close(np.asarray(k_lr), np.asarray(t_lr), np.zeros(()))[0]:
                return _verdict("learning_rate", f"after step {step} ({r.side}): keras opt.learning_rate {k_lr!r}, "
                                f"tapejax {t_lr!r}")
            t_iter = r.iterations()
            if t_iter != k_iter:
                return _verdict("iterations", f"step {step} ({r.side}): keras iterations {k_iter}, tapejax {t_iter}")
    return "ok", ""


# -- what a mismatch comes from: a trigger whose removal (alone) makes the configuration pass ----------------

def _without_none_at_accumulation_update(cfg: Config) -> Optional[Config]:
    k = cfg.kwargs.get("gradient_accumulation_steps")
    if not (isinstance(k, int) and k >= 2):
        return None
    out, changed, calls = copy.deepcopy(cfg), False, 0
    for s, gs in enumerate(out.grads):
        if all(g is None for g in gs):
            continue  # (raises: not counted)
        calls += 1
        if calls % k == 0 and any(g is None for g in gs):
            out.grads[s] = [np.zeros(a.shape, F32) if g is None else g for g, a in zip(gs, out.inits)]
            changed = True
    return out if changed else None


def _without_overflowing_squares(cfg: Config) -> Optional[Config]:
    out, changed = copy.deepcopy(cfg), False
    for gs in out.grads:
        for i, g in enumerate(gs):
            if g is not None and (np.abs(g) > 1e19).any():
                gs[i] = np.where(np.abs(g) > 1e19, np.sign(g) * 1e4, g).astype(F32)
                changed = True
    return out if changed else None


def _without_optax_polynomial(cfg: Config) -> Optional[Config]:
    out, changed = copy.deepcopy(cfg), False
    specs = [("lr", out.lr)] + [(step, spec) for step, spec in out.lr_sets.items()]
    for where, spec in specs:
        if spec[0] == "schedule" and spec[1] == "polynomial" and float(spec[2]["power"]) != int(spec[2]["power"]):
            new = ("schedule", "polynomial_clamped", spec[2])
            if where == "lr":
                out.lr = new
            else:
                out.lr_sets[where] = new
            changed = True
    return out if changed else None


# name -> (the configuration without the trigger, or None when it has none; what the trigger is)
TRIGGERS = {
    "none_at_accumulation_update": (
        _without_none_at_accumulation_update,
        "a None gradient at a gradient-accumulation update step (call k, 2k...): Keras's "
        "base_optimizer._backend_apply_gradients -> _update_step_fn -> _backend_reset_gradient_accumulators zeroes "
        "every accumulator, that Variable's too (its gradients of the earlier calls of the group are dropped); "
        "tapejax does the same since its optimizers.py _reset_skipped_accumulators: a mismatch here is a regression"),
    "overflowing_square": (
        _without_overflowing_squares,
        "a gradient of |g| > 1e19, whose square overflows float32 (or nearly): Keras's adam.py Adam.update_step "
        "updates the velocity as v += (g**2 - v) * (1 - beta_2), which is inf - inf = NaN at the next step once v "
        "is inf, where optax's b2 * v + (1 - b2) * g**2 stays inf (the step is 0); and in tapejax's compiled "
        "update XLA folds the loss_scale_factor's or gradient accumulation's 1/k into the square's constant "
        "((g * c)**2 * (1 - b2) as g * g * (c * c * (1 - b2))), overflowing where Keras's g / scale does not"),
    "optax_polynomial_under_jit": (
        _without_optax_polynomial,
        "optax.polynomial_schedule with a fractional power, evaluated in tapejax's compiled update: XLA compiles "
        "count / transition_steps as count * float32(1 / transition_steps) and fuses 1 - that into an FMA, so at "
        "count == transition_steps (3 or 5) the fraction is -2.98e-8 and its power 0.5 is NaN (jax.jit(schedule)(3) "
        "is nan, schedule(3) eagerly the end value); Keras's PolynomialDecay divides exactly: min(step, "
        "decay_steps) / decay_steps = 1"),
}


# Triggers whose mismatches are deliberate: tapejax's optimizers compute optax's formulas (issue 15's contract:
# the same results as optax applied to the same arrays, which jax.jit(optax update) gives too).
KNOWN_CAUSES = {
    "overflowing_square": "optax's second moment b2 * v + (1 - b2) * g**2 stays inf where Keras's incremental "
                          "form makes inf - inf = NaN; an overflow at 1e19 is XLA's folding, jax.jit's too",
    "optax_polynomial_under_jit": "optax.polynomial_schedule compiled by XLA (jax.jit(schedule)(n) is NaN at the "
                                  "end of a fractional-power decay, for any optax user under jit)",
}


def diagnose(cfg: Config) -> Optional[str]:
    """The trigger (``TRIGGERS``) whose removal alone makes ``cfg`` pass, or the triggers whose removal together
    does ("a+b"), or None."""
    def passes(c: Optional[Config]) -> bool:
        worst = list(WORST)
        ok = c is not None and check(c)[0] == "ok"
        WORST[:] = worst  # (a rerun's comparisons are not the run's)
        return ok
    for name, (remove, _) in TRIGGERS.items():
        if passes(remove(cfg)):
            return name
    names, c = [], cfg
    for name, (remove, _) in TRIGGERS.items():
        without = remove(c)
        if without is not None:
            names.append(name)
            c = without
    return "+".join(names) if len(names) > 1 and passes(c) else None


def _verdict(label: str, detail: str) -> tuple:
    if label in KNOWN:
        return "known", f"{label}: {detail} [{KNOWN[label]}]"
    return "mismatch", f"{label}: {detail}"


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 300, "configuration")
    counts = {"ok": 0, "mismatch": 0, "known": 0}
    causes: dict = {}
    for seed in range(args.first, args.first + args.programs):
        cfg = draw_config(seed)
        kind, detail = check(cfg)
        counts[kind] += 1
        if kind != "ok" or args.verbose:
            print(f"[{kind}] {cfg!r}" + (f"\n    {detail}" if detail else ""), flush=True)
        if kind == "mismatch" and detail.startswith(("values", "iterations", "raises")):
            cause = diagnose(cfg)
            causes[cause] = causes.get(cause, 0) + 1
            if cause and all(c in KNOWN_CAUSES for c in cause.split("+")):
                counts["mismatch"] -= 1
                counts["known"] += 1
                kind = "known"
            why = "; and ".join(f"{c}: {TRIGGERS[c][1]}" for c in cause.split("+")) if cause else ""
            print(f"    cause ({kind}): {why}" if cause else
                  "    cause: none of TRIGGERS (passes with none of them removed)", flush=True)
    print(f"\n{args.programs} configs (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    if WORST[1] is not None:
        print(f"largest error within tolerance: {WORST[0]:.3g} of it (seed {WORST[1]})")
    if causes:
        print("value mismatches by cause: " + ", ".join(f"{k or 'unexplained'} {v}" for k, v in causes.items()))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
