"""A replayed step that has not run yet: its gradients are pending tensors, and an update given only
those gradients (an optimizer's, or one written by hand) runs in the same compiled program.

``tape.gradient`` on a recurring step (replay's step-record source) does not run the step's program at once:
it answers with pending tensors of a ``PendingStep`` (tensor.pending_tensor: plain Tensors to JAX's
pytrees, so optax and tree_map take them as any gradient). Reading any of them, or a forward value the program
exports (the loss), runs the program, as running it at ``gradient`` time would have. An optimizer given
only gradients of one pending step (train/optimizers.py) runs the program and its update as one
compiled program instead (``run_with_update``): forward, backward and update in one dispatch, with the
values of running the program and then the update (bit for bit under ``tj.config.replay_exact``,
where the update is fenced like every kernel of the program). That program writes out only the
gradients read after such an update before; a gradient it left out and read all the same is computed
by running the step's program again (``PendingStep.recompute``). After a step and its update ran so,
the next step's same call is forecast, and made as soon as its inputs are known (ahead.py: its results
are taken only where the step makes that very call, ``_fused_call``).

An update written by hand (``v.assign_sub(lr * g)``, ``v.assign(v - lr * g)``, ``v.assign_add(-lr * g)``)
is fused too (``HandUpdate``). While a step's gradients are pending, an op outside any tape and trace
whose arguments include pending values of that step (its gradients, its update's values, Variables it
assigned) and otherwise concrete values does not run: its kernel and where each argument comes from are
appended to the step's update, and it answers pending tensors (their shapes from tracing the kernel; an
op that cannot be traced so, a shape error for one, or whose kernel has effects, a callback, runs as
usual instead, reading the values). An
assignment of such a value onto a Variable is checked at once (shape, dtype) and recorded in the step,
and the Variable's value becomes pending (tensor.make_value_pending). The first read of any pending
value (the Variable, the loss, a gradient, the next step's tape reading the Variable) runs the step's
program, the update's kernels and its assignments as one compiled program (``_run_update``; compiled
per structure of the update, as ``run_with_update``'s; until it is ready, the program and then each
kernel as op by op would) and stores every assigned Variable together. Anything the update does that
is not an op on such values (a print, a branch on a value) reads a value, which runs the step with the
update recorded so far: the values are those of running each op when it was called, and if running
fails, every Variable the update assigned keeps its value from before and the error is raised from the
read. ``last_update`` says how the last step with such an update ran.
"""
from __future__ import annotations

import functools
import operator
import weakref
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple

import jax

from .. import tape_set
from ..ops import core
from ..ops.core import as_tuple
from ..tensor import (ArrayImpl, LazyTensor, Tensor, Variable, check_assignment, made_after, made_number,
                      make_value_pending, pending_source, pending_tensor, pending_value, set_assign_deferral,
                      settle_pending_value)
from ..config import config
from . import ahead, background
from .fence import fence

# How the last step with a hand-written update ran: "fused into the replayed step (...)" or "op by op (...)".
last_update = ""

# The steps whose gradients are out and that have not run: while there are some, ops outside tapes and
# assignments are offered to _defer_op / _defer_assign (installed then, removed after: no cost otherwise).
_open: "weakref.WeakSet" = weakref.WeakSet()


