"""Differential test of ``tj.gradients`` inside ``tj.function`` against ``tf.gradients`` inside ``tf.function``:
the path fuzz's random programs, traced on both sides, differentiated symbolically with respect to their
inputs and their intermediate values.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_gradients_differential.py [--first K] [--programs N] [--verbose]

tools/tf_program_differential.py compares the tape (``GradientTape``) on whole programs; this compares graph
mode's own rules (TF's gradients_util.py): gradients with respect to intermediate tensors (which gradients
flow through, not stop at), values that do not lead to ``ys`` (``None``, or zeros with
``unconnected_gradients='zero'``), ``stop_gradients`` (an op not differentiated, though its output's own
gradient is still collected), several ``ys`` (and the same ``y`` twice), ``grad_ys`` (arrays, nested lists,
``None`` entries, a Python number; now and then one too many or too few), duplicate ``xs``, and the
aggregation methods. The programs are tests/test_path_fuzz.py's (``Program(seed)``); each step's TF twin is
tools/tf_program_differential.py's ``tf_step``. For each seed one ``tf.function`` and one ``tj.function`` run
the steps, keeping every value (v0 = x0 (2, 3), v1 = x1 (3,), v2... the steps' outputs), and return the
gradients of a call drawn with ``numpy.random.default_rng(seed)`` (``Draw``): ys (one or two values, a list
or not), grad_ys, xs (a subset of all values, sometimes with an unconnected one or a duplicate),
stop_gradients, unconnected_gradients and aggregation_method. The gradients are compared value for value
(``compare``: ``None`` exactly where TF gives ``None``, NaN where TF's NaN, float32 tolerance); where TF
raises, tapejax must raise the same class (or a subclass).

Skipped: programs that use the fuzz's Variables (their steps assign and read V inside the program, a tape
matter that tools/tf_program_differential.py covers), and programs TF refuses to run at all (eagerly, without
gradients: a shape its op does not broadcast). recompute_grad, custom gradients and grad_pass_through run in
both graph modes and are compared. A Python number as the grad_ys of a non-scalar y is drawn too: TF's graph
does not broadcast it (it hands it to the first gradient function, which may or may not broadcast it), so
where TF raises for it the program counts as "skip"; where that y is itself among xs, TF returns the number
as it is (shape ()) and tapejax the broadcast array: "known" (``KNOWN_SCALAR_GRAD_Y``), as is tapejax's
ValueError for a grad_ys whose shape is not its y's, which TF may accept (``KNOWN_GRAD_YS_SHAPE``).

Mismatches are classified as tools/tf_program_differential.py's ``check`` does: TF's NaN only, at a zero
("mul_no_nan"), a tie decided differently by float32 rounding ("tie_rounding"), a step of ``KNOWN_LABELS``
("known"); anything else is a "mismatch" (exit status 1). Ties are looked for in the values the two functions
computed too, not only eagerly: XLA may round a value a last bit apart from the eager one (``compiled_ties_differ``).
"""
from __future__ import annotations

import logging
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf_program_differential as D  # noqa: E402  (sets up TF, tapejax and the tests' path: import it first)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tapejax as tj  # noqa: E402
import test_path_fuzz as F  # noqa: E402  (the programs)

warnings.filterwarnings("ignore")
# (one tj.function per program: its retracing warning says nothing here)
logging.getLogger("tapejax").addFilter(lambda record: "retracing" not in record.getMessage())

VARIABLE_LABELS = {"mul_read_v", "assign_v_read", "max_v", "custom_v", "assign_add_v"}
AGGREGATIONS = [None, "ADD_N", "EXPERIMENTAL_TREE", "EXPERIMENTAL_ACCUMULATE_N"]


