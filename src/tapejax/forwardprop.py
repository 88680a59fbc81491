"""ForwardAccumulator: forward-mode autodiff (a port of tape.h's ForwardAccumulator).

Every op executed while the accumulator is active and has a watched input runs its jit-compiled JVP
kernel at once; the resulting tangents are kept per tensor id. The JVP computation of an accumulator
is run with that accumulator and the tapes and accumulators entered after it paused (order of entering,
not of creation; re-entering bumps it), so it never sees its own work and an inner tape never holds on
to an outer accumulator's tangents, while the tapes and accumulators entered before it record it: that
nesting gives forward-over-forward, forward-over-reverse and reverse-over-forward derivatives, as TF.
The tangent of a watched primal is dropped when the primal dies.
"""
from __future__ import annotations

import contextlib
from collections.abc import Mapping
import warnings
import weakref
from typing import Any, Dict, Iterator, Optional

import numpy as np

from . import tape_set, vspace
from .nest import UnconnectedGradients, flatten, rebuild, plain_containers, unconnected_gradients_of as _unconnected
from .tensor import Tensor, Variable, as_array, is_float, convert_to_tensor
from .backprop import GradientTape, zeros_like_source
from .ops.core import apply
from .ops import numpy as tnp


class Accumulator:
    """The recording state of one ForwardAccumulator: tangents by tensor id."""

    nesting_id = 0  # set by tape_set.push_accumulator

    def __init__(self, use_batch: bool = False) -> None:
        self.tangents: Dict[int, Tensor] = {}
        # Tangents of watched non-float primals: acc.jvp returns them, no op propagates them (as TF).
        self.inert: Dict[int, Tensor] = {}
        self.paused = False
        self.use_batch = use_batch
        self._weak = weakref.ref(self)

    @property
    def recording(self) -> bool:
        return not self.paused

    def takes(self, ids) -> bool:
        """Whether this accumulator takes an op whose inputs have ``ids``: it records (not paused) and one
        of them has a tangent. record.recorders asks it."""
        if self.paused:
            return False
        tg = self.tangents
        for i in ids:
            if i in tg:
                return True
        return False

    def watch(self, tensor_id: int, tangent: Tensor) -> None:
        old = self.tangents.get(tensor_id)
        if old is not None:
            tangent = tnp.add(old, tangent)
        self.tangents[tensor_id] = tangent

    def _tensor_died(self, tensor_id: int) -> None:
        self.tangents.pop(tensor_id, None)
        self.inert.pop(tensor_id, None)

    def _store(self, tensor: Tensor, tangent: Optional[Tensor]) -> None:
        if tangent is None or tensor._id in self.tangents:
            return  # the first tangent recorded for a tensor is the connected one (tape.h)
        self.tangents[tensor._id] = tangent
        tensor._track(self._weak)

    def record_identity(self, src_id: int, dst: Tensor) -> None:
        t = self.tangents.get(src_id)
        if t is not None:
            self._store(dst, t)

    @contextlib.contextmanager
    def computing(self) -> Iterator[None]:
        """Pause this accumulator and the tapes and accumulators entered after it while it computes
        tangents: only those entered before it see the JVP computation (tape.h's nesting rule, which
        keeps a forward-over-backward inner tape from holding on to every tangent)."""
        st = tape_set.current()
        accs = st.accumulators
        inner = accs[accs.index(self):] if self in accs else [self]
        nid = self.nesting_id
        inner += [t for t in st.tapes if t.nesting_id > nid]
        with tape_set.paused(inner):
            yield

    def _zeros(self, like) -> Tensor:
        arr = like._value if isinstance(like, Tensor) else as_array(like)
        return Tensor(vspace.zeros_like(arr))

    def accumulate(self, op, static, args, raw, diff, outs, out) -> None:
        """Compute and store the tangents of ``outs`` for one recorded op."""
        tans = [self.tangents.get(args[i]._id) for i in diff]
        if all(t is None for t in tans) or not any(is_float(o._value.dtype) for o in outs):
            return  # (int and bool outputs, a cast to int say, have no tangent: nothing to compute)
        st = tape_set.current()
        if len(st.accumulators) == 1 and st.accumulators[0] is self and not st.tapes:
            res = self._jvp_kernel(op, static, raw, diff, tans, out)  # (nothing else to see the computation)
        else:
            with self.computing():
                if tape_set.any_recording():
                    # Outer tapes/accumulators watch the JVP computation: dispatch it as an op of its own.
                    batch = self._batch_size()
                    filled = [t if t is not None else self._zeros_batched(args[i], batch)
                              for t, i in zip(tans, diff)]
                    jvp_args = list(args) + filled
                    res = apply(op.jvp_op(static, diff, self.use_batch, jvp_args), jvp_args, {})
                else:
                    res = self._jvp_kernel(op, static, raw, diff, tans, out)
        res = res if isinstance(res, tuple) else (res,)
        if tape_set.numerics_checks and st.debug_checking:  # tj.debug.check_numerics
            tape_set.debug_hooks.check_jvp(op, outs, res, tans)
        # No tangent for an output no input with one reaches: along the recorded ops of a tj.function call
        # (TF's None), or through its JVP (TF's None where the gradient function ignores its output gradient).
        # An inner accumulator's JVP of an op is a call (OpDef.jvp_op): each output has a tangent, zeros if need
        # be (forward over forward through relu, abs or x + 1, as TF).
        conn = op.connections
        paths = op.tangent_paths(static, diff, raw)
        if (conn is None and paths is None) or op.call_connected:
            given = primal = None
        else:
            given = frozenset(i for i, t in zip(diff, tans) if t is not None)
            primal = None if op.jvp_of_call is None else self._primal_has_tangent(op.jvp_of_call, raw, given)
        for k, (o, t) in enumerate(zip(outs, res)):
            if t is not None and is_float(o._value.dtype) and (given is None or (primal is not None and primal[k]) or (
                    (conn is None or conn[k] & given) and (paths is None or paths[k] & given))):
                self._store(o, t)

    @staticmethod
    def _primal_has_tangent(call: tuple, raw, given: frozenset) -> list:
        """For a tj.function call's JVP op (arguments: the call's, then the tangents of its ``diff``), whether
        the primal of each output has a tangent, by the rule above for the call itself. Such an output's
        tangent is connected too: eagerly, the JVP of the last op on its path would be a call of its own."""
        op, static, diff = call
        n = len(raw) - len(diff)
        on = frozenset(i for i in given if i < n)
        if not on:
            return [False] * len(op.connections)
        paths = op.tangent_paths(static, diff, raw[:n])
        return [bool(c & on) and (paths is None or bool(paths[k] & on)) for k, c in enumerate(op.connections)]

    def _jvp_kernel(self, op, static, raw, diff, tans, out):
        """The output tangents (a Tensor, or a tuple with None for an output without one) from the op's JVP
        kernel, called directly: nothing records it."""
        raw_t = tuple(t._value if t is not None else None for t in tans)
        if self.use_batch:
            res = op.batched_jvp_kernel(static, diff)(tuple(raw), raw_t, out)
        else:
            res = op.kernels(static).jvp(diff, tuple(raw), raw_t, out)
        if isinstance(res, (tuple, list)):
            return tuple(None if r is None else Tensor(r) for r in res)
        return Tensor(res)

    def accumulate_from_backward(self, outs, input_ids, backward) -> None:
        """Tangents for an op known only by its backward function (custom gradients): the JVP is the
        transpose of the backward function, found by differentiating it w.r.t. its cotangents
        (tape.h's ForwardpropFromTape)."""
        in_tans = [self.tangents.get(i) for i in input_ids]
        if all(t is None for t in in_tans):
            return
        float_outs = [o for o in outs if is_float(o._value.dtype)]
        with self.computing():
            aids = [Tensor(vspace.ones_like(o._value)) for o in float_outs]
            with GradientTape(persistent=True) as tape:
                tape.watch(aids)
                it = iter(aids)
                cts = [next(it) if is_float(o._value.dtype) else None for o in outs]
                grads = backward(cts, list(range(len(input_ids))), True)
            targets, og = [], []
            for g, t in zip(grads, in_tans):
                if g is not None and t is not None:
                    g = g if isinstance(g, Tensor) else convert_to_tensor(g)
                    targets.append(g)
                    og.append(_paired_with(t, tuple(g.shape), self.use_batch))
            if not targets:
                return
            if self.use_batch:
                # the backward function is linear in its cotangents: transpose it once per tangent of the
                # batch (tape.gradient takes one output gradient per target, not a batch of them)
                per = [tape.gradient(targets, aids, output_gradients=[t[b] for t in og])
                       for b in range(self._batch_size())]
                out_tans = [None if ts[0] is None else tnp.stack(ts) for ts in zip(*per)]
            else:
                out_tans = tape.gradient(targets, aids, output_gradients=og)
            self._connect_call(list(input_ids) + [o._id for o in outs] + [t._id for t in in_tans if t is not None],
                               [t for t in out_tans if t is not None])
        for o, t in zip(float_outs, out_tans):
            self._store(o, t)

    @staticmethod
    def _connect_call(arg_ids: list, results: list) -> None:
        """TF computes a custom gradient's JVP as one function call of the op's inputs, outputs and tangents:
        an outer accumulator holding a tangent for any of those gives each result a tangent, zeros where the
        ops computing it read none (forward over forward through a custom gradient of x * 3 or relu)."""
        for a in tape_set.recording_accumulators():  # (self and those entered after it are paused)
            if any(i in a.tangents for i in arg_ids):
                for r in results:
                    if r._id not in a.tangents:
                        a._store(r, a._zeros_batched(r, a._batch_size()))

    def _batch_size(self) -> Optional[int]:
        if not self.use_batch:
            return None
        for t in self.tangents.values():
            return t.shape[0]
        return None

    def _zeros_batched(self, like, batch: Optional[int]) -> Tensor:
        arr = like._value if isinstance(like, Tensor) else as_array(like)
        if batch is None:
            return Tensor(vspace.zeros_like(arr))
        return Tensor(vspace.zeros_from_spec((batch,) + tuple(arr.shape), arr.dtype))


