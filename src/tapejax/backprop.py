"""GradientTape: the user-facing reverse-mode API (watch, gradient, jacobian, batch_jacobian)."""
from __future__ import annotations

import contextlib
import logging
import warnings
from typing import Any, Iterator, List, Optional

import jax
import jax.numpy as jnp

from . import jacobian as jacobians, tape_set, vspace
from .tensor import ArrayImpl, LazyTensor
from .nest import UnconnectedGradients, flatten, rebuild, unconnected_gradients_of
from .sweep import GradientStats
from .tape import Tape, new_tape
from .tensor import Tensor, Variable, as_array, is_float, convert_to_tensor, pending_source, values_shape
from .ops.core import record_identity
from .ops import numpy as tnp


_log = logging.getLogger("tapejax")
persistent_in_context_warned = False  # (logged once per process, as TF; False logs it again)


class _NotEnteredError(AttributeError):
    """GradientTape.watch on a tape with no recording state (TF fails there with an AttributeError)."""


def zeros_like_source(s, access: bool = True) -> Tensor:
    """An unconnected source's zeros (UnconnectedGradients.ZERO, of ``tape.gradient`` and ``acc.jvp``): TF's
    zeros_like(source), which reads a Variable (an access: recording tapes watch it) and is an op on the tapes
    that know the source. ``access=False``: plain zeros, no op (an int source that is also the target)."""
    if access and isinstance(s, (Tensor, Variable)) and tape_set.active():
        return tnp.zeros_like(s)
    if isinstance(s, (Tensor, Variable)):
        return Tensor(vspace.zeros_like(s._value))
    return Tensor(vspace.zeros_like(as_array(s)))


def _as_tensor_result(g) -> Optional[Tensor]:
    if g is None or isinstance(g, Tensor):
        return g
    return Tensor(g)


class _SourceError(TypeError, ValueError):
    """A gradient source that is not a Tensor or Variable (None, a Python number): TF's TypeError, and a
    ValueError as tapejax raised before."""