class Draw:
    """The arguments of one gradients call, as indices into the program's values (v0, v1, then each step's)."""

    def __init__(self, p, seed):
        rng = np.random.default_rng(seed)
        n = 2 + len(p.steps)
        shapes = [(2, 3), (3,)] + [tuple(int(d) for d in s.shape) for s in p.steps]
        self.shapes = shapes
        anc = [{0}, {1}]  # each value's ancestors and itself
        for s in p.steps:
            anc.append(set().union(*[anc[i] for i in s.args]) | {len(anc)})
        # ys: one or two values, mostly steps' (the last is the program's output), now and then an input
        n_y = int(rng.integers(1, 3))
        cands = list(range(n)) if rng.random() < 0.15 else list(range(2, n))
        self.ys = [int(i) for i in rng.choice(cands, size=n_y, replace=bool(rng.random() < 0.15))]
        self.ys_list = n_y > 1 or bool(rng.random() < 0.5)
        # grad_ys: None, or one per y (an array, its nested list, None, or a Python number)
        self.grad_ys = None
        if rng.random() < 0.5:
            self.grad_ys = []
            for i in self.ys:
                r = rng.random()
                arr = np.asarray(np.round(rng.normal(size=shapes[i]), 2), np.float32)
                if r < 0.55:
                    self.grad_ys.append(("array", arr))
                elif r < 0.7:
                    self.grad_ys.append(("list", arr.tolist()))
                elif r < 0.88 and self.ys_list:
                    self.grad_ys.append(("none", None))
                elif r < 0.88:
                    self.grad_ys.append(("array", arr))
                else:
                    self.grad_ys.append(("scalar", float(np.round(rng.normal(), 2))))
            if self.ys_list and rng.random() < 0.05:  # one grad_y too many or too few: ValueError in both
                self.grad_ys = self.grad_ys[:-1] if len(self.grad_ys) > 1 else self.grad_ys * 2
        # xs: a subset of all values, sometimes one that does not lead to ys, sometimes one twice
        up = set().union(*[anc[i] for i in self.ys])
        k = int(rng.integers(1, min(4, n) + 1))
        self.xs = [int(i) for i in rng.choice(n, size=k, replace=False)]
        unconnected = [i for i in range(n) if i not in up and i not in self.xs]
        if unconnected and rng.random() < 0.35:
            self.xs.insert(int(rng.integers(len(self.xs) + 1)), int(rng.choice(unconnected)))
        if rng.random() < 0.1:
            self.xs.append(self.xs[int(rng.integers(len(self.xs)))])
        self.xs_list = len(self.xs) > 1 or bool(rng.random() < 0.7)
        # stop_gradients: sometimes intermediates on the way to ys, or one of xs
        self.stops = None
        if rng.random() < 0.4:
            inner = sorted(i for i in up if i >= 2)
            pool = inner + list(self.xs) if rng.random() < 0.3 else inner
            if pool:
                m = int(rng.integers(1, min(2, len(pool)) + 1))
                self.stops = [int(i) for i in rng.choice(pool, size=m, replace=False)]
        self.stops_list = self.stops is not None and (len(self.stops) > 1 or bool(rng.random() < 0.5))
        self.unconnected = str(rng.choice(["none", "zero"]))
        self.unconnected_enum = bool(rng.random() < 0.3)
        self.aggregation = AGGREGATIONS[int(rng.integers(len(AGGREGATIONS)))]

    def scalar_grad_y(self) -> bool:
        """Whether a Python number is the grad_y of a non-scalar y (TF's graph does not broadcast it). A one-item
        Python list as the grad_ys of a lone y (not in a list) counts: TF reads it as the list of grad_ys, its
        number the y's (seed 21647: [-2.64] for a y of shape (1,), where TF's add gradient then raises)."""
        if self.grad_ys is None:
            return False
        if any(kind == "scalar" and self.shapes[i] != () for (kind, _), i in zip(self.grad_ys, self.ys)):
            return True
        if self.ys_list:
            return False
        kind, value = self.grad_ys[0]
        return kind == "list" and isinstance(value, list) and len(value) == 1 and self.shapes[self.ys[0]] != ()

    def kwargs(self, m, vals):
        """The call's arguments in library ``m`` (tj or tf) over the values ``vals``."""
        ys = [vals[i] for i in self.ys]
        xs = [vals[i] for i in self.xs]
        kw = {}
        if self.grad_ys is not None:
            gys = [g for _, g in self.grad_ys]
            kw["grad_ys"] = gys if self.ys_list else gys[0]
        if self.stops is not None:
            st = [vals[i] for i in self.stops]
            kw["stop_gradients"] = st if self.stops_list else st[0]
        kw["unconnected_gradients"] = (m.UnconnectedGradients(self.unconnected) if self.unconnected_enum
                                       else self.unconnected)
        if self.aggregation is not None:
            kw["aggregation_method"] = getattr(m.AggregationMethod, self.aggregation)
        return (ys if self.ys_list else ys[0]), (xs if self.xs_list else xs[0]), kw

    def __repr__(self):
        v = lambda idx, lst: ("[" + ", ".join(f"v{i}" for i in idx) + "]") if lst else f"v{idx[0]}"
        parts = [f"ys={v(self.ys, self.ys_list)}", f"xs={v(self.xs, self.xs_list)}"]
        if self.grad_ys is not None:
            gys = [repr(g) if kind != "array" else f"array{np.asarray(g).shape}" for kind, g in self.grad_ys]
            parts.append("grad_ys=" + (f"[{', '.join(gys)}]" if self.ys_list else gys[0]))
        if self.stops is not None:
            parts.append(f"stop_gradients={v(self.stops, self.stops_list)}")
        parts.append(f"unconnected={self.unconnected!r}{' (enum)' if self.unconnected_enum else ''}")
        parts.append(f"aggregation={self.aggregation}")
        return " ".join(parts)