class PendingStep:
    """One call of a replay program, not run yet: ``args`` for it, the record nodes whose values it
    exports, the update recorded after its gradients (``update``, a HandUpdate, or None), and (once
    run) ``values``: the gradients, one per source (None for no gradient), then the update's values."""

    __slots__ = ("program", "args", "nodes", "values", "keep", "update", "gradient_refs", "record", "base",
                 "ran_before", "__weakref__")

    def __init__(self, program, args: tuple, nodes: list, keep: Any = None, record: Any = None) -> None:
        self.program = program
        # The first id of its record's naming (kept after the run, which lets the record go), else None
        self.base = record.base if record is not None else None
        self.args = args
        self.nodes = nodes
        self.values: Optional[tuple] = None
        # Per gradient, a weak reference to its pending tensor (None: no gradient): a program run with an
        # update leaves out the gradients nobody holds (and an optimizer's, those not read after an update
        # of this step's program before: ``run_with_update``).
        self.gradient_refs: List[Any] = []
        # What the step's tape held, let go only after the program is dispatched: freeing it (a Python
        # object or more per op) then overlaps the program's run instead of delaying its start.
        self.keep = keep
        self.update: Optional[HandUpdate] = None
        # The step record of a tape whose every op was deferred (lazy.StepRecord): its fused call may have
        # been dispatched ahead (``ahead``), and it tells the next step's forecast.
        self.record = record
        # (record, args) of a step that ran before its update (a value read first), until an optimizer's update
        # of its gradients forecasts the next step from them (``forecast_after``); its record without its nodes.
        self.ran_before: Optional[tuple] = None

    def compute(self) -> None:
        """Run the program, and the update recorded after it (what reading any of their values asks); once
        run, compute the gradients its run left out (``recompute``)."""
        if self.values is None:
            if self.update is not None:
                _run_update(self)
            else:
                record, args = self.record, self.args
                exported, result = self.program(*args)
                self.finish(exported, result)
                if record is not None and config.replay_ahead and not record.broken:
                    record.nodes, record.ahead, record.forecasts = [], None, ()  # (its activations, a launch)
                    _hold_ran_before(self, (record, args))
        else:
            self.recompute()

    def slot_avals(self) -> list:
        """The shape and dtype of each of its pending values, by slot: its gradients', then its update's."""
        return self.update.avals if self.update is not None else self.program.out_info[1]

    def exported_from_launch(self) -> bool:
        """Give the nodes the step exports their values from its call dispatched ahead (ahead.py), when that
        call runs this very program on these very arguments, an update after it: a forward value read before
        the optimizer's update (a loss printed now and then) costs no run, and the update then takes the same
        call. False (nothing done) when there is no such call, or when an update written by hand follows the
        step (reading runs it, fused, at once: the values it keeps are those held now)."""
        record = self.record
        launch = record.ahead if record is not None else None
        if (launch is None or self.values is not None or self.update is not None
                or not launch.runs(self.program, *self.args)):
            return False
        for node, values in zip(self.nodes, launch.result[0]):
            if node.values is None:
                node.settle(tuple(values))
        return True

    def finish(self, exported, result, update_values: Sequence = ()) -> None:
        """Store the values of a run (``result``: the gradients, None for one the run left out)."""
        for node, values in zip(self.nodes, exported):
            node.step = None
            if node.values is None:  # (a value read before stays what was read)
                node.settle(tuple(values))
        self.values = tuple(result) + tuple(update_values)
        self.nodes = self.keep = self.update = self.record = None  # let the inputs go
        if not self._left_out():
            self.args = self.gradient_refs = None
        _open.discard(self)

    def exports(self, node) -> bool:
        """Whether running the step gives ``node`` its value (before the run: one of the values it returns)."""
        nodes = self.nodes
        return nodes is not None and any(n is node for n in nodes)

    def want(self, node) -> None:
        """A deferred op of the step's record that its program does not return was read (``node``, computed op
        by op now): the structure's next program returns it (replay.py's ``_wanted``)."""
        if self.base is not None:
            self.program.want(node.seq - self.base)

    def held_gradients(self) -> List[int]:
        """The positions of the gradients whose tensors someone still holds."""
        refs = self.gradient_refs
        if refs is None:
            return []
        return [k for k, ref in enumerate(refs) if ref is not None and ref() is not None]

    def _left_out(self) -> List[int]:
        """The gradients still held that the run did not return."""
        return [k for k in self.held_gradients() if self.values[k] is None]

    def recompute(self) -> None:
        """The gradients a run with an update left out and someone reads all the same: the step's program
        runs again on the same arguments (same program, same values). Its later runs return them."""
        missing = self._left_out()
        if not missing:
            return
        program = self.program
        _, result = program(*self.args)
        values = list(self.values)
        for k in missing:
            values[k] = result[k]
        self.values = tuple(values)
        self.args = self.gradient_refs = None
        program.read_after_update = tuple(sorted({*program.read_after_update, *missing}))


def gradients(program, leaves, output_gradients: list, exported_nodes: list, keep: Any = None, record: Any = None
              ) -> List[Optional[Tensor]]:
    """The gradients ``program(leaves, output_gradients)`` computes, as tensors of a PendingStep (None
    where there is no gradient); the nodes ``exported_nodes`` get their values from it too. ``keep`` is
    held until the program has been dispatched; ``record`` is the step's record (lazy.StepRecord)."""
    step = PendingStep(program, (leaves, output_gradients), exported_nodes, keep, record)
    # The nodes refer to the step weakly: it holds them (and the tape) until it runs, so a strong
    # reference back would make a cycle that only the garbage collector frees when the gradients are
    # dropped unread. Without the step, a node's value is computed op by op (lazy.Node.compute). Each
    # node of a record does, so that a value the program does not return, read, is returned next time.
    ref = weakref.ref(step)
    for node in (record.nodes if record is not None else exported_nodes):
        node.step = ref
    _open.add(step)
    core.set_update_deferral(_defer_op)
    set_assign_deferral(_defer_assign)
    grads = [None if info is None else pending_tensor(step, i) for i, info in enumerate(program.out_info[1])]
    step.gradient_refs = [None if g is None else weakref.ref(g) for g in grads]
    return grads


def pending_step_of(tensors: Sequence[Any]) -> Optional[PendingStep]:
    """The one PendingStep, not run yet and with no hand-written update, that every tensor of
    ``tensors`` is a gradient of; else None."""
    step = update_step_of(tensors)
    return step if step is not None and step.update is None else None  # (no update: every value a gradient)


