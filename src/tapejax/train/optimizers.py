"""Keras-style optimizers over optax, and TF's gradient clipping.

An ``Optimizer`` wraps one optax ``GradientTransformation``: optax computes every update, this module
only keeps the state in tj.Variables and writes the results back. That is what lets one optimizer work
eagerly, inside a ``tj.function`` (its state Variables are captured and written back like any others)
and on sharded Variables (the update is a jitted function of the Variables' arrays).

1. First ``apply_gradients``: the optimizer is built for the Variables of that call (all of them, also
   those whose gradient is None, as Keras): ``tx.init`` on their values, each leaf of the optax state
   becoming a non-trainable Variable (``.variables``, after ``.iterations``).
2. Each ``apply_gradients``: pairs whose gradient is None are skipped (Keras). optax's ``update`` runs on
   the Variables that have a gradient, with the state restricted to them: a state node holding one
   entry per Variable (the params' list structure, as optax's ``mu``, ``nu``, traces and accumulators
   are) is cut down to those Variables, and their entries alone are written back; the skipped
   Variables and their state entries keep their values. ``iterations`` counts every call.
3. Learning rates may be floats or optax schedules (callables of the step count, starting at 0). A
   Keras-named optimizer given a float keeps it in a float32 Variable (``learning_rate``, in
   ``.variables`` after ``iterations``, as Keras): setting or assigning it changes the rate of the next
   steps. Its transformation is rebuilt from that Variable's value inside each compiled update. A
   schedule set later (Keras allows it; the Variable then leaves ``.variables``) gives each update its
   value at that step's count in place of the Variable's, so the state stays the float rate's.
4. Keras's ``exclude_from_weight_decay(var_list, var_names)``, before the build: the build records which
   of its Variables are decayed, and an update of a set of Variables some of which are excluded
   rebuilds the transformation with that mask (the same state: the decay has none of its own).
5. Keras's hyperparameters are attributes (``opt.momentum``, ``opt.clipnorm``...); setting one, as in Keras,
   builds the transformation again from the new values, used from the next update on (a traced tj.function
   keeps the update it traced, as a tf.function keeps Keras's). Once built, only values whose state has the
   same Variables can be set (Keras fails at its next step on the others).
6. A Variable given twice in one call gets each of its gradients in turn, all at the call's step count
   (Keras's loop over the pairs); SGD updates integer Variables in their dtype, as Keras (its rate and momentum
   truncated); the other optimizers refuse integer and complex Variables, whose Keras updates no optax rule
   gives (``Optimizer._check_dtypes``).
7. Keras's ``use_ema``: the state also holds a moving average of each built Variable (first among the
   state, as Keras orders its variables), updated after every call from all of them (also those whose
   gradient was None), ``optax.incremental_update`` with Keras's momentum (0 at the first step: the
   average starts as the Variable). With ``ema_overwrite_frequency`` f, every f-th step overwrites the
   Variables with their averages (``optax.periodic_update``); ``finalize_variable_values`` does it on
   demand.
"""
from __future__ import annotations

import functools
import inspect
import re
import sys
import threading
import warnings
import weakref
from collections.abc import Sequence
from typing import Any, Callable, Iterable, List, Optional, Tuple, Union

import jax
import jax.numpy as jnp
import optax

from .. import interrupts, tape_set
from ..backprop import GradientTape
from ..deferred import pending
from ..graph.function import init_scope
from ..ops import numpy as tnp
from ..tensor import ConversionError, Tensor, Variable, convert_to_tensor, current_values, name_scope, pending_value

LearningRate = Union[float, Callable[[Any], Any]]


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "from_optax", "LearningRate",
           "UnrecognizedArgumentError", "clip_by_norm", "clip_by_global_norm", "global_norm", "keras_transformation",
           "keras_scale_by_adam", "keras_scale_by_rss", "keras_epsilon",
           "keras_amsgrad"]


class UnrecognizedArgumentError(ValueError, TypeError):
    """A Keras-named optimizer given a keyword argument it does not take. Keras raises ValueError
    ("Argument(s) not recognized"); also a TypeError, as Python raises for an unexpected keyword, for
    code written to either."""