def tf_run(p, d):
    """The gradients (NumPy arrays or None) of draw ``d`` on program ``p`` by tf.gradients in a tf.function."""
    fns = [D.tf_step(s.label) for s in p.steps]

    @tf.function
    def f(x0, x1):
        vals = [x0, x1]
        for s, fn in zip(p.steps, fns):
            vals.append(fn(*[vals[i] for i in s.args]))
        ys, xs, kw = d.kwargs(tf, vals)
        gs = tf.gradients(ys, xs, **kw)
        return [None if g is None else tf.convert_to_tensor(g) for g in gs], vals  # (IndexedSlices of a gather)
    gs, vals = f(tf.constant(p.xs[0]), tf.constant(p.xs[1]))
    return [None if g is None else np.asarray(g) for g in gs], [np.asarray(v) for v in vals]


def tj_run(p, d):
    """The same by tj.gradients in a tj.function, and the steps that hand back an earlier value."""
    aliases = []

    @tj.function
    def f(x0, x1):
        vals = [x0, x1]
        for s in p.steps:
            vals.append(s.fn(*[vals[i] for i in s.args]))
        # a step that hands back an earlier value itself (TF's graph always has a new tensor) would make xs the
        # same tensor on this side only
        aliases.extend((i, j) for i in range(len(vals)) for j in range(i) if vals[i] is vals[j])
        ys, xs, kw = d.kwargs(tj, vals)
        return tj.gradients(ys, xs, **kw), vals
    gs, vals = f(tj.constant(p.xs[0]), tj.constant(p.xs[1]))
    return [None if g is None else np.asarray(g) for g in gs], aliases, [np.asarray(v) for v in vals]


def compiled_ties_differ(p, got_vals, want_vals) -> bool:
    """tools/tf_program_differential.py's ``ties_differ`` on the values the tj.function (``got_vals``, XLA's) and
    the tf.function (``want_vals``) computed: seed 25416's clip bound mean(x) ** 2 is 1.0 eagerly in both, a tie,
    but 1.0000001 in XLA's program, so its gradient goes to the bound there; a tie on one path only is the same
    last-bit difference at a kink as an eager one."""
    for s in p.steps:
        compare_args = D.tie_comparisons(s)
        if compare_args is None:
            continue
        for a, b in zip(compare_args(*[got_vals[i] for i in s.args]), compare_args(*[want_vals[i] for i in s.args])):
            if not np.array_equal(a, b, equal_nan=True):  # (NaN in both: no comparison made differently)
                return True
    return False


def classify(p, problems, got_vals=None, want_vals=None) -> tuple:
    """tools/tf_program_differential.py's ``classify``, except that a problem of shape, of ``None`` against a value,
    or of the number of gradients is a "mismatch" whatever the program holds: no tie or kink rule explains one
    (KNOWN_LABELS's logaddexp would explain any problem, ``""`` its prefix); and "tie_rounding" also where a tie
    comes out differently in the values the two functions computed (``compiled_ties_differ``)."""
    if any(": shape " in q or ": tj None, " in q or ", TF None" in q or "gradients, TF" in q for q in problems):
        return "mismatch", ""
    kind, why = D.classify(p, problems)
    if kind in ("mismatch", "known") and got_vals is not None and compiled_ties_differ(p, got_vals, want_vals):
        return "tie_rounding", ""
    return kind, why