def update_step_of(tensors: Sequence[Any]) -> Optional[PendingStep]:
    """The one PendingStep, not run yet, that every tensor of ``tensors`` is a pending value of (a gradient,
    or a value of ops on its gradients: its update written by hand); else None."""
    step = None
    for t in tensors:
        source = pending_source(t)
        if source is None or type(source[0]) is not PendingStep or (step is not None and source[0] is not step):
            return None
        step = source[0]
    return step


def aval_of(step: PendingStep, t: Tensor):
    """The shape and dtype of ``t``, a pending value of ``step`` (a gradient, or of its update), without running
    it."""
    return step.slot_avals()[pending_source(t)[1]]


def pending_aval(t: Any):
    """The shape and dtype of ``t`` when it is a pending value of a step (a gradient, or of its update) that
    has not run: read without running it. Else None."""
    source = pending_source(t)
    if source is None or type(source[0]) is not PendingStep:
        return None
    return aval_of(source[0], t)


def shapes_of(step: PendingStep, tensors: Sequence[Tensor]) -> List[tuple]:
    """The shapes of ``tensors``, pending values of ``step`` (``update_step_of``), without running it."""
    avals = step.slot_avals()
    return [tuple(avals[pending_source(t)[1]].shape) for t in tensors]


def _shared_leaves(leaves: Sequence[Any], arrays: Sequence[Any]) -> Tuple[tuple, list]:
    """``(shared, own)``: per array of ``arrays``, its position among a step's ``leaves`` when it is one of
    them (an optimizer's parameters are: each array is passed to a fused program once, as a dispatch costs
    per argument), else -1; and the arrays that are not, in order."""
    at = {id(x): i for i, x in enumerate(leaves) if type(x) is ArrayImpl}
    shared = tuple([at.get(id(x), -1) for x in arrays])
    return shared, [x for x, p in zip(arrays, shared) if p < 0]


def _own_leaves(step_leaves: Sequence[Any], shared: tuple, own: Sequence[Any]) -> list:
    """The arrays ``_shared_leaves`` described: the step's leaf where it shares one, else the next of ``own``."""
    rest = iter(own)
    return [step_leaves[p] if p >= 0 else next(rest) for p in shared]


def run_with_update(step: PendingStep, grads: Sequence[Tensor], key: Hashable, update: Callable,
                    args: Sequence[Any], tree: Any, reread: Optional[Callable[[], Optional[list]]] = None):
    """Run ``step``'s program and ``update([values of grads], *args)`` as one compiled program, cached
    per program under ``key`` (which must name ``update``), and set the step's gradients and exported
    values as its own run would. ``args`` are the update's arguments flat, the leaves of a tuple of structure
    ``tree`` (an optimizer's have one structure per layout: nothing is flattened per step). Returns
    ``update``'s result, or None when that program is not ready (compiling in the background, or it failed
    to compile): the caller then runs the update itself. ``reread()``, when given, reads ``args`` again as
    they are then, flat (None: not now): the next step's call may then be made ahead, as soon as its inputs
    are known (ahead.py).

    The program returns only the gradients read after an update of this step's program before
    (``Program.read_after_update``; writing out the others costs ~6% of a small MLP's step): one not
    returned and read all the same is computed by running the step's program again (``recompute``)."""
    positions = tuple(pending_source(g)[1] for g in grads)
    program = step.program
    fused, shared, own = _fused_with_update(program, step.args, positions, key, update, args, tree)
    if fused.compiled is None:
        return None
    exported, kept, out = _fused_call(fused, step, own)
    result: List[Any] = [None] * len(program.out_info[1])
    for p, v in zip(program.read_after_update, kept):
        result[p] = v
    if reread is not None:
        _expect_next(step.record, program, step.args, fused, shared, reread)
    step.finish(exported, result)
    return out


def _fused_with_update(program, step_args: tuple, positions: tuple, key: Hashable, update: Callable,
                       flat: Sequence[Any], tree: Any):
    """``(fused, shared, own)``: the program of ``program`` and ``update`` on the gradients at ``positions``
    (run_with_update), found or compiled (now or in the background) for the arguments ``step_args`` and
    ``flat`` (the leaves of a tuple of structure ``tree``; ``shared`` and ``own``: see _shared_leaves)."""
    returned = program.read_after_update
    shared, own = _shared_leaves(step_args[0], flat)
    fused_key = (key, positions, returned, tree, shared)
    fused = program.fused.get(fused_key)
    if fused is None:
        fn = program.fn

        def run(step_args, extra, own):
            exported, result = fn(*step_args, *extra)
            grad_values = [result[p] for p in positions]
            update_args = jax.tree_util.tree_unflatten(tree, _own_leaves(step_args[0], shared, own))
            if extra:  # replay_exact: the update as the op-by-op update computes it
                out = fence(extra[0], lambda g, a: update(g, *a), grad_values, update_args)
            else:
                out = update(grad_values, *update_args)
            return exported, [result[p] for p in returned], out
        fused = program.fused[fused_key] = _Fused(jax.jit(run))
        fused.compile(step_args, program.extra, own)
    return fused, shared, own