class Optimizer:
    """Applies an optax ``GradientTransformation`` to tj.Variables (see the module docstring).

    Use the Keras-named subclasses (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``) or
    ``from_optax(transformation)`` for any optax transformation.
    """

    def __init__(self, transformation: Optional[optax.GradientTransformation],
                 learning_rate: Optional[LearningRate] = None, name: Optional[str] = "optimizer",
                 with_learning_rate: Optional[Callable[..., optax.GradientTransformation]] = None) -> None:
        """``with_learning_rate(lr, decay_mask=None)``: the transformation for a given learning rate (a
        float32 scalar traced in the update, or the schedule) and which of the updated Variables get
        Keras's weight decay (a tuple of bools, None: all), built from the current hyperparameters (a Keras-named
        optimizer's; ``transformation`` is then unused); given with a float ``learning_rate``, that rate is a
        settable Variable. Without it, ``transformation`` holds its learning rate (``from_optax``)."""
        self._lr_fn = None
        if name is None:
            name = _auto_name(type(self).__name__)
        if with_learning_rate is not None and isinstance(learning_rate, (Variable, Tensor)):
            # Keras 3 refuses them (`not isinstance(learning_rate, float)`): a Variable's value would be read once
            raise ValueError("Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a "
                             "callable (that takes in the current iteration value and returns the corresponding "
                             f"learning rate value). Received instead: learning_rate={learning_rate!r} "
                             f"({type(self).__name__}; Keras's words). For a rate that changes, set "
                             "`opt.learning_rate = value` between steps, or give a callable of no arguments "
                             "(`lambda: lr_variable`), read at each step.")
        if with_learning_rate is not None and _takes_no_arguments(learning_rate):
            # Keras: "a callable that takes no arguments and returns the actual value to use": its value is
            # the rate Variable's, refreshed at each step (inside a tj.function, when it is traced).
            self._lr_fn = learning_rate
            learning_rate = _rate_value(learning_rate(), type(self).__name__)
        self._learning_rate = learning_rate
        # (its own methods are held weakly, here and in the jitted updates below: a bound method kept in the
        # optimizer is a reference cycle, which left every dropped optimizer for the garbage collector)
        self._make = _weakly(with_learning_rate, self)
        self._tx_rate = learning_rate  # (the rate the transformation is built with: a float, or a schedule)
        self._decay_excluded: Optional[Tuple[set, Optional[re.Pattern]]] = None  # exclude_from_weight_decay
        self._decay_mask: Optional[Tuple[bool, ...]] = None  # per built Variable; None: all decayed
        self._version = 0  # (how many times a hyperparameter was set: part of each compiled update's key)
        self._checked = None  # (the Variable ids and version apply last checked)
        self._one_round = False  # (whether those Variables take one update per call: _rounds)
        if with_learning_rate is None:
            if not (callable(getattr(transformation, "init", None))
                    and callable(getattr(transformation, "update", None))):
                raise TypeError(f"{type(self).__name__}: expected an optax GradientTransformation (with init and "
                                f"update), got {type(transformation).__name__}; build one with optax, e.g. "
                                "optax.adam(1e-3) or optax.chain(...).")
            self._tx, self._rebuild, self._with_learning_rate = transformation, None, None
            self._counts_follow_iterations, self._ema = False, None
        else:
            self._configure()
        self.name = name
        with name_scope(name):
            self._iterations = Variable(jnp.zeros((), jnp.int32), trainable=False, name="iteration")
            self._lr = None if self._with_learning_rate is None else \
                Variable(_rate_value(learning_rate, type(self).__name__), trainable=False, name="learning_rate")
        self._built: Optional[List[Variable]] = None
        self._restore_on_build: Optional[Tuple[list, str]] = None
        self._state: List[Variable] = []
        self._state_tree = None
        # (the update as the compiled programs hold it: reaching this optimizer weakly, so that it dies with its user)
        self._weak_update = _weakly(self._update, self)
        self._step = jax.jit(self._weak_update, static_argnums=(0,))
        self._kernels: dict = {}  # (see _flat_update)
        self._trees: dict = {}  # (see _flat)
        # (a donated leaf must come back even when unchanged: its old buffer is gone after the call)
        self._step_donating = jax.jit(functools.partial(self._weak_update, drop_unchanged=False),
                                      static_argnums=(0,),
                                      donate_argnums=(2, 3, 4))
        # How the last update ran: "fused into the replayed step" (one program with the step's forward and
        # backward pass, deferred/pending.py) or "one compiled update".
        self.last_update = ""
        self._compiled: set = set()  # (update keys and donation that ran: compiled)

    # Keras's hyperparameters as attributes (``opt.beta_1``, ``opt.clipnorm``...). As in Keras, setting one
    # changes the following steps: the transformation is built again from the new values (_set_hyperparameter).
    def __getattr__(self, name: str) -> Any:
        hyper = self.__dict__.get("_hyperparameters", {})
        if name in hyper:
            return hyper[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__.get("_hyperparameters", ()):
            self._set_hyperparameter(name, value)
            return
        object.__setattr__(self, name, value)

    def _configure(self) -> None:
        """The transformation, and what else follows from the hyperparameters (at construction, and again
        when one is set)."""
        make = self._make
        steps = self._hyperparameter("gradient_accumulation_steps")
        if steps and callable(self._tx_rate):
            # Keras evaluates a schedule at its count of calls (k per step: at k - 1, 2k - 1...), optax's
            # MultiSteps at its inner count of steps (0, 1...)
            make = _schedule_per_call(make, steps)
        self._tx = make(self._tx_rate)
        self._rebuild = make
        self._with_learning_rate = None if callable(self._tx_rate) else make
        # Keras's optimizers read `iterations` for their bias corrections and schedules, so assigning it (a reset,
        # a resume) changes the next step: optax's own step counts are set from it at each update. (Not under
        # gradient accumulation, whose inner count is of steps made, nor for from_optax: its state is optax's.)
        self._counts_follow_iterations = not steps
        # Keras's use_ema: (ema_momentum, ema_overwrite_frequency or None), or None without moving averages
        self._ema = _ema_options(self._hyperparameter("use_ema"), self._hyperparameter("ema_momentum"),
                                 self._hyperparameter("ema_overwrite_frequency"))

    def _set_hyperparameter(self, name: str, value: Any) -> None:
        """``opt.<hyperparameter> = value``, as Keras: the next steps use it (Keras reads its attributes at each
        step). Once the optimizer is built, only a value whose transformation keeps the state's variables (their
        number, shapes and dtypes) can be set: Keras fails at its next step on one that needs other state
        (``amsgrad``, ``use_ema`` or ``gradient_accumulation_steps`` turned on, SGD's or RMSprop's momentum from
        0, ``centered``); this raises AttributeError when it is set, and keeps the old value."""
        owner = type(self).__name__
        if self._built is not None and name in ("use_ema", "gradient_accumulation_steps") \
                and value != self._hyperparameters[name]:
            raise AttributeError(f"{owner}.{name} can only be set before the optimizer is built (its first "
                                 "apply_gradients): it changes what the optimizer keeps for each variable. Keras "
                                 "fails at the next step too.")
        saved = {k: self.__dict__[k] for k in ("_hyperparameters", "_tx", "_rebuild", "_with_learning_rate",
                                               "_counts_follow_iterations", "_ema")}
        object.__setattr__(self, "_hyperparameters", {**self._hyperparameters, name: value})
        try:
            self._configure()
            tree = self._state_tree if self._built is None else self._state_structure(name)
        except BaseException:
            self.__dict__.update(saved)
            raise
        self._state_tree = tree
        self._version += 1  # (the compiled updates are keyed on it: the next one is traced with the new values)

    def _state_structure(self, name: str):
        """The tree of the state this optimizer's transformation makes for the Variables it was built for, when
        its leaves are those of the state Variables (shapes and dtypes, in order); else AttributeError."""
        params = [jax.ShapeDtypeStruct(tuple(v.shape), jnp.dtype(v.dtype)) for v in self._built]
        state = jax.eval_shape(self._tx.init, params)
        if self._ema is not None:
            state = (params, state)
        leaves, tree = jax.tree_util.tree_flatten(state)
        if [(tuple(x.shape), jnp.dtype(x.dtype)) for x in leaves] != \
                [(tuple(v.shape), jnp.dtype(v.dtype)) for v in self._state]:
            raise AttributeError(
                f"{type(self).__name__}.{name} = {self._hyperparameters[name]!r}: this optimizer is built, and with "
                f"that value it would keep other state for its variables ({len(leaves)} arrays instead of "
                f"{len(self._state)}), so it can only be set before the first apply_gradients (Keras fails at the "
                "next step too). Set it before training, or make a new optimizer.")
        return tree

    def _hyperparameter(self, name: str) -> Any:
        """A Keras hyperparameter of this optimizer, or None (``from_optax``'s have none; read before a
        subclass has set them, as in ``__init__``)."""
        return self.__dict__.get("_hyperparameters", {}).get(name)

    def _with_keras_options(self, tx: optax.GradientTransformation, lr: Any, weight_decay: Optional[float],
                            decay_mask: Optional[Sequence[bool]]) -> optax.GradientTransformation:
        """``keras_transformation`` of ``tx`` with this optimizer's clipping, loss scaling and accumulation."""
        h = self._hyperparameters
        return keras_transformation(tx, lr, weight_decay, h["clipnorm"], h["clipvalue"], h["global_clipnorm"],
                                    decay_mask, h["loss_scale_factor"], h["gradient_accumulation_steps"])

    # Which Variables Keras's update of this optimizer takes (a subclass's): complex ones (SGD's; Keras's Adam,
    # RMSprop and Adagrad square a complex gradient as g * g, where optax's moments are |g|**2), integer ones
    # (SGD's, in their dtype: _integer_transformation).
    _takes_complex = False
    _takes_integers = False

    def _check_dtypes(self, variables: Sequence[Variable]) -> None:
        """TypeError for a Variable whose dtype this Keras-named optimizer does not update as Keras does."""
        if self._rebuild is None:  # (from_optax: optax's own rules for any dtype)
            return
        owner = type(self).__name__
        for v in variables:
            dtype = jnp.dtype(v.dtype)
            if jnp.issubdtype(dtype, jnp.complexfloating) and not self._takes_complex:
                raise TypeError(
                    f"{owner}: variable {v.name!r} has dtype {dtype}, and tj.optimizers.{owner} does not update "
                    f"complex variables: Keras's {owner} squares a complex gradient as g * g (no conjugate), a "
                    "complex 'second moment' whose square root steps off the gradient's direction, and optax's "
                    "(|g|**2) would give other values than Keras's. Train the real and imaginary parts as two "
                    "float Variables, or use tj.optimizers.from_optax(...) for optax's complex rules.")
            integer = jnp.issubdtype(dtype, jnp.integer)
            if dtype == jnp.bool_ or (integer and not self._takes_integers):
                raise TypeError(
                    f"{owner}: variable {v.name!r} has dtype {dtype}; tj.optimizers.{owner} updates only "
                    f"floating-point variables (Keras's {owner} fails on an integer variable or truncates its "
                    "steps: its hyperparameters are cast to the variable's dtype). Use a float Variable.")
            if integer:
                self._check_integer_options(v, dtype)

    def _check_integer_options(self, v: Variable, dtype) -> None:
        """(SGD) the options its updates of integer Variables do not take."""

    def _integer_transformation(self, lr: Any, decay_mask: Optional[Sequence[bool]]) -> optax.GradientTransformation:
        """(SGD) the transformation that updates integer Variables as Keras does, in their dtype."""
        raise NotImplementedError

    # -- public state -------------------------------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        """How many times ``apply_gradients`` ran (an int32 Variable); with Keras's
        ``gradient_accumulation_steps`` k, how many steps were made (that count floor-divided by k, a
        Tensor, as Keras)."""
        steps = self._hyperparameter("gradient_accumulation_steps")
        return self._iterations // steps if steps else self._iterations

    def scale_loss(self, loss: Any) -> Any:
        """As Keras: ``loss * loss_scale_factor`` (the gradients of that loss are divided by it again
        in each step), or ``loss`` when the optimizer has no ``loss_scale_factor``."""
        factor = self._hyperparameter("loss_scale_factor")
        return loss if factor is None else loss * factor

    def get_config(self) -> dict:
        """As Keras: the arguments that make a new optimizer like this one (without its state):
        ``type(opt).from_config(opt.get_config())``. The learning rate is its current value (a float),
        or the schedule or callable given."""
        if self._rebuild is None:
            raise NotImplementedError(f"{type(self).__name__}.get_config: this optimizer applies an optax "
                                      "transformation (from_optax), which has no config; keep the transformation "
                                      "and call from_optax again.")
        if self._lr_fn is not None:
            lr = self._lr_fn
        elif self._lr is not None:
            lr = float(self._lr.numpy())
        else:
            lr = self._learning_rate
        return {"name": self.name, "learning_rate": lr, **self._hyperparameters}

    @classmethod
    def from_config(cls, config: dict) -> "Optimizer":
        """A new optimizer from ``get_config()``'s dictionary (as Keras)."""
        return cls(**config)

    def set_weights(self, weights: Sequence[Any]) -> None:
        """As Keras: assign ``weights`` (e.g. another optimizer's ``variables``, built for Variables of the
        same shapes) to ``variables``, in order. Only once the optimizer is built."""
        if self._built is None:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")  # (Keras's words)
        weights, variables = list(weights), self.variables
        if len(weights) != len(variables):
            raise ValueError(f"{type(self).__name__}.set_weights: {len(weights)} weights for its {len(variables)} "
                             "variables; give one value per entry of `variables`.")
        for v, w in zip(variables, weights):
            if tuple(v.shape) != tuple(w.shape):
                raise ValueError(f"Optimizer variable {v.name!r} has shape {tuple(v.shape)} not compatible with "
                                 f"provided weight shape {tuple(w.shape)}.")
        for v, w in zip(variables, weights):  # (all checked first: a mismatch leaves every variable as it was)
            v.assign(w)

    @property
    def variables(self) -> List[Variable]:
        """``iterations``, the ``learning_rate`` Variable (when it is one), then the optax state leaves as
        Variables (those exist after the first apply; with ``use_ema``, the moving averages first), as Keras
        orders them."""
        head = [self._iterations] if self._lr is None else [self._iterations, self._lr]
        return head + list(self._state)

    @property
    def learning_rate(self):
        """The learning rate of the next step: a float32 Variable for a float rate (as Keras: set it, or
        ``assign`` to it, to change the following steps), a schedule's value at ``iterations``, a
        callable rate's value now, or, for ``from_optax``, None (the transformation holds its rate)."""
        if self._lr_fn is not None:
            return convert_to_tensor(_rate_value(self._lr_fn(), type(self).__name__))
        if self._lr is not None:
            return self._lr
        lr = self._learning_rate
        return lr(self._iterations.read_value().value) if callable(lr) else lr

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if self._lr is not None:
            if _takes_no_arguments(value):  # Keras's callable rate: called at each step
                self._lr.assign(_rate_value(value(), type(self).__name__))
                self._lr_fn = value
                return
            if callable(value):
                # A schedule of the step count (Keras: the rate Variable leaves `variables`). It is evaluated
                # at each step's count and given to the transformation as its rate (that keeps the state
                # built for a float rate; the rate of the first step is checked now).
                with tape_set.stop_recording():
                    _rate_value(value(self._iterations.read_value().value), type(self).__name__)
                self._lr = self._lr_fn = None
                self._learning_rate = value
                return
            if isinstance(value, (str, bytes)):  # (Keras's setter: TypeError on TF, ValueError on JAX; this is both)
                try:
                    _rate_value(value, type(self).__name__)
                except ValueError as e:
                    raise ConversionError(str(e)) from None
            self._lr.assign(value)  # (a wrong shape raises and leaves the rate as it was)
            self._lr_fn = None  # (a rate given as a callable is replaced by the float)
            return
        if callable(self._learning_rate):
            raise TypeError(f"This {type(self).__name__} was given a schedule as its learning_rate, hence its "
                            "learning rate is not settable (as Keras). Create it with a float learning_rate for "
                            "a settable one.")
        raise AttributeError(f"{type(self).__name__}.learning_rate cannot be set: this optimizer applies an optax "
                             "transformation that holds its own learning rate (from_optax). Use a Keras-named "
                             "optimizer (tj.optimizers.SGD, Adam, ...) for a settable learning rate, or give "
                             "optax an injected hyperparameter (optax.inject_hyperparams) or a schedule.")

    @property
    def built(self) -> bool:
        """Whether the state exists (after ``build`` or the first ``apply_gradients``), as Keras."""
        return self._built is not None

    @property
    def transformation(self) -> optax.GradientTransformation:
        """The optax ``GradientTransformation`` this optimizer applies."""
        return self._tx

    def build(self, var_list: Iterable[Variable]) -> None:
        """Create the state for ``var_list`` (done by the first ``apply_gradients``)."""
        if self._built is not None:
            return
        var_list = _check_variables(list(var_list), "build")
        # In init_scope, as Keras's slots: inside a tj.function's first trace the state is made from the
        # Variables' own values, concrete and placed as they are, not from the trace's. A Variable that trace
        # made from a value it computes has none yet: the state is then computed in the trace, as that value is.
        names = []
        cap = tape_set.current().capture
        computed = cap is not None and any(cap.computes(v) for v in var_list)
        with tape_set.stop_recording() if computed else init_scope():
            params = [v.read_value().value for v in var_list]
            state = self._tx.init(params)
            if self._ema is not None:  # Keras's moving averages (zeros: the first step sets them), first as Keras's
                state = ([jnp.zeros_like(p) for p in params], state)
                names = [_bare_name(v).replace("/", "_") + "_average" for v in var_list]
        leaves, self._state_tree = jax.tree_util.tree_flatten(state)
        if self._restore_on_build is not None:
            leaves = self._restored_state(leaves)
        names += [f"state_{i}" for i in range(len(names), len(leaves))]
        with name_scope(self.name):
            self._state = [Variable(leaf, trainable=False, name=name) for leaf, name in zip(leaves, names)]
        if self._decay_excluded is not None:
            ids, pattern = self._decay_excluded
            # (searched in the name without TF's ":0", as Keras 3 names a variable: "dense/bias", not "dense/bias:0")
            self._decay_mask = tuple(not (id(v) in ids or (pattern is not None and pattern.search(_bare_name(v))))
                                     for v in var_list)
        self._built = var_list
        self._position = {id(v): i for i, v in enumerate(var_list)}  # (looked up at every step)

    @property
    def _model_variables_moving_average(self) -> List[Variable]:
        """Keras's name for the moving averages of ``use_ema`` (one per built Variable, in its order)."""
        if self._ema is None or self._built is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_model_variables_moving_average' "
                                 "(it has moving averages once built with use_ema=True)")
        return self._state[:len(self._built)]

    def finalize_variable_values(self, var_list: Sequence[Variable]) -> None:
        """As Keras: with ``use_ema``, assign each Variable of ``var_list`` (the Variables the optimizer was
        built for, in their order) its moving average; without, nothing."""
        if self._ema is None:
            return
        var_list = list(var_list)
        averages = self._model_variables_moving_average if self._built is not None else []
        if len(var_list) != len(averages):
            raise ValueError(f"The length of model variables ({len(var_list)}) to override does not match the length "
                             f"of model variables stored in the optimizer ({len(averages)}). Please check if the "
                             "optimizer was called on your model.")  # (Keras's words)
        for v, average in zip(var_list, averages):
            v.assign(average)

    def exclude_from_weight_decay(self, var_list: Optional[Iterable[Variable]] = None,
                                  var_names: Optional[Iterable[str]] = None) -> None:
        """As Keras: the Variables in ``var_list``, and those whose name contains one of ``var_names``
        (regular expressions, searched in the name without its ":0"), get no ``weight_decay``. Only before
        the build."""
        if self._built is not None:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the optimizer is built.")
        if self._rebuild is None:
            raise TypeError(f"{type(self).__name__}.exclude_from_weight_decay: this optimizer applies an optax "
                            "transformation whose weight decay (if any) is its own; give optax's decay a mask "
                            "(optax.add_decayed_weights(rate, mask=...)) instead.")
        names = list(var_names or [])
        self._decay_excluded = ({id(v) for v in (var_list or [])},
                                re.compile("|".join(names)) if names else None)

    def restore_on_build(self, values: Sequence[Any], checkpoint: str) -> None:
        """Give ``build`` the state saved in ``checkpoint``, restored before this optimizer had any (TF's
        deferred restoration: ``ckpt.restore(path)`` before the first step): ``values`` are the state
        Variables' values in ``variables`` order, after ``iterations`` and the learning rate. ``build``
        checks their number, shapes and dtypes against the state it makes, and raises before making any
        state if they differ."""
        self._restore_on_build = (list(values), checkpoint)

    def _restored_state(self, leaves: list) -> list:
        values, checkpoint = self._restore_on_build
        problems = []
        if len(values) != len(leaves):
            problems.append(f"the checkpoint holds {len(values)} state values, this optimizer makes {len(leaves)}")
        else:
            for i, (saved, made) in enumerate(zip(values, leaves)):
                if tuple(saved.shape) != tuple(made.shape) or saved.dtype != made.dtype:
                    problems.append(f"state {i}: saved shape {tuple(saved.shape)} dtype {saved.dtype}, built "
                                    f"shape {tuple(made.shape)} dtype {made.dtype}")
        if problems:
            raise ValueError(f"{type(self).__name__}.build: the state restored from '{checkpoint}' does not fit the "
                             "variables it is built for: " + "; ".join(problems) + ". Build it for the variables "
                             "(in the order) it was saved with.")
        self._restore_on_build = None
        return [jnp.asarray(v) for v in values]

    # -- updates ------------------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable[Tuple[Any, Variable]]) -> Variable:
        """Apply one step to the ``(gradient, variable)`` pairs; None gradients are skipped. Returns
        ``iterations``."""
        pairs = list(grads_and_vars)
        for p in pairs:
            if not (isinstance(p, (tuple, list)) and len(p) == 2):
                raise TypeError(f"apply_gradients expects (gradient, variable) pairs, e.g. zip(grads, vars); got "
                                f"an element of type {type(p).__name__}.")
        if not pairs:  # (Keras raises ValueError too; the optimizer is left unbuilt)
            raise ValueError("No gradients provided for any variable: apply_gradients got no (gradient, variable) "
                             "pairs.")
        return self.apply([g for g, _ in pairs], [v for _, v in pairs])

    def apply(self, grads: Sequence, trainable_variables: Optional[Sequence[Variable]] = None) -> Variable:
        """As Keras 3's ``apply``: ``grads[i]`` for ``trainable_variables[i]``; without
        ``trainable_variables``, for the Variables the optimizer was built for. No gradients at all
        (``grads == []``): nothing happens (no build, no step), as Keras."""
        grads = list(grads)
        if not grads:
            return self._iterations
        if trainable_variables is None:
            if self._built is None:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built on "
                                 "a list of variables. Call `optimizer.build(trainable_variables)` first.")
            if len(grads) != len(self._built):
                raise ValueError(f"When passing `grads` without `variables`, give one gradient (or None) per variable "
                                 f"the optimizer was built for: received {len(grads)} gradients for "
                                 f"{len(self._built)} variables.")
            trainable_variables = self._built
        variables = _check_variables(list(trainable_variables), "apply_gradients")
        if len(grads) != len(variables):
            raise ValueError(f"apply_gradients: {len(grads)} gradients for {len(variables)} variables; give one "
                             "gradient (or None) per variable.")
        # The checks of the Variables (dtypes, known to the optimizer) run once per list and hyperparameter
        # version: a training loop gives the same list at every step. (Their ids are stable once checked:
        # the optimizer holds every Variable it was built for.)
        checked = (tuple(map(id, variables)), self._version)
        if checked != self._checked:
            self._check_dtypes(variables)
            self.build(_distinct(variables))  # (a Variable given twice is built once)
            position = self._position
            for v in variables:
                if id(v) not in position:
                    raise ValueError(f"Unknown variable {v.name!r}: this optimizer was built for the variables of "
                                     "its first apply_gradients call. Build it with the full list first "
                                     "(optimizer.build(model.trainable_variables)) or use a new optimizer.")
            self._checked = checked
            # (one update, as _rounds would find: no Variable given twice, none that SGD updates on its own)
            self._one_round = (len(set(checked[0])) == len(variables)
                               and not any(map(self._own_integer_update, variables)))
        missing = [v.name for g, v in zip(grads, variables) if g is None]
        present = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not present:
            raise ValueError(f"No gradients provided for any variable: {missing}.")
        if missing:
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the loss; they are "
                          "left unchanged.", UserWarning, stacklevel=2)
        global_clipnorm = self._hyperparameter("global_clipnorm")  # (None for from_optax)
        if global_clipnorm is not None and global_clipnorm > 0:
            dtypes = list(dict.fromkeys(jnp.dtype(v.dtype) for _, v in present))
            if len(dtypes) > 1:  # (checked before any update: clip_by_global_norm would refuse them inside it)
                raise TypeError(f"{type(self).__name__}: global_clipnorm clips the gradients of variables of "
                                f"different dtypes ({', '.join(map(str, dtypes))}) together; Keras 3 (TF) fails on "
                                "them too. Give them one dtype, or clip each dtype's gradients with "
                                "tj.clip_by_global_norm before apply_gradients.")
        rounds = [(False, present)] if self._one_round else self._rounds(present)
        with tape_set.stop_recording():  # an update is not part of any differentiated computation
            if self._lr_fn is not None:
                self._lr.assign(_rate_value(self._lr_fn(), type(self).__name__))
            for i, (integer, pairs) in enumerate(rounds):
                if i:  # (Keras: every update of one call at the same step count; iterations counts the call once)
                    self._iterations.assign_sub(1)
                self._apply_round(pairs, integer)
            # As Keras: each updated variable's constraint projects its new value (op by op: a pending
            # fused value is computed first; whether any has one is asked first, as most have none).
            if any(v.constraint is not None for _, v in present):
                for v in _distinct([v for _, v in present]):
                    if v.constraint is not None:
                        v.assign(v.constraint(v))
        return self._iterations

    def _own_integer_update(self, v: Variable) -> bool:
        """Whether ``v`` takes an update of its own, in its integer dtype (SGD's ``_integer_transformation``)."""
        return self._takes_integers and jnp.issubdtype(jnp.dtype(v.dtype), jnp.integer)

    def _rounds(self, present: list) -> List[Tuple[bool, list]]:
        """The ``(gradient, variable)`` pairs of one call as the updates that apply them: one, unless a
        Variable is given twice or more (Keras then applies each of its gradients in turn, all at the call's
        step count: round k updates the k-th gradient of each Variable) or SGD updates integer Variables
        (their own update, in their dtype: ``_integer_transformation``). ``[(integer, pairs), ...]``."""
        groups: dict = {}
        seen: dict = {}
        for g, v in present:
            k = seen[id(v)] = seen.get(id(v), -1) + 1
            integer = self._own_integer_update(v)
            groups.setdefault((k, integer), []).append((g, v))
        if len(groups) > 1:
            options = [o for o in ("use_ema", "gradient_accumulation_steps", "global_clipnorm")
                       if self._hyperparameter(o)]
            if self._rebuild is None or options:
                twice = len(seen) < len(present)
                what = "a variable appears more than once" if twice else "integer and floating-point variables"
                fix = ("add each variable's gradients together first, giving one (gradient, variable) pair per "
                       "variable" if twice else "update the integer variables in a call of their own")
                raise ValueError(f"apply_gradients: {what}, which Keras applies as updates one after the other; "
                                 f"{type(self).__name__}" + (f" with {', '.join(options)}" if options else
                                                             " (from_optax)") +
                                 f" cannot (those updates would not be Keras's): {fix}.")
            for g, v in present:  # (all checked before any update)
                shape = tuple(_aval(g if isinstance(g, Tensor) else convert_to_tensor(g)).shape)
                if shape != v.shape:
                    raise ValueError(f"apply_gradients: gradient of shape {shape} for variable {v.name!r} "
                                     f"of shape {v.shape}.")
        return [(integer, groups[k, integer]) for k, integer in sorted(groups)]

    def _apply_round(self, present: list, integer: bool) -> None:
        """One update of the ``(gradient, variable)`` pairs ``present`` (distinct Variables): their new values,
        the state's and ``iterations``."""
        position = self._position
        traced = tape_set.current().capture is not None
        given = [g if isinstance(g, Tensor) else convert_to_tensor(g) for g, _ in present]
        step = None if traced else pending.pending_step_of(given)
        # Gradients of such a step transformed by ops first (clipped, scaled: an update written by hand):
        # this update joins those ops (its values pending until read, one program with them).
        after_ops = None if traced or step is not None else pending.update_step_of(given)
        # Or of a step that ran before its update (its loss read first): after this update on its own, the
        # next step's program and update are forecast as one, dispatched ahead, whose run gives that loss.
        ran = None if traced or step is not None or after_ops is not None else pending.ran_before_update(given)
        pending_of = step if step is not None else after_ops
        # (a pending step's gradient shapes read together; compared as plain tuples: TensorShape's == is Python's)
        shapes = pending.shapes_of(pending_of, given) if pending_of is not None else None
        for k, (g, (_, v)) in enumerate(zip(given, present)):
            shape = shapes[k] if shapes is not None else tuple(g.shape)
            if shape != tuple(v.shape):
                raise ValueError(f"apply_gradients: gradient of shape {shape} for variable {v.name!r} "
                                 f"of shape {v.shape}.")
        key = (tuple([position[id(v)] for _, v in present]), len(self._built), self._version, integer)
        # (with moving averages, every built Variable: its average moves, and it may be overwritten by it)
        targets = self._built if self._ema is not None else [v for _, v in present]
        state, params, count, lr = self._update_arguments(targets)
        new = None
        # (the update's arguments read again for a step dispatched ahead; none with a schedule to call)
        rereadable = self._lr is not None or self._with_learning_rate is None
        # (named (a weak reference to self, key) in the fused programs' cache: a program compiled with this update
        # reaches the optimizer, its Variables and its state weakly, so that a model and optimizer made again, as
        # in a notebook cell run again, let the old ones go)
        update = functools.partial(self._weak_update, key)
        named = (weakref.ref(self), key)
        if step is not None:
            # Gradients of a replayed step that has not run: the step and this update run as one
            # compiled program (values as running them one after the other), once it is compiled.
            # The next step's may be dispatched ahead, on the arguments read then.
            flat, tree = self._flat(state, params, count, lr)
            new = pending.run_with_update(step, given, named, update, flat, tree,
                                          self._reread(targets, tree) if rereadable else None)
            if new is not None:
                self.last_update = "fused into the replayed step"
        elif after_ops is not None and rereadable and self._defer_update(key, given, targets):
            self.last_update = "fused into the replayed step, after the ops on its gradients"
            new = _PENDING
        if new is None:
            g_vals = [g.value for g in given]
            # One compiled call computes the new params, state and step count (one dispatch per step);
            # it reuses the old buffers (donation) when nothing but the Variables holds them (and no
            # forecast is compiled on them after it).
            donate = not traced and ran is None and _only_held_by_variables(params, state, count)
            flat, tree = self._flat(state, params, count, lr) if ran is not None else (None, None)
            # Ctrl-C is held back from the call to the last store (interrupts.held): a donated buffer is gone
            # once the call is dispatched, and stores left half done would mix new and old values. Not on the
            # first call of an update, which compiles: an interrupt there stops it before anything is donated.
            with interrupts.held(not traced and (key, donate) in self._compiled):
                new = (self._step_donating if donate else self._step)(key, g_vals, state, params, count.pop(), lr)
                if len(self._compiled) >= 256:
                    self._compiled.clear()
                self._compiled.add((key, donate))
                self.last_update = "one compiled update"
                if ran is not None:
                    pending.forecast_after(ran, named, update, flat, tree,
                                           self._reread(targets, tree) if rereadable else None)
                self._store(targets, new, traced)
        elif new is not _PENDING:
            with interrupts.held(not traced):
                self._store(targets, new, traced)

    def _store(self, targets: Sequence[Variable], new: tuple, traced: bool) -> None:
        """Store an update's ``new`` (params, state, step count) into ``targets``, the state and ``iterations``."""
        new_params, new_state, new_count = new
        # The values come from the update itself (shapes and dtypes as the variables'): outside a
        # tj.function they are stored as they are; inside one, assign records them for write-back.
        store = Variable.assign if traced else Variable.write_back
        for v, value in zip(targets, new_params):
            store(v, value)
        for s, value in zip(self._state, new_state):
            if value is not None:  # (None: unchanged)
                store(s, value)
        store(self._iterations, new_count)

    def _update_arguments(self, targets: Sequence[Variable]) -> tuple:
        """What an update of ``targets`` reads, as the Variables hold it now: (state values, ``targets``'
        values, [step count], learning rate or None), a schedule's rate computed for this step (Keras)."""
        params = current_values(targets)
        state = current_values(self._state)
        count = current_values((self._iterations,))
        if self._lr is not None:
            lr = current_values((self._lr,))[0]
        elif self._with_learning_rate is not None:  # a schedule set after construction, at this step (Keras)
            lr = _rate_value(self._learning_rate(count[0]), type(self).__name__)
        else:
            lr = None
        return state, params, count, lr

    def _defer_update(self, key: tuple, given: Sequence[Tensor], targets: Sequence[Variable]) -> bool:
        """This update appended to the hand-written update of the pending step whose values ``given`` are
        (deferred/pending.py ``defer_call``): the Variables' new values pending on it, True; False (nothing done)
        when it must run now."""
        with_lr = self._lr is not None
        kernel = self._flat_update(key, len(given), len(targets), with_lr)
        outs = pending.defer_call(kernel, [*given, *self._state, *targets, self._iterations,
                                           *([self._lr] if with_lr else [])])
        if outs is None:
            return False
        variables = [*targets, *self._state, self._iterations]
        step = pending.update_step_of(outs)
        if step is None or any((a.shape, a.dtype) != (v.shape, v.dtype)
                               for a, v in zip([pending.aval_of(step, t) for t in outs], variables)):
            return False  # (never expected: the update returns what it was given; op by op then, as ever)
        for v, t in zip(variables, outs):
            v.assign(t)
        return True

    def _flat_update(self, key: tuple, n_grads: int, n_params: int, with_lr: bool) -> Callable:
        """``_step`` as a function of flat arrays (gradients, state, parameters, step count, learning rate if
        ``with_lr``) returning the new parameters, state (each entry: an unchanged one as it was) and count:
        one object per signature, as deferred/pending.py keys its compiled programs on its kernels."""
        n_state = len(self._state)
        signature = (key, n_grads, n_params, n_state, with_lr)
        fn = self._kernels.get(signature)
        if fn is None:
            step = self._step  # (not self: the kernel is kept in self._kernels)

            def fn(*flat):
                grads, state = list(flat[:n_grads]), list(flat[n_grads:n_grads + n_state])
                params = list(flat[n_grads + n_state:n_grads + n_state + n_params])
                count, lr = flat[n_grads + n_state + n_params], (flat[-1] if with_lr else None)
                new_params, new_state, new_count = step(key, grads, state, params, count, lr)
                return (*new_params, *[old if new is None else new for new, old in zip(new_state, state)], new_count)
            self._kernels[signature] = fn
        return fn

    def _flat(self, state: list, params: list, count: list, lr: Any) -> Tuple[list, Any]:
        """``(flat, tree)``: the leaves of ``(state, params, count[0], lr)`` (each an array: a Variable's value)
        and their structure, the same object for every call of one layout."""
        flat = [*state, *params, *count]
        if lr is not None:
            flat.append(lr)
        layout = (len(state), len(params), lr is None)
        tree = self._trees.get(layout)
        if tree is None:
            tree = self._trees[layout] = jax.tree_util.tree_structure((state, params, count[0], lr))
        return flat, tree

    def _reread(self, targets: Sequence[Variable], tree: Any) -> Callable[[], Optional[list]]:
        """``_fused_flat_arguments(targets, tree)`` later (a forecast of the next step keeps it), reaching this
        optimizer and ``targets`` weakly: None once one of them is gone."""
        refs = [weakref.ref(self), *map(weakref.ref, targets)]

        def reread() -> Optional[list]:
            alive = [r() for r in refs]
            if any(a is None for a in alive):
                return None
            return alive[0]._fused_flat_arguments(alive[1:], tree)
        return reread

    def _fused_flat_arguments(self, targets: Sequence[Variable], tree: Any) -> Optional[list]:
        """The update arguments ``run_with_update`` gets, read now (for a step dispatched ahead), flat; None while
        one of them is pending (reading it would run what computes it: the step then goes as usual), or when
        they are no longer of the structure ``tree``."""
        for vs in (self._state, targets, (self._iterations, self._lr)):
            for v in vs:
                if v is not None and pending_value(v) is not None:
                    return None
        flat, now = self._flat(*self._update_arguments(targets))
        return flat if now is tree else None

    def minimize(self, loss: Any, var_list: Any, tape: Optional[GradientTape] = None) -> Variable:
        """One step on ``loss``: a callable (run under a new tape), or a Tensor recorded on ``tape``.
        ``var_list`` may be a callable returning the list (called after ``loss``, as TF)."""
        if callable(loss):
            if tape is not None:
                raise ValueError("minimize: give either a loss callable or a loss Tensor with its tape, not both.")
            with GradientTape() as tape:
                loss = loss()
        elif tape is None:
            raise ValueError("minimize: `tape` is required when `loss` is a Tensor; record it under a "
                             "tj.GradientTape and pass the tape, or pass a callable returning the loss.")
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def _update(self, key, grads, state_leaves, params, count, lr=None, drop_unchanged: bool = True):
        """One optax step on the Variables at ``idx`` (jitted; ``key`` = (idx, number built)), and the
        step count plus one; ``lr``: the learning-rate Variable's value, when there is one. With moving
        averages (``use_ema``), ``params`` are those of all the built Variables, and so are the new ones."""
        idx, n, _, integer = key  # (and the count of hyperparameters set: see _set_hyperparameter)
        mask = None if self._decay_mask is None else tuple(self._decay_mask[i] for i in idx)
        if integer:
            tx = self._integer_transformation(lr, mask)
        elif mask is not None and not all(mask):  # (the transformation's state does not depend on the mask)
            tx = self._rebuild(self._learning_rate if lr is None else lr, mask)
        else:
            tx = self._tx if lr is None else self._with_learning_rate(lr)
        state = jax.tree_util.tree_unflatten(self._state_tree, state_leaves)
        if self._ema is not None:
            (averages, state), all_params = state, params
            params = [all_params[i] for i in idx]

        def per_variable(node) -> bool:
            return isinstance(node, list) and len(node) == n

        full = idx == tuple(range(n))
        sub = state if full else jax.tree_util.tree_map(
            lambda node: [node[i] for i in idx] if per_variable(node) else node, state, is_leaf=per_variable)
        if self._counts_follow_iterations:
            sub = _with_step_count(sub, count)
        try:
            updates, new_sub = tx.update(grads, sub, params)
        except (ValueError, TypeError, IndexError) as e:
            if full:
                raise
            # e.g. an optax mask or multi_transform labels given as a list: a tree of all the variables
            raise ValueError(
                f"apply_gradients: this optax transformation cannot update only the {len(idx)} of its {n} variables "
                "that have a gradient (the others' are None) and failed with: "
                f"{type(e).__name__}: {e}\nIts hyperparameters are probably per-variable trees (a mask or "
                "labels given as a list): pass them as callables of the params (optax calls them on the "
                "variables updated), or give every variable a gradient (tape.gradient(..., "
                "unconnected_gradients=tj.UnconnectedGradients.ZERO)).") from e
        new_params = optax.apply_updates(params, updates)
        if not full:
            def merge(old, new):
                if not per_variable(old):
                    return new
                merged = list(old)
                for j, i in enumerate(idx):
                    merged[i] = new[j]
                return merged
            new_sub = jax.tree_util.tree_map(merge, state, new_sub, is_leaf=per_variable)
            if self._hyperparameter("gradient_accumulation_steps") and isinstance(new_sub, optax.MultiStepsState):
                new_sub = _reset_skipped_accumulators(new_sub, idx)
        # Stored without conversion (write_back): each value keeps its Variable's dtype, strongly typed.
        new_params = [jax.lax.convert_element_type(n, o.dtype) for n, o in zip(new_params, params)]
        if self._ema is not None:
            updated = list(all_params)
            for j, i in enumerate(idx):
                updated[i] = new_params[j]
            steps = self._hyperparameter("gradient_accumulation_steps")
            new_params, averages = _keras_moving_average(updated, averages, count // steps if steps else count,
                                                         *self._ema)
            new_sub = (averages, new_sub)
        # A leaf the update passes through (inject_hyperparams' constant hyperparameters) comes back as None:
        # the Variable keeps its value, and the program has one output (a new array each call) less.
        new_state = [None if (n is o and drop_unchanged) else jax.lax.convert_element_type(n, o.dtype)
                     for n, o in zip(jax.tree_util.tree_leaves(new_sub), state_leaves)]
        return new_params, new_state, count + jnp.ones((), count.dtype)

    def __repr__(self) -> str:
        return f"<tj.optimizers.{type(self).__name__} '{self.name}' iterations={int(self._iterations.numpy())}>"

    def __reduce__(self):
        """Pickled and deep-copied (as Keras's optimizers are) as its config, the Variables it was built
        for and its variables' values: the copy makes its own transformation and compiled update (those
        of this optimizer are bound to it; ``from_optax``'s transformation is shared)."""
        config = self.get_config() if self._rebuild is not None else {"transformation": self._tx, "name": self.name}
        later = None
        if self._lr is None and self._with_learning_rate is not None:  # a schedule set after construction
            config["learning_rate"], later = 0.0, self._learning_rate
        return (_copied_optimizer, (type(self), config, later, self._built, self._decay_excluded, self._decay_mask,
                                    [v.numpy() for v in self.variables]))