def _paired_with(tangent: Tensor, shape: tuple, batched: bool) -> Tensor:
    """The input's tangent as the output gradient of a custom gradient's returned gradient of ``shape``: the
    tangent itself, or, where the gradient has another shape that broadcasts with the input's (TF takes such
    a gradient as it is), the transpose of pairing the two broadcast against each other: the tangent
    broadcast to both shapes, summed back to the gradient's."""
    t_shape = tuple(tangent.shape)[1:] if batched else tuple(tangent.shape)
    if t_shape == shape:
        return tangent
    try:
        both = tuple(np.broadcast_shapes(shape, t_shape))
    except ValueError:
        raise ValueError(f"ForwardAccumulator: a custom gradient's function returned a gradient of shape {shape} "
                         f"for an input of shape {t_shape}; the tangent is the transpose of that function, which "
                         "needs a gradient of the input's shape (or of a shape that broadcasts with it).") from None
    batch = tuple(tangent.shape)[:1] if batched else ()
    lifted = tnp.broadcast_to(tnp.reshape(tangent, batch + (1,) * (len(both) - len(t_shape)) + t_shape), batch + both)
    lead = len(both) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and both[lead + i] != 1)
    summed = tnp.sum(lifted, axis=tuple(a + len(batch) for a in axes)) if axes else lifted
    return tnp.reshape(summed, batch + shape)