def ran_before_update(grads: Sequence[Any]) -> Optional[tuple]:
    """``(step, positions)`` when ``grads`` are gradients of one step that ran before its update (a value of
    it read first: ``PendingStep.ran_before``), not read yet themselves; else None."""
    step, positions = None, []
    for g in grads:
        source = g._pending if type(g) is Tensor else None
        if (source is None or type(source[0]) is not PendingStep or source[0].ran_before is None
                or (step is not None and source[0] is not step)):
            return None
        step = source[0]
        positions.append(source[1])
    return None if step is None else (step, tuple(positions))


_ran_before_last: Any = None  # (a weak reference to the one step holding ``ran_before``)


def _hold_ran_before(step: PendingStep, held: tuple) -> None:
    """``step.ran_before = held``, the last step's only: a step's gradients kept unread for long (a list of
    every step's) would otherwise keep every step's arrays."""
    global _ran_before_last
    last = _ran_before_last() if _ran_before_last is not None else None
    if last is not None:
        last.ran_before = None
    step.ran_before = held
    _ran_before_last = weakref.ref(step)


def forecast_after(ran: tuple, key: Hashable, update: Callable, args: Sequence[Any], tree: Any,
                   reread: Optional[Callable[[], Optional[list]]]) -> None:
    """After an update of the gradients of a step that ran before it (``ran``, from ``ran_before_update``;
    ``args`` as the update read them, flat, of structure ``tree``: as run_with_update's), forecast the next
    step's call of that program and update as one (run_with_update's): compiled now or in the background, it
    is then dispatched ahead, the next step's values read before its update come from it
    (PendingStep.exported_from_launch), and its update takes it."""
    step, positions = ran
    held, step.ran_before = step.ran_before, None  # (its arrays go)
    # (nothing held: let go meanwhile, another step having run first, perhaps in another thread; no reread:
    # an update with a schedule to call is not made ahead)
    if held is None or reread is None:
        return
    record, step_args = held
    fused, shared, _ = _fused_with_update(step.program, step_args, positions, key, update, args, tree)
    _expect_next(record, step.program, step_args, fused, shared, reread)


class _Fused(background.Compilation):
    """A step's program with an update after it (an optimizer's: run_with_update; one written by hand:
    _run_update), and how many of its calls made ahead in a row no step used (at ``_MAX_UNUSED``, no
    more are made).

    Its calls are made on guessed leaves (ahead.py) once ``same`` (its steps in a row that read the data
    arrays of the step before, or a new batch where it read its own) reaches ``needed``: 1 at first, doubled
    by each guess a step did not use (up to ``_MOST_NEEDED``): a loop whose data changed (evaluation on a
    held-out batch between training phases, a new dataset) guesses again once it is back on one batch, and one
    whose data keeps changing wastes ever fewer runs."""

    __slots__ = ("unused", "same", "needed", "_layout")

    def __init__(self, fn) -> None:
        super().__init__(fn)
        self.unused = 0
        self.same = 0
        self.needed = 1
        self._layout: Optional[tuple] = None

    def layout(self, shared: tuple, n_leaves: int) -> Tuple[tuple, tuple]:
        """``(given, data_at)`` of a step of ``n_leaves`` leaves whose update's arguments are ``shared`` among
        them (_shared_leaves): the positions of the leaves the update gives the next step, and of the others
        (computed once: every step of this program has the same)."""
        cached = self._layout
        if cached is None or cached[0] != shared or cached[1] != n_leaves:
            given = tuple(sorted({p for p in shared if p >= 0}))
            cached = self._layout = (shared, n_leaves, given, tuple([i for i in range(n_leaves) if i not in given]))
        return cached[2], cached[3]

    @property
    def guess(self) -> bool:
        """Whether its next call may be made on guessed leaves."""
        return self.same >= self.needed

    def missed(self) -> None:
        """A call made on guessed leaves was not the step's."""
        self.same = 0
        self.needed = min(2 * self.needed, _MOST_NEEDED)


_MAX_UNUSED = 3
_MOST_NEEDED = 64


def _fused_call(fused: _Fused, step: PendingStep, own: Sequence[Any]):
    """``fused(step.args, program.extra, own)``: its result from the step's launch if that made this very
    call (ahead.py), else the call, now."""
    record = step.record
    launch = record.ahead if record is not None else None
    if launch is not None:
        if launch.made(fused, step.args[0], step.args[1], step.program.extra, own):
            fused.unused = 0
            ahead.tally["used"] += 1
            return launch.result
        if launch.guessed and launch.fused is fused:
            fused.missed()
    return fused(step.args, step.program.extra, own)