def _copied_optimizer(cls: type, config: dict, schedule: Any, built: Optional[list], decay_excluded: Any,
                      decay_mask: Any, values: list) -> Optimizer:
    """The optimizer ``Optimizer.__reduce__`` describes."""
    opt = cls.from_config(config)
    if schedule is not None:
        opt.learning_rate = schedule
    opt._decay_excluded = decay_excluded
    if built is not None:
        opt.build(built)
        opt._decay_mask = decay_mask
    for v, value in zip(opt.variables, values):
        v.assign(value)
    return opt


def _bare_name(variable: Variable) -> str:
    """A Variable's name without TF's output index (``"dense/bias:0"`` -> ``"dense/bias"``)."""
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


def _with_step_count(state, count):
    """``state`` (an optax state tree) with every step count in it (a ``count`` field of optax's state
    NamedTuples, at any depth) set to ``count``, in that field's dtype. (optax.tree_utils.tree_set stops at the
    outermost match: inject_hyperparams' inner state would keep its own count.)"""
    if isinstance(state, tuple) and hasattr(state, "_fields"):
        fields = {f: _with_step_count(getattr(state, f), count) for f in state._fields}
        if hasattr(fields.get("count"), "dtype"):
            fields["count"] = jnp.asarray(count, fields["count"].dtype)
        return type(state)(**fields)
    if isinstance(state, (list, tuple)):
        return type(state)(_with_step_count(s, count) for s in state)
    if isinstance(state, dict):
        return {k: _with_step_count(v, count) for k, v in state.items()}
    return state