def _structure_mismatch(p: Any, t: Any) -> Optional[type]:
    """The exception class TF's ``nest.assert_same_structure`` raises for the first difference of these two
    structures (None where they agree): TypeError where two containers are of different types, ValueError
    otherwise (other keys or lengths, or a tensor or number where the other has a container)."""
    containers = (list, tuple, Mapping)
    if not isinstance(p, containers) and not isinstance(t, containers):
        return None
    if not (isinstance(p, containers) and isinstance(t, containers)):
        return ValueError
    if isinstance(p, Mapping) and isinstance(t, Mapping):
        if set(p) != set(t):
            return ValueError
        pairs = [(p[k], t[k]) for k in p]
    elif isinstance(p, Mapping) or isinstance(t, Mapping) or type(p) is not type(t):
        return TypeError
    elif len(p) != len(t):
        return ValueError
    else:
        pairs = list(zip(p, t))
    for a, b in pairs:
        kind = _structure_mismatch(a, b)
        if kind is not None:
            return kind
    return None


class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff (as ``tf.autodiff.ForwardAccumulator``).

    Args:
      primals: a Tensor or Variable, or a nested structure of them, to watch.
      tangents: matching structure of tangents (same shapes and dtypes as the primals).
    """

    def __init__(self, primals: Any, tangents: Any, use_batch: bool = False) -> None:
        self._acc = Accumulator(use_batch)
        self._recording = False
        self._watch(primals, tangents)

    @classmethod
    def _batch_accumulator(cls, primals: Any, tangents: Any) -> "ForwardAccumulator":
        """Tangents carry a leading batch axis; JVP kernels are vmapped over it (tape.h's use_batch)."""
        return cls(primals, tangents, use_batch=True)

    def __enter__(self) -> "ForwardAccumulator":
        if self._recording:
            raise ValueError("Accumulator is already recording: a ForwardAccumulator cannot be entered while "
                             "it is active. Exit its `with` block first (or use a second ForwardAccumulator).")
        tape_set.push_accumulator(self._acc)
        self._recording = True
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            tape_set.pop_accumulator(self._acc)
            self._recording = False

    def _repr_html_(self) -> str:
        """Jupyter: the tensors carrying a tangent, with the tangents' shapes and bytes."""
        return tape_set.debug_hooks.accumulator_html(self)  # installed by tj.debug

    def _watch(self, primals: Any, tangents: Any) -> None:
        flat_p, tree_p = flatten(primals)
        pids, seen = [], set()  # (checked first, as TF: a primal given twice before the tangents' structure)
        for p in flat_p:
            if isinstance(p, Variable):
                pid = p._handle_id
            elif isinstance(p, Tensor):
                pid = p._id
            else:
                raise ValueError(f"ForwardAccumulator: primal of type {type(p).__name__} is not a tj.Tensor or "
                                 "tj.Variable; convert it with tj.constant(...) first and use that tensor.")
            if pid in seen:
                raise ValueError(f"ForwardAccumulator: Tensor {p!r} was specified as a primal multiple times. This "
                                 "may indicate an error. If it was intended, please sum the corresponding tangents.")
            pids.append(pid)
            seen.add(pid)
        if tree_p.num_nodes == 1 and tree_p.num_leaves == 1:
            flat_t = [tangents]  # one primal: its tangent may be a Python list / array of its shape
        else:
            # the primals' structure, down to each primal's tangent (which may be a Python list or array)
            try:
                flat_t = tree_p.flatten_up_to(plain_containers(tangents))  # (an OrderedDict's keys sorted too)
            except (ValueError, TypeError) as e:
                n = len(flatten(tangents)[0])
                if n != len(flat_p):
                    raise ValueError(f"ForwardAccumulator: got {len(flat_p)} primals but {n} tangents; pass a "
                                     "tangent for each primal, in a matching structure.") from None
                # as TF's nest.assert_same_structure: another container type is a TypeError; other keys, or a
                # tensor or number where the primals have a container, a ValueError
                kind = _structure_mismatch(primals, tangents) or ValueError
                raise kind(f"ForwardAccumulator: the tangents do not have the primals' nested structure ({e}); pass "
                           "them in the same structure (the same container types, dict keys and lengths).") from None
        for p, pid, t in zip(flat_p, pids, flat_t):
            shape, dtype = p.shape, p.dtype
            tt = t.read_value() if isinstance(t, Variable) else (t if isinstance(t, Tensor) else
                                                                  convert_to_tensor(t, dtype=dtype))
            want = ((tt.shape[0],) + tuple(shape)) if self._acc.use_batch and tt.ndim else tuple(shape)
            if tuple(tt.shape) != want:
                raise ValueError(f"ForwardAccumulator: tangent of shape {tuple(tt.shape)} does not match its primal "
                                 f"of shape {tuple(shape)}" + (" (plus a leading batch axis)" if self._acc.use_batch
                                                              else "") + "; pass a tangent of the primal's shape.")
            if tt.dtype != dtype:
                raise ValueError(f"ForwardAccumulator: tangent of dtype {tt.dtype} does not match its primal of "
                                 f"dtype {dtype}; cast the tangent with .astype({dtype}).")
            if not is_float(dtype):
                warnings.warn(f"ForwardAccumulator: primal of dtype {dtype} is not differentiable; no op "
                              "propagates its tangent.", UserWarning, stacklevel=3)
                self._acc.inert[pid] = tt
            else:
                self._acc.watch(pid, tt)
            if isinstance(p, Tensor):
                p._track(self._acc._weak)  # its tangent goes when the primal dies (tape.h DeleteGradient)

    def jvp(self, primals: Any, unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """The tangent of each primal (Tensor or Variable) in ``primals``, in the same structure."""
        unconnected = _unconnected(unconnected_gradients)
        flat, tree = flatten(primals)
        out = []
        for p in flat:
            if isinstance(p, (Tensor, Variable)):
                pid = p._handle_id if isinstance(p, Variable) else p._id
                t = self._acc.tangents.get(pid)
                if t is None:
                    t = self._acc.inert.get(pid)
            elif p is None:
                out.append(None)
                continue
            else:
                raise ValueError(f"ForwardAccumulator.jvp: expected tj.Tensor or tj.Variable, got {type(p).__name__}")
            if t is None and unconnected is UnconnectedGradients.ZERO:
                t = zeros_like_source(p)  # (of the primal's shape, also for a batch accumulator, as TF)
            out.append(t)
        return rebuild(primals, tree, out)