def _expect_next(record, program, step_args: tuple, fused: _Fused, shared: tuple,
                 arguments: Callable[[], Optional[list]]) -> None:
    """Forecast (ahead.py) the next call ``fused((leaves, output gradients), program.extra, own)`` of a step
    of ``program`` recorded as ``record`` (lazy.StepRecord) with arguments ``step_args``: the leaves its
    record will hold, ``own`` those of ``arguments()`` (the update's, flat, read then; None: not now) that
    are not among them. A step with no record is not forecast; one whose call is not made ahead (turned off,
    several processes, output gradients given, no launch of it used lately) forgets its structure's
    forecast."""
    if record is None:
        return
    # (a record's program is keyed on its tokens: the tuple it keeps is this record's, built once)
    structure = program.structure
    tokens = structure[1] if structure is not None else tuple(record.tokens)
    extra, n_og = program.extra, len(step_args[1])
    if (not config.replay_ahead or fused.unused >= _MAX_UNUSED or jax.process_count() > 1
            or any(g is not None for g in step_args[1])):
        ahead.expect(tokens, fused, None)
        return

    def call(leaves: list, own: list, guessed: bool) -> ahead.Launch:
        og = [None] * n_og
        fused.unused += 1
        result = fused((leaves, og), extra, own)
        ahead.tally["guessed" if guessed else "made"] += 1
        return ahead.Launch(fused, leaves, og, extra, own, result, guessed)

    def launch(leaves: list) -> Optional[ahead.Launch]:
        if fused.unused >= _MAX_UNUSED or fused.compiled is None:
            return None
        flat = arguments()
        if flat is None:
            return None
        s, own = _shared_leaves(leaves, flat)
        if s != shared:  # (a parameter not the value the step read: the call will not be this one)
            return None
        return call(list(leaves), own, False)

    leaves = record.leaves
    given, data_at = fused.layout(shared, len(leaves))
    data = tuple([id(leaves[i]) for i in data_at])
    before = ahead.expected(tokens, fused)
    batch = _new_batch(leaves, data_at, data, before)
    forecast = ahead.Forecast(tokens, max(record.leaves_at, 1), len(leaves), launch, data=data, uid=record.uid,
                              owner=fused, batch=batch)
    # Other programs of this structure: one that forecast before this program's last step is stale (a program
    # of this step before, its update's outputs then otherwise used); one since is another model's, trained in
    # turn with this one.
    rivals = ahead.others(tokens, fused)
    if before is not None:
        for other in rivals:
            if other.uid < before.uid:
                ahead.expect(tokens, other.owner, None)
        rivals = [other for other in rivals if other.uid > before.uid]
    alike = before is not None and (before.data == data or (batch is not None and before.batch is not None
                                                            and batch[0] == before.batch[0]))
    fused.same = fused.same + 1 if alike else 0
    if fused.guess and 0 < record.first_at < record.leaves_at and not rivals:
        # The same program on the same data in a row (two steps, more after a guess that missed), or on a new
        # batch converted (tensor.py's _made_lately) at the same places each step, and no other of this
        # structure in between (whose guess could match the same first leaves): the next step's call is
        # guessed at its first op that reads an array, its data the step's or the next batch converted.
        kept = list(leaves)
        for i in given:
            kept[i] = None

        def guess(first: list) -> Optional[ahead.Launch]:
            if not fused.guess or fused.unused >= _MAX_UNUSED or fused.compiled is None:
                return None
            flat = arguments()
            if flat is None:
                return None
            full = list(kept)
            if batch is not None and not _fill_next_batch(full, batch):  # (None: the same data as the step's)
                return None
            own = []
            for x, p in zip(flat, shared):
                if p >= 0:
                    full[p] = x
                else:
                    own.append(x)
            if not all(map(operator.is_, first, full)):  # (no generator resumed per leaf)
                return None
            return call(full, own, True)
        forecast = ahead.Forecast(tokens, record.first_at, record.n_first, guess, then=forecast, data=data,
                                  uid=record.uid, again=before.uid == record.after, owner=fused, batch=batch)
    for other in rivals:
        if other.then is not None:  # (another model's program of this structure guessing: no longer)
            ahead.expect(tokens, other.owner, other.then)
    ahead.expect(tokens, fused, forecast)


def _new_batch(leaves: list, data_at: list, data: tuple, before) -> Optional[tuple]:
    """Where a step read a new batch: ``((positions, keys), last)`` when each of its data leaves (positions
    ``data_at`` of ``leaves``, ids ``data``) that differs from the step before's (forecast ``before``) is held
    by a Tensor converted lately (tensor.py's ``_made_lately``: positions in order of making, their shapes
    and dtypes, and the number of the last made); None when none differs, or one does that was not."""
    if before is None or len(before.data) != len(data) or before.data == data:
        return None
    made = sorted((made_number(leaves[i]), i) for i, a, b in zip(data_at, data, before.data) if a != b)
    if made[0][0] == 0:
        return None
    return (tuple(i for _, i in made), tuple(_leaf_key(leaves[i]) for _, i in made)), made[-1][0]