class GradientTape:
    """Records operations on watched tensors so that gradients can be computed (as ``tf.GradientTape``).

    Args:
      persistent: allow several ``gradient``/``jacobian`` calls; otherwise the tape frees its
        resources at the first one and a second raises ``RuntimeError``.
      watch_accessed_variables: watch every trainable Variable read while the tape is active.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._tape: Optional[Tape] = None
        self._recording = False
        self._stopped: Optional[Tape] = None  # the tape paused by the stop_recording() block in progress
        self._watched_after_use: tuple = ()
        self.last_gradient_stats: Optional[GradientStats] = None
        # How the last gradient ran: "op by op ...", or "replayed as one compiled program ..." (deferred/replay.py).
        self.last_replay: str = ""

    # -- context --------------------------------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        self._push_tape()
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape. Exit its `with` block first (or use a second GradientTape).")
        self._resume_stopped()
        if self._tape is None:
            self._tape = new_tape(self._persistent, self._watch_accessed_variables)
        tape_set.push_tape(self._tape)
        self._recording = True

    def _resume_stopped(self) -> None:
        """Take the tape a ``stop_recording()`` block left paused on the stack off it (it is pushed again)."""
        inner, self._stopped = self._stopped, None
        if inner is not None and inner.paused:
            tape_set.pop_tape(inner)
            inner.paused = False

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        tape_set.pop_tape(self._tape)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Context: ops run inside are not recorded on this tape (other tapes still record).

        As TF, the tape is not recording inside: ``watch``, ``reset`` and a nested ``stop_recording`` see a
        tape out of its context, ``with tape:`` may enter it again, and at the end it records again (a
        non-persistent tape used up inside as a fresh tape)."""
        if self._tape is None:  # never entered, or used up: TF's RuntimeError (ValueError once exited)
            raise RuntimeError("Trying to stop recording a tape which is not recording: "
                               "GradientTape.stop_recording() needs the tape to be recording (inside its context).")
        if not self._recording:
            raise ValueError("Tape is not recording: GradientTape.stop_recording() needs the tape to be recording "
                             "(inside its context, not already inside its stop_recording() block).")
        # TF takes the tape off the stack; it stays there paused instead, so that tj.debug can tell
        # why a value made inside has no gradient.
        self._stopped = inner = self._tape
        inner.paused = True
        self._recording = False
        try:
            yield
        finally:
            self._push_tape()  # (as TF: on top of the stack; a ValueError if re-entered inside and not exited)

    def reset(self) -> None:
        """Forget everything recorded and watched, and go on recording (as TF, only inside the context)."""
        if not self._recording:
            raise ValueError("Tape is not recording: GradientTape.reset() must be called inside the tape's context "
                             "(while it records, not inside its stop_recording() block).")
        self._pop_tape()
        self._tape = None
        self._push_tape()

    def _repr_html_(self) -> str:
        """Jupyter: the tape summary (ops, bytes kept for the backward pass, what is watched)."""
        return tape_set.debug_hooks.tape_html(self)  # installed by tj.debug

    # -- watching -------------------------------------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Watch a Tensor, a Variable, or a nested structure of them.

        As TF, only while a tape records: with no tape recording on this thread (outside every tape's context,
        inside ``tj.stop_recording()`` or this tape's ``stop_recording()``; an accumulator does not count) it
        does nothing; on a tape never entered (or a non-persistent one used up) it raises AttributeError."""
        record = tape_set.any_tape_recording()
        leaves, _ = flatten(tensor)
        for t in leaves:
            if isinstance(t, Variable):
                if not is_float(t.dtype):
                    warnings.warn(f"GradientTape.watch: variable '{t.name}' has dtype {t.dtype}; only floating "
                                  "dtypes are differentiable, its gradient will be None.", UserWarning, stacklevel=2)
            elif isinstance(t, Tensor):
                if not is_float(t.dtype):
                    warnings.warn(f"GradientTape.watch: tensor of dtype {t.dtype} is not differentiable (only "
                                  "floating dtypes are); its gradient will be None.", UserWarning, stacklevel=2)
            elif t is None:
                raise ValueError("GradientTape.watch: cannot watch None.")
            else:
                raise ValueError(f"GradientTape.watch: passed an object of type {type(t).__name__}, not a "
                                 "tj.Tensor or tj.Variable. Convert it with tj.constant(...) and watch the result.")
            if self._tape is None:
                raise _NotEnteredError("GradientTape.watch: the tape has nothing to watch with: it was never "
                                       "entered (or, not persistent, was used up by gradient() or jacobian()). Watch "
                                       "inside its `with` block: `with tj.GradientTape() as t: t.watch(x)`.")
            if not record:
                continue
            if isinstance(t, Variable):
                self._tape.watch_variable(t)
            else:
                self._tape.watch(t._id)

    def watched_variables(self) -> tuple:
        """The Variables this tape watches, in order of creation (as TF)."""
        if self._tape is None:
            return self._watched_after_use
        return self._tape.variables_by_creation()

    # -- gradients ------------------------------------------------------------------------------------
    def _check_usable(self, what: str) -> None:
        if self._tape is None:
            raise RuntimeError(f"A non-persistent GradientTape can only be used to compute one set of gradients "
                               f"(or jacobians); {what} was called again. Use GradientTape(persistent=True) to "
                               "call it several times.")

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """Gradient of ``target`` (summed over a nested structure) w.r.t. ``sources`` (same structure back)."""
        self._check_usable("gradient()")
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                _warn_persistent_in_context()
        if target is None:  # TF's wording
            raise TypeError("GradientTape.gradient: Argument `target` should be a list or nested structure of "
                            "Tensors or Variables to be differentiated, but received None.")
        unconnected = unconnected_gradients_of(unconnected_gradients)
        flat_targets, target_tree = flatten(target)
        flat_sources, source_tree = flatten(sources)
        out_grads = self._output_gradients(flat_targets, output_gradients, target_tree)
        tape = self._tape

        target_ids: List[int] = []
        int_targets = set()
        keep_out_grads: List[Any] = []
        for t, og in zip(flat_targets, out_grads):
            if t is None:
                continue
            if isinstance(t, Variable):
                tid, dtype = t._handle_id, t.dtype
            else:
                t = t if isinstance(t, Tensor) else convert_to_tensor(t)
                tid, dtype = t._id, t.dtype
            if not is_float(dtype):
                int_targets.add(tid)
                continue  # as TF: a non-float target contributes no gradient
            target_ids.append(tid)
            keep_out_grads.append(og)
        target_set = set(target_ids)

        source_ids: List[int] = []
        that_are_targets = {}
        for s in flat_sources:
            if isinstance(s, Variable):
                sid, arr = s._handle_id, s._value
            elif isinstance(s, LazyTensor) and s._pending_node() is not None:
                sid, arr = s._id, s._aval  # not computed yet (deferred/lazy.py): made on the default device
            elif isinstance(s, Tensor):
                sid, arr = s._id, s._value
            elif s is None:
                raise _SourceError("GradientTape.gradient: a source is None.")
            else:
                raise _SourceError(f"GradientTape.gradient: source of type {type(s).__name__} is not a tj.Tensor "
                                   "or tj.Variable; only recorded tensors can be differentiated against.")
            if not is_float(arr.dtype):
                sid = -1 - len(source_ids)  # an id no tape knows: its gradient is None, as in TF
            source_ids.append(sid)
            if sid in target_set:
                that_are_targets[sid] = (tuple(arr.shape), arr.dtype, None if arr is getattr(s, "_aval", None)
                                         else _sharding(arr))

        recording = tape_set.any_recording()
        if recording:
            keep_out_grads = [None if g is None else (g if isinstance(g, Tensor) else Tensor(g)) for g in keep_out_grads]
        else:
            keep_out_grads = [None if g is None else (g._value if isinstance(g, Tensor) else g) for g in keep_out_grads]
        stats = GradientStats()
        tape.last_replay = ""
        try:
            grads = tape.compute_gradient(target_ids, source_ids, that_are_targets, keep_out_grads, recording, stats)
        finally:
            self.last_gradient_stats = stats
            self.last_replay = tape.last_replay or "op by op"
            if not self._persistent:
                self._watched_after_use = tape.variables_by_creation()
                self._tape = None
        result = []
        for s, g in zip(flat_sources, grads):
            g = _as_tensor_result(g)
            if g is None and unconnected is UnconnectedGradients.ZERO:
                # (an int source that is a target: TF gives ones without reading it, here zeros, API.md)
                g = zeros_like_source(s, access=getattr(s, "_handle_id", None) not in int_targets)
            elif g is not None:
                g = _placed_like(s, g)
            result.append(g)
        return rebuild(sources, source_tree, result)

    def _output_gradients(self, flat_targets: list, output_gradients: Any, target_tree=None) -> list:
        if output_gradients is None:
            return [None] * len(flat_targets)
        if len(flat_targets) == 1 and isinstance(output_gradients, (list, tuple)) and len(output_gradients) == 1 \
                and not isinstance(output_gradients[0], (Tensor, Variable)) \
                and values_shape(output_gradients) not in (None, tuple(flat_targets[0].shape)):
            # ``[g]`` for a single target: the documented list of one gradient per target, g itself a Python
            # list (``[[1., 2.]]`` for a target of shape (2,)), not one value of shape (1, 2)
            output_gradients = output_gradients[0]
        flat_og, _ = flatten(output_gradients)
        if len(flat_og) != len(flat_targets) and target_tree is not None and \
                not all(g is None or isinstance(g, (Tensor, Variable)) for g in flat_og):
            # Python lists are values too (e.g. {"y": [1., 2.]} for a dict target): match the target's
            # structure, keeping whatever sits at a target leaf whole.
            try:
                up_to = target_tree.flatten_up_to(output_gradients)
                flat_og = [g if (g is None or isinstance(g, (Tensor, Variable)))
                           else convert_to_tensor(g, dtype=_target_dtype(t)) for g, t in zip(up_to, flat_targets)]
            except (ValueError, TypeError):
                pass  # not values of the target's structure: the count error below
        if len(flat_og) != len(flat_targets):
            raise ValueError(f"GradientTape.gradient: got {len(flat_og)} output_gradients for {len(flat_targets)} "
                             "targets; pass one per flattened target (None for ones).")
        result = []
        for t, og in zip(flat_targets, flat_og):
            if og is None:
                result.append(None)
                continue
            t_shape = tuple(t.shape)
            if isinstance(og, Variable):
                og = og.read_value()
            t_dtype = _target_dtype(t)
            given = getattr(og, "dtype", None)  # (a Tensor's, or a NumPy/jax array's)
            # (an int or bool target has no gradient whatever is given: None, as before)
            differentiable = t_dtype is not None and jnp.issubdtype(t_dtype, jnp.inexact)
            if differentiable and given is not None and (isinstance(og, Tensor) and given != t_dtype or (
                    jnp.issubdtype(given, jnp.complexfloating) and not jnp.issubdtype(t_dtype, jnp.complexfloating))):
                # TF raises (InvalidArgumentError) rather than cast: a complex gradient for a real target lost its
                # imaginary part here, and a Tensor of another dtype was silently converted. (Python numbers,
                # lists and real NumPy arrays are values, converted to the target's dtype, as API.md says; a
                # Python complex for a real target raises in convert_to_tensor.)
                raise ValueError(f"GradientTape.gradient: output_gradients of dtype {given} does not match its "
                                 f"target of dtype {t_dtype}; pass a gradient of the target's dtype "
                                 f"(.astype({t_dtype})).")
            og_t = og if isinstance(og, Tensor) else convert_to_tensor(og, dtype=t_dtype)
            if tuple(og_t.shape) != t_shape:
                if og_t.size == 1 and og_t.ndim == 0:
                    og_t = tnp.broadcast_to(og_t, t_shape)
                else:
                    raise ValueError(f"GradientTape.gradient: output_gradients of shape {tuple(og_t.shape)} does not "
                                     f"match its target of shape {t_shape}; pass a gradient of the target's shape "
                                     "(or a scalar).")
            result.append(og_t)
        return result

    # -- Jacobians ------------------------------------------------------------------------------------
    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: Optional[int] = None, experimental_use_pfor: bool = True) -> Any:
        """Full Jacobian ``target.shape + source.shape`` for each source (one vectorized backward pass)."""
        persistent = self._persistent
        target, unconnected = self._start_jacobian("jacobian", experimental_use_pfor, target, unconnected_gradients)
        return jacobians.jacobian(self._jacobian_gradient(target), self._kept, target, sources, unconnected,
                                  experimental_use_pfor, parallel_iterations, persistent)

    def batch_jacobian(self, target: Any, source: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: Optional[int] = None, experimental_use_pfor: bool = True) -> Any:
        """Per-example Jacobian ``(batch,) + target.shape[1:] + source.shape[1:]``."""
        persistent = self._persistent

        def check_source():
            if source is None or isinstance(source, (list, tuple, dict)):  # TF fails on source.shape (AttributeError)
                raise TypeError(f"GradientTape.batch_jacobian: source must be one Tensor or Variable, got "
                                f"{type(source).__name__}; call batch_jacobian() once per source.")
            jacobians.check_batch_shapes(target, source)
        target, unconnected = self._start_jacobian("batch_jacobian", experimental_use_pfor, target,
                                                   unconnected_gradients, check_source)
        return jacobians.batch_jacobian(self._jacobian_gradient(target), self._kept, target, source, unconnected,
                                        experimental_use_pfor, parallel_iterations, persistent)

    def _start_jacobian(self, what: str, use_pfor: bool, target: Any, unconnected_gradients: Any, check=None):
        """``(target, unconnected)`` after the checks, in TF's order and before the tape changes state (a call
        that raises in them leaves it recording as it was; an unknown ``unconnected_gradients`` raises after a
        non-persistent tape stops recording, as in TF); a Variable target read on the tape (see
        ``_jacobian_gradient``)."""
        self._check_usable(f"{what}()")
        if target is None:  # TF fails on target.shape (AttributeError)
            raise TypeError(f"GradientTape.{what}: target is None; pass the Tensor to differentiate.")
        if isinstance(target, (list, tuple, dict)):  # TF fails on target.shape (AttributeError)
            raise TypeError(f"GradientTape.{what}: target must be one Tensor, got a {type(target).__name__}; "
                            f"stack the targets (tj.numpy.stack) or call {what}() once per target.")
        if check is not None:
            check()
        if isinstance(target, Variable):  # read while this tape records, as TF's reshape of the target
            if self._recording:
                target = target.read_value()
            else:
                with self:
                    target = target.read_value()
        if self._recording and self._persistent:  # (TF: from the gradient call of its first row)
            _warn_persistent_in_context()
        # (as TF, only eagerly: inside a tj.function trace the rows are computed in one trace, as in a tf.function)
        if not use_pfor and not self._persistent and tape_set.current().capture is None:
            raise RuntimeError(f"GradientTape must be created with persistent=True to compute the {what} with "
                               "experimental_use_pfor=False.")
        if self._recording and not self._persistent:
            # (TF pops it in its first row's gradient call, which reads unconnected_gradients only after that)
            self._pop_tape()
        return target, unconnected_gradients_of(unconnected_gradients)

    def _jacobian_gradient(self, target: Any):
        """``gradient`` for a Jacobian of ``target``. TF's jacobian reads the target through a reshape recorded
        on the tape, so a target the tape neither watches nor made (an unwatched source differentiated with
        respect to itself) gives None (batch_jacobian: zeros), where ``gradient(x, x)`` gives ones; so does any
        target under tj.stop_recording(), where that reshape is not recorded."""
        if not tape_set.current().stopped and (
                not isinstance(target, Tensor) or self._tape is None or self._tape.knows(target._id)):
            return self.gradient

        def unconnected(t, sources, output_gradients=None):
            grads = self.gradient(t, sources, output_gradients=output_gradients)  # (uses a non-persistent tape up)
            return [None] * len(grads)
        return unconnected

    @contextlib.contextmanager
    def _kept(self) -> Iterator[None]:
        """Context: ``gradient`` may be called several times inside (a Jacobian row by row); a
        non-persistent tape is used up when it exits."""
        was = self._persistent
        self._persistent = True
        self._tape.persistent = True
        try:
            yield
        finally:
            self._persistent = was
            if self._tape is not None:
                self._tape.persistent = was
                if not was:
                    self._watched_after_use = self._tape.variables_by_creation()
                    self._tape = None


def _warn_persistent_in_context() -> None:
    """TF's advice, once per process (its log_first_n), when a persistent tape computes inside its context."""
    global persistent_in_context_warned
    if not persistent_in_context_warned:
        persistent_in_context_warned = True
        _log.warning("Calling GradientTape.gradient on a persistent tape inside its context records the "
                     "gradient computation on the tape too (more host time and memory, as in TF); call it after "
                     "the `with` block unless you want higher-order derivatives of it.")