def check(seed: int):
    """("ok" | "mismatch" | "mul_no_nan" | "tie_rounding" | "known" | "skip", details) for program ``seed``."""
    p = F.Program(seed)
    if p.labels & VARIABLE_LABELS:
        return "skip", "uses the fuzz's Variables"
    try:
        D.forward_values(D.tf_side(p), p)
    except Exception as e:  # TF rejects the program itself (a shape its op does not broadcast)
        return "skip", f"TF's forward raised {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    d = Draw(p, seed)
    try:
        want, want_vals = tf_run(p, d)
    except Exception as e:
        want = e
    try:
        got, aliases, got_vals = tj_run(p, d)
    except Exception as e:
        got, aliases = e, []
    if isinstance(want, Exception):
        if d.scalar_grad_y():
            return "skip", f"TF refuses a Python number as a non-scalar y's grad_ys ({type(want).__name__})"
        if isinstance(got, Exception) and isinstance(got, type(want)):
            return "ok", f"both raised ({type(want).__name__}, tj {type(got).__name__})"
        return "mismatch", (f"TF raised {type(want).__name__}: {str(want).splitlines()[0][:200]}; tj "
                            + (f"raised {type(got).__name__}: {str(got).splitlines()[0][:200]}"
                               if isinstance(got, Exception) else "returned values"))
    if isinstance(got, Exception):
        detail = f"tj raised {type(got).__name__}: {str(got).splitlines()[0][:300]}; TF returned values"
        if isinstance(got, ValueError) and "grad_ys entry of shape" in str(got) and "does not match its y" in str(got):
            return "known", detail + "  -- " + KNOWN_GRAD_YS_SHAPE
        return "mismatch", detail
    problems = [] if len(got) == len(want) else [f"{len(got)} gradients, TF {len(want)}"]
    problems += [D.compare(f"d/dv{i}", g, w) for i, g, w in zip(d.xs, got, want)]
    problems = [q for q in problems if q]
    if aliases:
        problems.append(f"(tj steps return an earlier value itself: {aliases})")
    if not problems:
        return "ok", ""
    # (a y's own gradient that TF gives as a number: its grad_y was one, drawn so or a one-element list for one y)
    nonscalar_ys = {i for i in d.ys if d.shapes[i] != ()}
    rest = [q for q in problems if not any(q.startswith(f"d/dv{i}: shape") and q.endswith(" vs ()")
                                           for i in nonscalar_ys)]
    if not rest:
        return "known", "; ".join(problems) + "  -- " + KNOWN_SCALAR_GRAD_Y
    kind, why = classify(p, rest, got_vals, want_vals)
    return kind, "; ".join(problems) + why


# Deliberate differences in reading grad_ys (API.md: a scalar is broadcast, a wrong shape raises)
KNOWN_SCALAR_GRAD_Y = ("a Python number as the grad_ys of a non-scalar y that is also among xs (or a one-element "
                       "list for one y, which TF reads as one number per y): TF hands the number back as y's "
                       "gradient as it is (shape (); gradients_util's _DefaultGradYs neither broadcasts nor checks "
                       "it), tapejax the gradient of sum(y * grad_y), of y's shape, as TF's own gradient for every "
                       "other x reads it")
KNOWN_GRAD_YS_SHAPE = ("a grad_ys whose shape is not its y's (a nested list of another rank): tapejax raises "
                       "ValueError naming both shapes (API.md); TF checks no shape and returns whatever the first "
                       "gradient function makes of it (mean's reshape accepts it, x * 3.0's raises)")


def main(argv=None) -> int:
    args = D.seed_arguments(__doc__, argv, 300)
    counts = dict.fromkeys(D.OUTCOMES, 0)
    for seed in range(args.first, args.first + args.programs):
        kind, detail = check(seed)
        counts[kind] += 1
        if kind == "mismatch" or args.verbose:
            p = F.Program(seed)
            draw = "" if kind == "skip" and "Variables" in detail else f"\n    {Draw(p, seed)!r}"
            print(f"[{kind}] {p!r}{draw}" + (f"\n    {detail}" if detail else ""), flush=True)
    print(f"\n{args.programs} programs (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