def _fill_next_batch(full: list, batch: tuple) -> bool:
    """Put in ``full`` (a step's leaves) the next batch: of the arrays converted after the batch a step
    read (``batch``, from _new_batch), the first of each place's shape and dtype, in order of making. False
    when they are not all made yet."""
    (places, keys), last = batch
    k = 0
    for x in made_after(last):
        if _leaf_key(x) == keys[k]:
            full[places[k]] = x
            k += 1
            if k == len(places):
                return True
    return False


# -- a hand-written update ------------------------------------------------------------------------------

def _aval_key(aval) -> tuple:
    return (tuple(aval.shape), aval.dtype, bool(getattr(aval, "weak_type", False)))


def _leaf_key(x):
    """What a compiled update depends on of a concrete argument: its shape, dtype and weak type."""
    if type(x) is ArrayImpl:
        return x.aval  # (hashable, and a C++ attribute: a step has a leaf per optimizer state array)
    if isinstance(x, jax.Array):
        return (x.shape, x.dtype, x.weak_type)
    if hasattr(x, "dtype") and hasattr(x, "shape"):  # numpy arrays and scalars
        return (tuple(x.shape), x.dtype, False)
    return (type(x),)  # a Python number the op passes on as it is (weakly typed in the kernel)


class HandUpdate:
    """The ops and assignments recorded after a pending step's gradients. Values are numbered by slot:
    the step's gradients first, then each op's outputs in order; an op's argument is a slot, or
    ``-1 - i`` for the concrete value ``leaves[i]``."""

    __slots__ = ("n_grads", "avals", "ops", "leaves", "leaf_keys", "sources", "handed", "assigned")

    def __init__(self, grad_avals: Sequence[Any]) -> None:
        self.n_grads = len(grad_avals)
        self.avals: List[Any] = list(grad_avals)  # per slot: shape, dtype, weak type (None: no gradient)
        self.ops: List[tuple] = []  # (kernel, argument refs)
        self.leaves: List[Any] = []
        self.leaf_keys: List[tuple] = []
        # Per leaf, where the next step's would come from (ahead.py): a weak reference to the Variable whose
        # value it is, or the value itself (a constant: a Python number, a Tensor's array).
        self.sources: List[Any] = []
        self.handed: List[Any] = []  # per op output: a weak reference to its pending tensor, or None
        self.assigned: List[Variable] = []  # in order of assignment (a Variable may come more than once)

    def leaf(self, x, source: Any = None, key: Any = None) -> int:
        """Add the concrete value ``x``, the value of the Variable ``source`` if one is given (``key``: its
        ``_leaf_key``, when known)."""
        self.sources.append(x if source is None else weakref.ref(source))
        self.leaves.append(x)
        self.leaf_keys.append(_leaf_key(x) if key is None else key)
        return -len(self.leaves)

    def add(self, kernel: Callable, refs: tuple, out_avals: Sequence[Any]) -> int:
        """Append an op; the slot of its first output."""
        base = len(self.avals)
        self.ops.append((kernel, refs))
        self.avals.extend(out_avals)
        self.handed.extend([None] * len(out_avals))
        return base


def _update_of(step: PendingStep) -> HandUpdate:
    if step.update is None:
        step.update = HandUpdate(step.program.out_info[1])
    return step.update


def _uninstall() -> None:
    core.set_update_deferral(None)
    set_assign_deferral(None)


# (kernel, argument keys) -> (several outputs?, output avals), or None: the op cannot wait (see _defer_op)
_shapes: Dict[tuple, Any] = {}
_SHAPES_MAX = 4096
_MISSING = object()


def _defer_op(op, args: Sequence[Any], static: dict, unwrap: Callable):
    """``op(*args)`` appended to the update of the pending step whose values it reads, as pending tensors;
    None to run it now (no such value among ``args``, values of two steps, a value that cannot wait)."""
    if not _open:
        _uninstall()
        return None
    step = None
    refs: List[Optional[int]] = [None] * len(args)
    for i, a in enumerate(args):
        t = type(a)
        if t is Tensor:
            source = a._pending
            if source is None or source[0].values is not None:
                continue
        elif t is LazyTensor:
            if a._pending_node() is not None:
                return None  # a forward value not computed: reading it runs what computes it
            continue
        elif isinstance(a, Variable):
            source = pending_value(a)
            if source is None:
                continue
        else:
            continue
        if type(source[0]) is not PendingStep or (step is not None and source[0] is not step):
            return None
        step = source[0]
        refs[i] = source[1]
    if step is None or (tape_set.numerics_checks and tape_set.current().debug_checking):
        return None
    try:
        raw, _ = unwrap(op, [a for a, r in zip(args, refs) if r is None])  # reads Variables, converts lists
        kernel = op.kernels(static).forward
    except Exception:
        return None  # the op, run now, raises its own error
    return _append(step, kernel, raw, refs, args)