def _weakly(method: Optional[Callable], owner: Any) -> Optional[Callable]:
    """``method``, when it is bound to ``owner``, as a function reaching ``owner`` through a weak reference."""
    if getattr(method, "__self__", None) is not owner:
        return method
    ref = weakref.WeakMethod(method)

    def call(*args, **kwargs):
        return ref()(*args, **kwargs)
    call.__name__ = call.__qualname__ = method.__name__  # (not functools.wraps: __wrapped__ is the bound method)
    return call


def _schedule_per_call(with_learning_rate: Callable[..., optax.GradientTransformation],
                       steps: int) -> Callable[..., optax.GradientTransformation]:
    """``with_learning_rate`` whose schedule is given optax's count of steps made as Keras's count of
    calls: each step is the ``steps``-th call of its group (count ``c`` -> ``c * steps + steps - 1``)."""
    def rebuilt(lr, decay_mask=None):
        if callable(lr):
            schedule = lr
            lr = lambda count: schedule(count * steps + (steps - 1))  # noqa: E731
        return with_learning_rate(lr, decay_mask)
    return rebuilt


_names_taken: dict = {}
_names_lock = threading.Lock()


def _auto_name(class_name: str) -> str:
    """Keras's default optimizer name: the class name in snake case ("SGD" -> "sgd", "AdamW" -> "adam_w",
    "RMSprop" -> "rm_sprop"), then "_1", "_2"... for the later ones of the process."""
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)).lower()
    with _names_lock:
        count = _names_taken.get(snake, 0)
        _names_taken[snake] = count + 1
    return snake if count == 0 else f"{snake}_{count}"