def _target_dtype(t):
    try:
        return t.dtype
    except AttributeError:
        return None


def _placed_like(source, g: Tensor) -> Tensor:
    """``g`` with the sharding of its source. XLA's sharding propagation may give a gradient another
    placement (sum's backward broadcasts a replicated scalar, so the gradient of a batch-sharded source
    would come back replicated); gradients come back placed as their sources, as in TF."""
    if (isinstance(source, LazyTensor) and source._pending_node() is not None) or pending_source(g) is not None:
        # A deferred op's output lives on the default device, as the gradient does; a gradient of a
        # pending replayed step too (its program reads only uncommitted default-device arrays).
        return g
    value = source._value
    if type(value) is ArrayImpl and not value.committed:
        # A source placed by default (not committed to a device) asks for no placement: its gradient stays where
        # the computation put it, as JAX leaves it (committing it to the default device would keep it from
        # meeting sharded values, e.g. in the optimizer update of a model whose other Variables are sharded).
        return g
    want = _sharding(value)
    have = _sharding(g._value)
    if want is None or have is None or have == want or have.is_equivalent_to(want, g._value.ndim):
        return g
    moved = Tensor(jax.device_put(g._value, want))
    if tape_set.any_recording():  # an outer tape differentiates this gradient: keep it connected
        record_identity("Reshard", g, moved)
    return moved


def _sharding(arr):
    if isinstance(arr, jax.core.Tracer):
        return None
    return getattr(arr, "sharding", None)