def _append(step: PendingStep, kernel: Callable, raw: Sequence[Any], refs: Sequence[Optional[int]],
            args: Sequence[Any]):
    """Append ``kernel`` to ``step``'s update: its arguments the slots ``refs`` (None: the next value of
    ``raw``, a leaf, the value of the Variable at that place in ``args`` if one is there). Its outputs as
    pending tensors (a tuple when the kernel returns one), or None to run it now (the step ran meanwhile, a
    traced argument, a shape or type error, a kernel with effects)."""
    if step.values is not None:
        return None  # reading an argument ran the step
    for x in raw:  # (a loop, and list comprehensions below, not generators: this runs per op of an update)
        if isinstance(x, jax.core.Tracer):
            return None  # a value of a trace
    avals = step.slot_avals()
    concrete = iter(raw)
    values = [avals[r] if r is not None else next(concrete) for r in refs]
    keys = [_aval_key(v) if r is not None else _leaf_key(v) for v, r in zip(values, refs)]
    key = (kernel, tuple(keys))
    shaped = _shapes.get(key, _MISSING)
    if shaped is _MISSING:
        try:
            jaxpr, out = jax.make_jaxpr(kernel, return_shape=True)(*values)
            # (a shape or type error: run now, it raises there with the op's name; a kernel with effects,
            # a callback or a debug print, runs when called too)
            shaped = None if jaxpr.effects else (isinstance(out, (tuple, list)), tuple(as_tuple(out)))
        except Exception:
            shaped = None
        if len(_shapes) >= _SHAPES_MAX:
            _shapes.clear()
        _shapes[key] = shaped
    if shaped is None:
        return None
    several, out_avals = shaped
    upd = _update_of(step)
    refs = tuple([r if r is not None else upd.leaf(v, a if isinstance(a, Variable) else None, k)
                  for v, r, a, k in zip(values, refs, args, keys)])
    base = upd.add(kernel, refs, out_avals)
    outs = []
    for k in range(len(out_avals)):
        t = pending_tensor(step, base + k)
        upd.handed[base + k - upd.n_grads] = weakref.ref(t)
        outs.append(t)
    return tuple(outs) if several else outs[0]


def defer_call(kernel: Callable, args: Sequence[Any]) -> Optional[tuple]:
    """``kernel(*args)`` (a function of arrays returning a tuple of them, the same object at every step) appended
    to the update of the pending step, not run yet, whose gradients or update values the pending tensors among
    ``args`` are; the other arguments are Variables (their current values, read again for a step dispatched
    ahead) or arrays. Its outputs as pending tensors: assigning them to Variables keeps step, update and this
    call one compiled program (an optimizer given gradients transformed by ops first: clipped, scaled). None,
    nothing done, when the call must run now: no pending tensor among ``args``, values of two steps, a pending
    Variable, inside a trace."""
    if not _open or tape_set.current().capture is not None:
        return None
    step = None
    refs: List[Optional[int]] = [None] * len(args)
    raw = []
    for i, a in enumerate(args):
        if type(a) is Tensor and a._pending is not None:
            source = a._pending
            if type(source[0]) is not PendingStep or (step is not None and source[0] is not step):
                return None
            step = source[0]
            refs[i] = source[1]
        elif isinstance(a, Variable):
            if pending_value(a) is not None:
                return None  # (reading it would run what computes it)
            raw.append(a._value)
        elif isinstance(a, Tensor):
            return None  # (a deferred forward value, or a Tensor of another kind: not an update's argument)
        else:
            raw.append(a)
    if step is None or step.values is not None or (tape_set.numerics_checks and tape_set.current().debug_checking):
        return None
    out = _append(step, kernel, raw, refs, args)
    return None if out is None else as_tuple(out)


@functools.lru_cache(maxsize=None)
def _to_strong(dtype) -> Callable:
    """A weakly typed value as the Variable's dtype, strongly typed (as Variable._checked)."""
    return functools.partial(jax.lax.convert_element_type, new_dtype=dtype)


@functools.lru_cache(maxsize=1024)
def _struct(shape: tuple, dtype) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, dtype)