def _rate_value(learning_rate: Any, owner: str) -> jax.Array:
    """A float learning rate as the float32 scalar its Variable holds; anything else raises naming the fix.
    (An int is taken as its float; a string or a bool is refused, as Keras refuses them.)"""
    try:
        value = None if isinstance(learning_rate, (str, bytes, bool)) else jnp.asarray(learning_rate, jnp.float32)
    except (TypeError, ValueError):
        value = None
    if value is None or value.shape != ():
        raise ValueError(f"{owner}: learning_rate must be a float or an optax schedule (a callable of the step "
                         f"count); got {learning_rate!r} ({type(learning_rate).__name__}).")
    return value


def _takes_no_arguments(fn: Any) -> bool:
    """Whether ``fn`` is a callable that can be called with no argument (Keras's callable learning rate),
    rather than a schedule of the step count (optax's, Keras's LearningRateSchedule)."""
    if not callable(fn):
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # (no signature: a builtin) taken as a schedule
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


_PENDING = object()  # (apply_gradients: the update was deferred, the Variables' new values are pending)


def _only_held_by_variables(*value_lists: list) -> bool:
    """True when each array in the lists is referenced only by its Variable and its list (CPython's
    reference count: the Variable's, the list's and getrefcount's own argument). A Tensor, a pending op
    or a user's name still holding an old value then keeps it from being donated: donating would delete
    it under them. Holders outside Python (a NumPy view on CPU, DLPack) make XLA decline the donation."""
    return all(sys.getrefcount(values[i]) <= 3 for values in value_lists for i in range(len(values)))


def _check_variables(variables: list, where: str) -> list:
    for v in variables:
        if not isinstance(v, Variable):
            raise TypeError(f"{where}: expected tj.Variables, got {type(v).__name__}; an optimizer updates "
                            "Variables in place (wrap the value in tj.Variable).")
    return variables


def _distinct(variables: list) -> list:
    """``variables`` without repeats (a Variable given twice), in the order of their first appearance."""
    return list({id(v): v for v in variables}.values())


def _ema_options(use_ema: Any, ema_momentum: Any,
                 ema_overwrite_frequency: Any) -> Optional[Tuple[float, Optional[int]]]:
    """``(ema_momentum, ema_overwrite_frequency or None)`` for ``use_ema``, checked as Keras checks them (only
    with ``use_ema``); None without it."""
    if not use_ema:
        return None
    if ema_momentum > 1 or ema_momentum < 0:
        raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
    if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1):
        raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                         f"ema_overwrite_frequency={ema_overwrite_frequency}")  # (Keras's words)
    # (0 counts as None: Keras overwrites only `if self.ema_overwrite_frequency`)
    return float(ema_momentum), int(ema_overwrite_frequency) if ema_overwrite_frequency else None


def _keras_moving_average(params: list, averages: list, iterations: Any, momentum: float,
                          overwrite_frequency: Optional[int]) -> Tuple[list, list]:
    """Keras's EMA step after an update at step ``iterations`` (0 first): ``average = momentum * average +
    (1 - momentum) * variable`` with momentum 0 at step 0 (the average starts as the variable), which is
    optax's Polyak averaging with step size ``1 - momentum``; then, with ``overwrite_frequency`` f, the
    variables become their averages at the steps where ``iterations + 1`` is a multiple of f."""
    first = iterations == 0
    averages = [optax.incremental_update(p, a, 1 - jnp.where(first, 0, momentum).astype(p.dtype))
                for p, a in zip(params, averages)]
    if overwrite_frequency is not None:
        params = optax.periodic_update(averages, params, iterations + 1, overwrite_frequency)
    return params, averages


def _check_arguments(kwargs: dict) -> None:
    """Keras's handling of the keyword arguments an optimizer does not take: ``decay`` (its legacy
    learning-rate decay) is ignored with a warning; any other raises."""
    if kwargs.pop("decay", None) is not None:
        warnings.warn("Argument `decay` is no longer supported and will be ignored.", stacklevel=3)
    if kwargs:
        raise UnrecognizedArgumentError(f"Argument(s) not recognized: {kwargs}")  # (Keras's words)


def _check_momentum(momentum: float, name: str) -> None:
    if not 0.0 <= momentum <= 1.0:
        raise ValueError(f"{name}: `momentum` must be a float between [0, 1], got {momentum}.")


# -- Keras's optimizers --------------------------------------------------------------------------------
# Each takes Keras's hyperparameters (names and defaults of Keras 3) and the options every Keras optimizer
# has: weight_decay, clipnorm, clipvalue, global_clipnorm (see keras_transformation).

def keras_transformation(tx: optax.GradientTransformation, learning_rate: LearningRate,
                         weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                         clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                         decay_mask: Optional[Sequence[bool]] = None, loss_scale_factor: Optional[float] = None,
                         gradient_accumulation_steps: Optional[int] = None) -> optax.GradientTransformation:
    """``tx`` with Keras's optimizer options, applied as Keras applies them in each step:

    1. the gradients are clipped: each by its own L2 norm (``clipnorm``, as ``clip_by_norm``), each
       element to ``[-clipvalue, clipvalue]``, or all together by their global norm (``global_clipnorm``,
       as ``clip_by_global_norm``); at most one of the three, and only by a positive bound
       (0 or less: no clipping, as Keras);
    2. ``tx`` computes the update from the clipped gradients;
    3. decoupled weight decay: each variable also moves by ``-learning_rate * weight_decay * variable``
       (its value before the step), outside ``tx``'s momentum and scaling; only the params whose
       ``decay_mask`` entry is True, when one is given (Keras's ``exclude_from_weight_decay``).
    Only the variables given a gradient in a step are clipped together and decayed (Keras). Before all
    that, the gradients are divided by ``loss_scale_factor`` (Keras's static loss scaling: the loss was
    multiplied by it, ``Optimizer.scale_loss``); with ``gradient_accumulation_steps`` k, the whole is
    ``optax.MultiSteps``: k - 1 calls accumulate the gradients, the k-th makes one step with their sum
    divided by k, a call without a variable's gradient counting as zero for it (Keras: the variables move
    once every k calls, clipped and decayed then; the k-th call resets every variable's sum, so a variable
    without a gradient in that call drops what it had summed: ``Optimizer._update``)."""
    if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
        raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. Received: "
                         f"gradient_accumulation_steps={gradient_accumulation_steps}")  # (Keras's words)
    given = {"clipnorm": clipnorm, "clipvalue": clipvalue, "global_clipnorm": global_clipnorm}
    if sum(v is not None for v in given.values()) > 1:
        raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                         + ", ".join(f"{k}={v}" for k, v in given.items()))
    # Keras's update steps take each gradient in its variable's dtype, after the clipping: a float16 gradient of
    # a float32 Variable is updated in float32 (Adam's second moment of a small float16 gradient underflowed
    # to 0, and the step was gradient / epsilon)
    tx = optax.chain(_in_the_params_dtypes(), tx)
    if weight_decay is not None:
        tx = _plus_decoupled_weight_decay(tx, learning_rate, weight_decay, decay_mask)
    # Keras clips only by a positive bound (`if self.clipnorm and self.clipnorm > 0`): 0 or less is no clipping
    clipnorm, clipvalue, global_clipnorm = (c if c is not None and c > 0 else None
                                            for c in (clipnorm, clipvalue, global_clipnorm))
    if clipnorm is not None:
        clip = optax.stateless_with_tree_map(lambda g, _: clip_by_norm(g, clipnorm).value)
    elif clipvalue is not None:
        clip = optax.clip(clipvalue)
    elif global_clipnorm is not None:
        clip = optax.stateless(lambda grads, _: jax.tree_util.tree_unflatten(
            jax.tree_util.tree_structure(grads),
            [t.value for t in clip_by_global_norm(jax.tree_util.tree_leaves(grads), global_clipnorm)[0]]))
    else:
        clip = None
    if clip is not None:
        tx = optax.chain(clip, tx)
    if loss_scale_factor is not None:
        tx = optax.chain(optax.scale(1.0 / loss_scale_factor), tx)
    if gradient_accumulation_steps:
        # Keras sums a variable's gradients and divides the sum by k: a call without a gradient for it counts
        # as a zero gradient (optax's running mean would average over the calls that had one)
        tx = optax.MultiSteps(optax.chain(optax.scale(1.0 / gradient_accumulation_steps), tx),
                              gradient_accumulation_steps, use_grad_mean=False).gradient_transformation()
    return tx


def _in_the_params_dtypes() -> optax.GradientTransformation:
    """The updates cast to their params' dtypes (stateless; without params, as given)."""
    def cast(updates, params):
        if params is None:  # (optax's update(updates, state) without params: nothing to cast to)
            return updates
        return jax.tree_util.tree_map(
            lambda u, p: u if u is None or u.dtype == p.dtype else jax.lax.convert_element_type(u, p.dtype),
            updates, params)
    return optax.stateless(cast)


def _reset_skipped_accumulators(state: optax.MultiStepsState, idx: tuple) -> optax.MultiStepsState:
    """Keras's gradient accumulation: the call that makes the step resets every Variable's accumulated
    gradient, also those of the Variables without a gradient in that call (their earlier calls' gradients
    are dropped, not carried into the next k calls)."""
    stepped = state.mini_step == 0  # (MultiSteps' count of calls since the last step)
    present = set(idx)
    acc = [a if i in present else jnp.where(stepped, jnp.zeros_like(a), a) for i, a in enumerate(state.acc_grads)]
    return state._replace(acc_grads=acc)


def _add_decayed_weights(weight_decay: float, decay_mask: Optional[Sequence[bool]]) -> optax.GradientTransformation:
    """``optax.add_decayed_weights(weight_decay)`` for the params (a list) whose ``decay_mask`` entry is
    True (all without a mask), with the state of the unmasked one (optax's ``mask=`` wraps the state,
    which would change the optimizer's state structure with the mask)."""
    plain = optax.add_decayed_weights(weight_decay)
    if decay_mask is None:
        return plain

    def update(updates, state, params):
        return [u + weight_decay * p if keep else u for u, p, keep in zip(updates, params, decay_mask)], state
    return optax.GradientTransformation(plain.init, update)


def _plus_decoupled_weight_decay(tx: optax.GradientTransformation, learning_rate: LearningRate,
                                 weight_decay: float,
                                 decay_mask: Optional[Sequence[bool]] = None) -> optax.GradientTransformation:
    """``tx``'s update plus ``-learning_rate * weight_decay * params`` (Keras's ``weight_decay``)."""
    decay = optax.chain(_add_decayed_weights(weight_decay, decay_mask), optax.scale_by_learning_rate(learning_rate))

    def init(params):
        return tx.init(params), decay.init(params)

    def update(grads, state, params):
        updates, tx_state = tx.update(grads, state[0], params)
        shrink, decay_state = decay.update(jax.tree_util.tree_map(jnp.zeros_like, params), state[1], params)
        return jax.tree_util.tree_map(jnp.add, updates, shrink), (tx_state, decay_state)
    return optax.GradientTransformation(init, update)


class SGD(Optimizer):
    """Keras's SGD: ``optax.sgd``; with momentum, Keras's velocity ``v = momentum * v - lr * g`` (the
    update ``v``, or ``momentum * v - lr * g`` with ``nesterov``), which is optax's ``trace`` of the
    gradients already scaled by the learning rate. (``optax.sgd`` traces the raw gradients and scales
    the trace: the same steps only while the rate is constant; Keras's velocity keeps each step's rate,
    which matters with a schedule or a rate set during training.) Integer Variables are updated as Keras
    updates them, in their dtype (``_integer_transformation``); complex ones as float ones."""

    _takes_complex = True
    _takes_integers = True

    def __init__(self, learning_rate: LearningRate = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 use_ema: bool = False, ema_momentum: float = 0.99, ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None, **kwargs) -> None:
        _check_arguments(kwargs)
        _check_momentum(momentum, "SGD")
        self._hyperparameters = dict(momentum=momentum, nesterov=nesterov, weight_decay=weight_decay,
                                     clipnorm=clipnorm, clipvalue=clipvalue, global_clipnorm=global_clipnorm,
                                     use_ema=use_ema, ema_momentum=ema_momentum,
                                     ema_overwrite_frequency=ema_overwrite_frequency,
                                     loss_scale_factor=loss_scale_factor,
                                     gradient_accumulation_steps=gradient_accumulation_steps)
        super().__init__(None, learning_rate, name, self._sgd)

    def _sgd(self, lr, decay_mask=None, integer: bool = False) -> optax.GradientTransformation:
        h = self._hyperparameters
        momentum, weight_decay = h["momentum"], h["weight_decay"]
        if integer:  # Keras casts the rate, momentum and weight decay to the variable's dtype (see below)
            lr, momentum = jnp.trunc(lr), float(int(momentum))
            weight_decay = None if weight_decay is None else float(int(weight_decay))
        # (the state as the float rule's: a momentum cast to 0 keeps its trace)
        tx = optax.sgd(lr) if not h["momentum"] else \
            optax.chain(optax.scale_by_learning_rate(lr), optax.trace(decay=momentum, nesterov=h["nesterov"]))
        if integer:
            # Keras casts the gradient to the variable's dtype (after clipping and loss scaling), truncating it
            inner = tx
            tx = optax.GradientTransformation(inner.init, lambda g, state, params: inner.update(
                jax.tree_util.tree_map(lambda gi, p: gi.astype(p.dtype), g, params), state, params))
        return self._with_keras_options(tx, lr, weight_decay, decay_mask)

    def _check_integer_options(self, v: Variable, dtype) -> None:
        given = [o for o in ("use_ema", "gradient_accumulation_steps", "global_clipnorm", "clipnorm")
                 if self._hyperparameter(o)] + (["a schedule as learning_rate"] if callable(self._tx_rate) else [])
        if given:
            raise TypeError(f"SGD: variable {v.name!r} has dtype {dtype}; SGD updates integer variables as Keras "
                            f"(in their dtype), but not with {', '.join(given)}. Use a float Variable.")

    def _integer_transformation(self, lr: Any, decay_mask: Optional[Sequence[bool]]) -> optax.GradientTransformation:
        """Keras's SGD on an integer Variable: the learning rate, momentum, weight decay and gradient cast to
        its dtype (truncated: ``SGD(1.5)`` steps by ``1 * int(g)``, ``SGD(0.5)`` not at all), then the float
        rule; with integral values throughout, its float arithmetic is the integer one. The state keeps the
        Variable's dtype (as Keras's momentum)."""
        return self._sgd(lr, decay_mask, integer=True)