def _defer_assign(var: Variable, value: Tensor, op: str, kernel: Optional[Callable]) -> bool:
    """Record ``var.<op>(value)`` in the update of the pending step ``value`` is a value of (True), or
    False to assign now. ``kernel`` computes the new value from the old one and ``value`` (None: assign)."""
    if not _open:
        _uninstall()
        return False
    if tape_set.current().capture is not None:
        return False
    source = value._pending
    if source is None:
        return False
    step = source[0]
    if type(step) is not PendingStep or step.values is not None:
        return False
    before = pending_value(var)
    if before is not None and before[0] is not step:
        return False  # (assigned by another pending step: reading it runs that one first)
    slot = source[1]
    aval = step.slot_avals()[slot]
    check_assignment(var, aval.shape, aval.dtype, op)  # raised at once, as op by op (nothing recorded)
    upd = _update_of(step)
    out = (_struct(var.shape, var.dtype),)
    if getattr(aval, "weak_type", False):
        slot = upd.add(_to_strong(var.dtype), (slot,), out)
    if kernel is not None:
        current = before[1] if before is not None else upd.leaf(var._value, var)
        slot = upd.add(kernel, (current, slot), out)
    make_value_pending(var, step, slot, upd.avals[slot])
    upd.assigned.append(var)
    return True


def _run_ops(result, ops: List[tuple], leaves: list, wanted: tuple, call: Callable) -> list:
    """The values of the ``wanted`` slots: the update's kernels run in order (``call(kernel, *args)``) on
    the step's gradients ``result``, the earlier ops' outputs and the concrete ``leaves``."""
    slots = list(result)
    for kernel, refs in ops:
        slots.extend(as_tuple(call(kernel, *[leaves[-1 - r] if r < 0 else slots[r] for r in refs])))
    return [slots[s] for s in wanted]


def _call(kernel: Callable, *args):
    return kernel(*args)


def _fused_function(fn: Callable, ops: List[tuple], wanted: tuple, shared: tuple) -> Callable:
    """The step's program ``fn``, then the update's kernels (fenced under replay_exact, as every kernel
    of the program), returning the step's exported values and the values of the ``wanted`` slots.
    ``shared`` describes the update's leaves (``_shared_leaves``)."""
    def run(step_args, extra, own):
        exported, result = fn(*step_args, *extra)
        call = functools.partial(fence, extra[0]) if extra else _call
        return exported, _run_ops(result, ops, _own_leaves(step_args[0], shared, own), wanted, call)
    return run


def _current_leaves(sources: Sequence[Any]) -> Optional[list]:
    """A hand-written update's concrete leaves as the next step's would be now (``HandUpdate.sources``);
    None while a Variable among them is pending or gone."""
    leaves = []
    for s in sources:
        if type(s) is weakref.ReferenceType:
            var = s()
            if var is None or pending_value(var) is not None:
                return None
            s = var._value
        leaves.append(s)
    return leaves


def _run_update(step: PendingStep) -> None:
    """Run ``step`` and its hand-written update: as one compiled program once it is compiled (else the
    program, then each kernel); store the assigned Variables, or on failure put back their values."""
    global last_update
    upd, program = step.update, step.program
    n = upd.n_grads
    # The values anything can still read: each Variable's last assignment, the live pending tensors and
    # the gradients still held (a gradient dropped by now is never read: the program leaves it out).
    wanted = {p[1] for p in map(pending_value, upd.assigned) if p is not None and p[0] is step}
    wanted.update(n + k for k, ref in enumerate(upd.handed) if ref is not None and ref() is not None)
    wanted.update(step.held_gradients())
    wanted = tuple(sorted(wanted))
    shared, own = _shared_leaves(step.args[0], upd.leaves)
    key = ("hand-written update", tuple(upd.ops), tuple(upd.leaf_keys), shared, wanted)
    fused = program.fused.get(key)
    try:
        if fused is None:
            fused = program.fused[key] = _Fused(jax.jit(_fused_function(program.fn, upd.ops, wanted, shared)))
            fused.compile(step.args, program.extra, own)
        if fused.compiled is not None:
            exported, outs = _fused_call(fused, step, own)
            how = f"fused into the replayed step ({len(upd.ops)} update ops)"
            result: List[Any] = [None] * n
            _expect_next(step.record, program, step.args, fused, shared,
                         functools.partial(_current_leaves, tuple(upd.sources)))
        else:
            exported, result = program(*step.args)
            result = list(result)
            outs = _run_ops(result, upd.ops, upd.leaves, wanted, _call)
            why = (f"compiling the fused program failed ({fused.failed})" if fused.failed
                   else "the fused program is compiling")
            how = f"op by op ({why})"
    except BaseException:
        if fused is not None and fused.compiled is None and not fused.failed:
            program.fused.pop(key, None)  # (an interrupted compile: try again next time)
        step.update = None  # the step alone, if read again
        for v in upd.assigned:
            settle_pending_value(v, step, None)  # every Variable as it was
        raise
    values: List[Any] = [None] * (len(upd.avals) - n)
    for s, v in zip(wanted, outs):
        if s >= n:
            values[s - n] = v
        else:
            result[s] = v
    step.finish(exported, result, values)
    for v in upd.assigned:
        settle_pending_value(v, step, step.values)
    last_update = how