def _check_epsilon(epsilon: Any, owner: str) -> float:
    """Keras's epsilon must be a number: ``epsilon=None`` fails at Keras's first step (ValueError, converting
    None to a tensor; Keras 3 does not fall back to ``keras.config.epsilon()``); raised here at once."""
    if epsilon is None or isinstance(epsilon, (str, bytes)):
        raise ValueError(f"{owner}: epsilon={epsilon!r}: give a float, such as Keras's default 1e-7 "
                         "(keras.config.epsilon()). Keras 3 raises ValueError at the first step (\"Attempt to "
                         "convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.\").")
    return epsilon


def keras_epsilon(epsilon: float, beta_2: float) -> Callable[[Any], Any]:
    """Keras's Adam epsilon as an optax ``eps`` schedule. Keras adds epsilon to ``sqrt(v)`` before bias
    correction ("epsilon hat" in the Adam paper), optax to ``sqrt(v_hat)`` after it; the two agree when
    optax's eps at step t (count t - 1) is ``epsilon / sqrt(1 - beta_2**t)``."""
    return lambda count: epsilon / jnp.sqrt(1.0 - beta_2 ** (count + 1))


def keras_scale_by_adam(b1: float, b2: float, epsilon: float) -> optax.GradientTransformation:
    """``optax.scale_by_adam`` with epsilon placed as Keras places it: each update builds optax's
    transformation with ``keras_epsilon``'s value at the state's count. optax computes the step. Unlike
    ``optax.inject_hyperparams``, the state is ``scale_by_adam``'s alone (one count, ``mu``, ``nu``), not
    six more scalars that every compiled step would read and write, and b1 and b2 stay Python numbers:
    as float32 arrays (inject_hyperparams') they put the weights ~140 float32 ulps from TF's Keras Adam
    after six steps, against 2-4 (tests/test_optimizers.py)."""
    eps_at = keras_epsilon(epsilon, b2)
    init = optax.scale_by_adam(b1, b2, epsilon).init

    def update(updates, state, params=None):
        updates, state_after = optax.scale_by_adam(b1, b2, eps_at(state.count)).update(updates, state, params)
        # Keras's step size has the factor sqrt(1 - b2**t): where b2**t is 1 in float32 (beta_2=1, or within half
        # an ulp of 1) it is 0, and Keras's variable does not move; optax's second moment is then 0/0, NaN.
        still = 1.0 - b2 ** (state.count + 1) == 0
        return jax.tree_util.tree_map(lambda u: jnp.where(still, jnp.zeros_like(u), u), updates), state_after
    return optax.GradientTransformation(init, update)


def keras_scale_by_rss(initial_accumulator_value: float, eps: float) -> optax.GradientTransformation:
    """``optax.scale_by_rss`` (Keras's Adagrad: ``g / sqrt(accumulator + eps)``), also where the accumulator is
    not positive: optax makes the update 0 there, Keras still divides, so a zero accumulator, epsilon and
    gradient give NaN (0/0) as Keras's, a zero or negative accumulator with epsilon > 0 its finite value."""
    rss = optax.scale_by_rss(initial_accumulator_value, eps)

    def update(updates, state, params=None):
        scaled, state = rss.update(updates, state, params)
        return jax.tree_util.tree_map(lambda u, g, acc: jnp.where(acc > 0, u, g / jnp.sqrt(acc + eps)),
                                      scaled, updates, state.sum_of_squares), state
    return optax.GradientTransformation(rss.init, update)


def keras_amsgrad(learning_rate: LearningRate, b1: float, b2: float, eps: float,
                  weight_decay: Optional[float] = None,
                  decay_mask: Optional[Sequence[bool]] = None) -> optax.GradientTransformation:
    """Keras's Adam with ``amsgrad=True``: ``lr * sqrt(1 - b2**t) / (1 - b1**t) * m / (sqrt(v_max) + eps)``
    with ``v_max`` the running maximum of the uncorrected second moment. That is optax's
    ``scale_by_amsgrad`` with ``bias_correction_nu=False`` (which leaves out ``sqrt(1 - b2**t)``) times
    ``sqrt(1 - b2**t)``; ``weight_decay`` decays as ``optax.adamw`` does (as Keras's AdamW)."""
    parts = [optax.scale_by_amsgrad(b1, b2, eps, bias_correction_nu=False),
             optax.scale_by_schedule(lambda count: jnp.sqrt(1.0 - b2 ** (count + 1)))]
    if weight_decay is not None:
        parts.append(_add_decayed_weights(weight_decay, decay_mask))
    return optax.chain(*parts, optax.scale_by_learning_rate(learning_rate))


def _keras_adam(learning_rate: LearningRate, beta_1: float, beta_2: float, epsilon: float, amsgrad: bool,
                weight_decay: Optional[float],
                decay_mask: Optional[Sequence[bool]] = None) -> optax.GradientTransformation:
    """Adam as Keras computes it (epsilon placed as Keras places it: ``keras_scale_by_adam``), with
    decoupled weight decay when ``weight_decay`` is given (``-lr * weight_decay * w``, as Keras). The parts
    of ``optax.adam``/``optax.adamw``; the learning rate stays where the transformation is built from it (a
    settable rate rebuilds it, Optimizer's ``with_learning_rate``)."""
    if amsgrad:
        return keras_amsgrad(learning_rate, beta_1, beta_2, epsilon, weight_decay, decay_mask)
    parts = [keras_scale_by_adam(beta_1, beta_2, epsilon)]
    if weight_decay is not None:
        parts.append(_add_decayed_weights(weight_decay, decay_mask))
    return optax.chain(*parts, optax.scale_by_learning_rate(learning_rate))


class Adam(Optimizer):
    """Keras's Adam: ``optax.adam``, with epsilon placed as Keras places it (``keras_scale_by_adam``), so
    the steps are Keras's value for value; ``amsgrad=True`` is ``keras_amsgrad``."""

    def __init__(self, learning_rate: LearningRate = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: Optional[int] = None, loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None, **kwargs) -> None:
        _check_arguments(kwargs)
        self._hyperparameters = dict(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, amsgrad=amsgrad,
                                     weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                                     global_clipnorm=global_clipnorm,
                                     use_ema=use_ema, ema_momentum=ema_momentum,
                                     ema_overwrite_frequency=ema_overwrite_frequency,
                                     loss_scale_factor=loss_scale_factor,
                                     gradient_accumulation_steps=gradient_accumulation_steps)
        super().__init__(None, learning_rate, name, self._adam)

    def _adam(self, lr, decay_mask=None) -> optax.GradientTransformation:
        h = self._hyperparameters
        tx = _keras_adam(lr, h["beta_1"], h["beta_2"], _check_epsilon(h["epsilon"], type(self).__name__),
                         h["amsgrad"], h["weight_decay"], decay_mask)
        return self._with_keras_options(tx, lr, None, None)


class AdamW(Adam):
    """Keras's AdamW (a kind of Adam, as in Keras): Adam with decoupled weight decay always on
    (``w -= lr * weight_decay * w``, as ``optax.adamw``); epsilon placed as Keras places it, as in ``Adam``."""

    def __init__(self, learning_rate: LearningRate = 0.001, weight_decay: float = 0.004, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: Optional[int] = None, loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None, **kwargs) -> None:
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None (AdamW "
                             "always decays; use Adam for no weight decay).")  # (Keras's words)
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay, clipnorm, clipvalue,
                         global_clipnorm, use_ema, ema_momentum, ema_overwrite_frequency, loss_scale_factor,
                         gradient_accumulation_steps, name, **kwargs)


class RMSprop(Optimizer):
    """Keras's RMSprop: ``optax.rmsprop`` with epsilon inside the square root and a zero initial
    accumulator, as Keras (``g / sqrt(v + epsilon)``, centered: ``sqrt(v - mean_g**2 + epsilon)``)."""

    def __init__(self, learning_rate: LearningRate = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: Optional[int] = None, loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None, **kwargs) -> None:
        _check_arguments(kwargs)  # (momentum unchecked, as Keras's RMSprop: used where it is > 0)
        self._hyperparameters = dict(rho=rho, momentum=momentum, epsilon=epsilon, centered=centered,
                                     weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                                     global_clipnorm=global_clipnorm,
                                     use_ema=use_ema, ema_momentum=ema_momentum,
                                     ema_overwrite_frequency=ema_overwrite_frequency,
                                     loss_scale_factor=loss_scale_factor,
                                     gradient_accumulation_steps=gradient_accumulation_steps)
        super().__init__(None, learning_rate, name, self._rmsprop)

    def _rmsprop(self, lr, decay_mask=None) -> optax.GradientTransformation:
        h = self._hyperparameters
        tx = optax.rmsprop(lr, decay=h["rho"], eps=_check_epsilon(h["epsilon"], "RMSprop"), initial_scale=0.0,
                           eps_in_sqrt=True, centered=h["centered"],
                           momentum=h["momentum"] if h["momentum"] > 0 else None)
        return self._with_keras_options(tx, lr, h["weight_decay"], decay_mask)


class Adagrad(Optimizer):
    """Keras's Adagrad: ``optax.adagrad`` (``g / sqrt(accumulator + epsilon)``, as Keras), also where the
    accumulator is not positive (``keras_scale_by_rss``)."""

    def __init__(self, learning_rate: LearningRate = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, weight_decay: Optional[float] = None, clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, global_clipnorm: Optional[float] = None,
                 use_ema: bool = False, ema_momentum: float = 0.99, ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None, name: Optional[str] = None, **kwargs) -> None:
        _check_arguments(kwargs)
        self._hyperparameters = dict(initial_accumulator_value=initial_accumulator_value, epsilon=epsilon,
                                     weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                                     global_clipnorm=global_clipnorm,
                                     use_ema=use_ema, ema_momentum=ema_momentum,
                                     ema_overwrite_frequency=ema_overwrite_frequency,
                                     loss_scale_factor=loss_scale_factor,
                                     gradient_accumulation_steps=gradient_accumulation_steps)
        super().__init__(None, learning_rate, name, self._adagrad)

    def _adagrad(self, lr, decay_mask=None) -> optax.GradientTransformation:
        h = self._hyperparameters
        # (optax.adagrad's parts, with Keras's division where the accumulator is not positive)
        tx = optax.chain(keras_scale_by_rss(h["initial_accumulator_value"], _check_epsilon(h["epsilon"], "Adagrad")),
                         optax.scale_by_learning_rate(lr))
        return self._with_keras_options(tx, lr, h["weight_decay"], decay_mask)


def from_optax(transformation: optax.GradientTransformation, name: str = "optimizer") -> Optimizer:
    """An optimizer applying any optax ``GradientTransformation`` (chains, schedules, clipping...)."""
    return Optimizer(transformation, None, name)


# -- clipping (tj ops, so a clip is recorded and differentiable like any op) -------------------------
def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None) -> Tensor:
    """``t * clip_norm / max(norm(t), clip_norm)`` with the L2 norm over ``axes`` (all by default), as
    ``tf.clip_by_norm``: a negative ``clip_norm`` counts as zero, and ``clip_norm`` may broadcast against
    the norm but not enlarge ``t``; the gradient at ``t == 0`` is finite. A ``clip_norm`` Tensor of another
    dtype is cast to ``t``'s (TF's ``cast``). ``name``: TF's op name, ignored."""
    try:
        t = _check_floating(convert_to_tensor(t), "clip_by_norm")
    except ConversionError as e:
        raise ConversionError(f"clip_by_norm: t: {e}") from None
    try:
        if isinstance(clip_norm, (Tensor, Variable)):  # TF casts it to t's dtype (an int32 2 clips to 2.0)
            clip_norm = convert_to_tensor(clip_norm)
            clip_norm = clip_norm.astype(_aval(t).dtype) if _aval(clip_norm).dtype != _aval(t).dtype else clip_norm
        else:  # (a number converted straight to t's dtype, not through float32)
            clip_norm = convert_to_tensor(clip_norm, dtype=_aval(t).dtype)
    except (TypeError, ValueError) as e:  # (None, text, a complex for a float t: named as clip_by_global_norm does)
        raise type(e)(f"clip_by_norm: clip_norm: {e}") from None
    clip_norm = tnp.maximum(clip_norm, 0)
    shape = tuple(_aval(t).shape)
    try:  # (jax's own error on shapes that do not broadcast names neither the op nor clip_norm)
        fits = jnp.broadcast_shapes(shape, _aval(clip_norm).shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"clip_by_norm: clip_norm of shape {tuple(_aval(clip_norm).shape)} does not broadcast to t "
                         f"of shape {shape} (it may not enlarge t either); give a scalar clip_norm.")
    try:
        sq = tnp.sum(t * t, axis=axes, keepdims=True)
    except (TypeError, ValueError) as e:  # (the sum's error, about its axes: say whose they are)
        raise type(e)(f"clip_by_norm: axes={axes!r} for t of shape {shape}: {e}") from None
    nonzero = sq > 0
    # sqrt's derivative is infinite at 0: take it only where the sum is positive (TF does the same)
    # (1.0, not ones_like(sq): an op on a gradient of a pending step then stays pending, see _aval)
    norm = tnp.where(nonzero, tnp.sqrt(tnp.where(nonzero, sq, 1.0)), sq)
    return (t * clip_norm) / tnp.maximum(norm, clip_norm)


def global_norm(t_list: Sequence, name: Optional[str] = None) -> Tensor:  # (name: TF's, ignored)
    """``sqrt(sum of squares of every element of every tensor)``; None entries are ignored (TF). Tensors of
    different dtypes raise TypeError, as TF."""
    t_list = _check_sequence(t_list, "global_norm")
    ts = [_check_floating(convert_to_tensor(x), "global_norm") for x in t_list if x is not None]
    dtypes = list(dict.fromkeys(jnp.dtype(_aval(t).dtype) for t in ts))
    if len(dtypes) > 1:  # (TF stacks the per-tensor sums: InvalidArgumentError; no dtype is chosen silently)
        raise TypeError(f"global_norm: the tensors of t_list have different dtypes ({', '.join(map(str, dtypes))}); "
                        "TF refuses them too (its stack of their sums). Cast them to one dtype first, e.g. "
                        "[t.astype(tj.float32) for t in t_list], or clip each dtype's tensors on their own.")
    sums = [tnp.sum(t * t) for t in ts]
    if not sums:
        return convert_to_tensor(0.0)
    return tnp.sqrt(tnp.sum(tnp.stack(sums)))


def clip_by_global_norm(t_list: Sequence, clip_norm: Any, use_norm: Any = None,
                        name: Optional[str] = None) -> Tuple[List[Optional[Tensor]], Tensor]:
    """``(clipped, global_norm)``: each tensor times ``clip_norm / max(global_norm, clip_norm)``, as
    ``tf.clip_by_global_norm``. None entries stay None; an infinite or NaN norm gives NaN tensors (TF). A
    ``clip_norm`` Tensor must have the norm's dtype (TypeError, as TF); a number is converted to it. Without
    ``use_norm``, tensors of different dtypes raise TypeError (TF's global_norm refuses them). ``name``: TF's op
    name, ignored."""
    t_list = _check_sequence(t_list, "clip_by_global_norm")
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    st = tape_set.current()
    # Gradients of a pending step clipped outside any tape (the usual place: between tape.gradient and the
    # optimizer): min(1/norm, 1/clip_norm) as 1/max(norm, clip_norm), the same values for clip_norm >= 0, with
    # no op on the constant alone (its result, a new array at each step, would keep the step from being
    # dispatched ahead: deferred/ahead.py). Under a tape, TF's form (its gradient differs at a zero or NaN norm).
    plain = (type(clip_norm) in (int, float) and clip_norm >= 0 and not st.tapes and not st.accumulators
             and pending.pending_aval(norm) is not None)
    if plain:
        clip_norm = _kept_constant(clip_norm, _aval(norm).dtype)
        scale = clip_norm * (1.0 / tnp.maximum(norm, clip_norm))
    else:
        dtype = _aval(norm).dtype
        if isinstance(clip_norm, (Tensor, Variable)) and _aval(convert_to_tensor(clip_norm)).dtype != dtype:
            # TF multiplies the two without a cast: a Tensor of another dtype raises (TF's TypeError, its words)
            raise TypeError(f"clip_by_global_norm: `x` and `y` must have the same dtype, got {jnp.dtype(dtype)} != "
                            f"{jnp.dtype(_aval(convert_to_tensor(clip_norm)).dtype)} (clip_norm, against the global "
                            "norm of t_list). Cast clip_norm first, e.g. clip_norm.astype(...), or give a Python "
                            "number.")
        try:
            clip_norm = convert_to_tensor(clip_norm, dtype=dtype)
        except (TypeError, ValueError) as e:  # (None, text, a complex for float tensors: named as the op's)
            raise type(e)(f"clip_by_global_norm: clip_norm: {e}") from None
        scale = clip_norm * tnp.minimum(1.0 / norm, 1.0 / clip_norm)
    scale = scale + (norm - norm)  # NaN when the norm is not finite, instead of silently zeroing
    clipped = [None if x is None else convert_to_tensor(x) * scale.astype(_aval(convert_to_tensor(x)).dtype)
               for x in t_list]
    return clipped, norm


# Clipping norms as arrays, one per (number, dtype, x64 mode, default device): the same norm at every step is
# then the same array, which a step dispatched ahead matches by identity (deferred/ahead.py). Only ever an
# op's input (never a Variable's value, which an update may donate).
_CONSTANTS_MAX = 256
_constants: dict = {}


def _kept_constant(value: Union[int, float], dtype) -> Tensor:
    """``convert_to_tensor(value, dtype)`` of a Python number, its array kept (NaN and zeros converted each time:
    a dict never finds NaN, and -0.0 == 0.0 would share an entry)."""
    key = (type(value), value, jnp.dtype(dtype), jax.config.jax_enable_x64, jax.config.jax_default_device)
    arr = _constants.get(key)
    if arr is None:
        arr = convert_to_tensor(value, dtype=dtype).value
        if value != value or value == 0:
            return Tensor(arr)
        if len(_constants) >= _CONSTANTS_MAX:
            _constants.clear()
        _constants[key] = arr
    return Tensor(arr)


def _aval(t: Tensor):
    """``t``'s shape and dtype; for a gradient of a pending step, or a value of ops on its gradients, without
    running the step (clipping then stays in the step's compiled program, with the update after it)."""
    aval = pending.pending_aval(t)
    return aval if aval is not None else t


def _check_floating(t: Tensor, where: str) -> Tensor:
    """Norms are of real floating tensors: TF refuses integer (and complex) ones, which have no L2 norm of
    their dtype; an int gradient clipped here would otherwise silently round to zeros."""
    dtype = _aval(t).dtype
    if not jnp.issubdtype(dtype, jnp.floating):
        raise TypeError(f"{where}: expected a floating-point tensor, got dtype {dtype} (TF raises too: its norm "
                        "ops are defined for float16, bfloat16, float32 and float64 only); cast it first, e.g. "
                        "t.astype(tj.float32).")
    return t


def _check_sequence(t_list: Any, where: str) -> list:
    if isinstance(t_list, (Tensor, Variable, str)) or not isinstance(t_list, Sequence):
        raise TypeError(f"{where}: `t_list` should be a sequence of tensors (a list or tuple), received "
                        f"{type(t_list).__name__}; for one tensor use tj.clip_by_norm.")
    return list(t_list)
