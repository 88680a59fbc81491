"""Differential test of tapejax against TensorFlow on whole programs: the path fuzz's random programs run under
``tj.GradientTape`` and, step for step, under ``tf.GradientTape``.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python tools/tf_program_differential.py [--first K] [--programs N] [--verbose]

tools/tf_differential.py compares each op alone; this compares compositions, where the tape's own rules show:
which gradients are ``None`` (unconnected inputs, ``stop_gradient``, integer casts, a custom gradient's ``None``),
Variable reads before and after an ``assign`` inside the tape, custom gradients with ``variables=``,
``recompute_grad`` and ``grad_pass_through``, and the tie and kink conventions of each op meeting the others.
The programs are tests/test_path_fuzz.py's (``Program(seed)``: 3-8 ops over inputs drawn from a small set of
values, so ties and zeros are common); each step's TF twin is in ``TF_STEPS``.

For each program it compares the values, the gradient of ``sum(w * output)`` (fixed weights ``w``) with
respect to the two inputs and the Variables (``None`` exactly where TF gives ``None``), the Jacobian of the last
output with respect to the inputs (``tape.jacobian``; not compared where TF's raises), and the forward-mode
JVP (``ForwardAccumulator``) along random tangents (not through recompute_grad or a custom gradient: see
``forward_mode``), and a second derivative (nested tapes: the gradient of the first gradient along the tangents). A mismatch where TF's number is NaN and tapejax's is finite
at a zero input (or a zero a step makes) is API.md's mul_no_nan rule (tools/tf_differential.py's KNOWN), counted
apart; so is one where a tie-deciding comparison (``TIE_COMPARISONS``: maximum, clip's bounds..., and which elements
tie for a max/min reduction's extreme) comes out one way in TF and the other in tapejax because their kernels round a
value differently ("tie_rounding"): the same rule then applies to different cases.
"""
from __future__ import annotations

import ast
import os
import re
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
# XLA's default code generation, as users get (the tests' conftest would pick cheaper settings, whose rounding
# differs: a layer_norm of a constant row then has (x - mean) of one ulp, times eps**-1.5 at second order)
os.environ["TAPEJAX_TEST_XLA_DEFAULTS"] = "1"
import tapejax as tj  # noqa: E402
import test_path_fuzz as F  # noqa: E402  (the programs)
from seed_runs import seed_arguments  # noqa: E402  (also tf_gradients_differential's)

tf.get_logger().setLevel("ERROR")
TFNP = tf.experimental.numpy
V_TF = tf.Variable(np.zeros(3, np.float32), name="fuzz_v")
W_TF = tf.Variable([0.5, -1.0, 2.0], name="fuzz_w")


# -- the TF twin of each step (the same functions as test_path_fuzz.py's UNARY, BINARY and _draw_step) --------

@tf.custom_gradient
def cube_custom(x):
    return x * x * x, lambda dy: dy * 2.0 * x


@tf.custom_gradient
def mul_custom(a, b):
    return a * b, lambda dy: (dy * b * 0.5, None)


@tf.custom_gradient
def mul_v_custom(x):
    y = x * W_TF

    def grad(dy, variables=None):
        return dy * W_TF * 3.0, [tf.reduce_sum(dy * x, axis=tuple(range(x.shape.rank - 1))) * 0.5]
    return y, grad


recompute_sin_mul = tf.recompute_grad(lambda a: tf.sin(a) * a)
pass_through_round = tf.grad_pass_through(lambda a: tf.round(a * 2.0) * 0.5)


def _take_argmax(a):
    return TFNP.take_along_axis(a, tf.expand_dims(tf.argmax(a, axis=-1, output_type=tf.int32), -1), axis=-1)


def _assign_add(x):
    V_TF.assign_add(tf.broadcast_to(x * 0.5, (3,)))
    return V_TF * 2.0


def _assign_read(x):
    if x.shape == (2, 3):
        x = tf.reduce_sum(x, axis=0)
    V_TF.assign(tf.broadcast_to(x, (3,)) * 0.5)
    return tf.sin(V_TF.read_value())


def _moments_layer_norm(x):  # Keras LayerNormalization's moments: tj.nn.layer_norm's derivatives are TF's
    # (x - m) * rsqrt(v + eps), the same function as tf.nn.batch_normalization's x * inv - m * inv, whose two
    # large terms cancel: seed 17158, a row [32.0625, 32.125] normalized to -0.99487/0.99493 against the exact
    # +-0.99492 (tapejax's), which a matmul then turned into a 3% difference
    m, v = tf.nn.moments(x, axes=[-1], keepdims=True)
    return (x - m) * tf.math.rsqrt(v + 1e-5)


TF_STEPS = {
    "sin": tf.sin, "cos": tf.cos, "tanh": tf.tanh, "sigmoid": tf.sigmoid, "abs": tf.abs, "relu": tf.nn.relu,
    "square": lambda a: a * a, "neg": lambda a: -a, "softplus": tf.math.softplus, "exp": lambda a: tf.exp(a * 0.5),
    "log1p_sq": lambda a: tf.math.log1p(a * a), "pow2": lambda a: a ** 2.0,
    "sqrt_where": lambda a: tf.where(a > 0, tf.sqrt(tf.abs(a)), 0.0),
    "sqrt_masked": lambda a: tf.where(a > 0, tf.sqrt(tf.where(a > 0, a, 1.0)), 0.0),
    "clip": lambda a: tf.clip_by_value(a, -0.5, 1.0), "clip0": lambda a: tf.clip_by_value(a, 0.0, 0.5),
    "stop_gradient": tf.stop_gradient, "custom_cube": cube_custom, "recompute": recompute_sin_mul,
    "pass_through": pass_through_round, "sort": lambda a: tf.sort(a, axis=-1),
    "gelu": lambda a: tf.nn.gelu(a, approximate=True), "silu": tf.nn.silu,
    "cumsum": lambda a: tf.math.cumsum(a, axis=-1), "cumprod": lambda a: tf.math.cumprod(a, axis=-1),
    "flip": lambda a: tf.reverse(a, [-1]),
    "cast_f16": lambda a: tf.cast(tf.cast(a, tf.float16), tf.float32) * 1.0,
    "cast_int": lambda a: tf.cast(tf.cast(a, tf.int32), tf.float32) * a,
    "floor_mul": lambda a: tf.floor(a) * a + a // 0.5, "sign_mul": lambda a: tf.sign(a) * a,
    "std": lambda a: tf.math.reduce_std(a, axis=-1, keepdims=True),
    "norm": lambda a: tf.norm(a, axis=-1, keepdims=True),
    "split": lambda a: tf.split(a, [1, a.shape[-1] - 1], axis=-1)[-1] * 2.0,
    "argmax_take": _take_argmax, "pad": lambda a: tf.pad(a, [(0, 1)] * a.shape.rank),
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1.0 + b * b), "maximum": tf.maximum, "minimum": tf.minimum,
    "where_gt": lambda a, b: tf.where(a > b, a, b), "where_ge": lambda a, b: tf.where(a >= b, a * b, a - b),
    "custom_mul": mul_custom, "pow_t": lambda a, b: tf.abs(a) ** b, "logaddexp": TFNP.logaddexp,
    "clip_t": lambda a, b: TFNP.clip(a, b, b + 0.5), "arctan2": lambda a, b: tf.atan2(a, b * b + 1.0),
    "xent": lambda a, b: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(b + a * 0.0), a),
    "matmul_t": lambda x, y: tf.matmul(x, y, transpose_b=True), "einsum_ik_jk": lambda x, y: tf.einsum(
        "ik,jk->ij", x, y), "dot": lambda x, y: tf.tensordot(x, y, 1),
    "flatten": lambda x: tf.reshape(x, (-1,)), "expand": lambda x: tf.expand_dims(x, 0),
    "transpose": tf.transpose, "reshape_t": lambda x: tf.reshape(x, x.shape[::-1]),
    "slice": lambda x: x[..., 1:], "reverse": lambda x: x[..., ::-1],
    "take_repeat": lambda x: tf.gather(x, [0, 1, 0], axis=-1), "concat": lambda x, y: tf.concat([x, y], 0),
    "stack": lambda x, y: tf.stack([x, y], -1), "tile": lambda x: tf.tile(x, (2,) + (1,) * (x.shape.rank - 1)),
    "softmax": tf.nn.softmax, "log_softmax": tf.nn.log_softmax, "layer_norm": _moments_layer_norm,
    "mul_read_v": lambda x: x * V_TF, "max_v": lambda x: tf.maximum(V_TF, x), "custom_v": mul_v_custom,
    "assign_add_v": _assign_add, "assign_v_read": _assign_read,
}
REDUCE = {"sum": tf.reduce_sum, "mean": tf.reduce_mean, "max": tf.reduce_max, "min": tf.reduce_min,
          "prod": tf.reduce_prod, "var": tf.math.reduce_variance}


def tf_step(label: str):
    """The TF function of a step label (``sum(axis=0,keepdims=True)`` and the like parsed)."""
    m = re.fullmatch(r"(\w+)\(axis=(.*),keepdims=(True|False)\)", label)
    if m:
        axis = eval(m.group(2))  # None, an int or a tuple of ints (the fuzz's own repr)
        return lambda x, f=REDUCE[m.group(1)], k=m.group(3) == "True": f(x, axis=axis, keepdims=k)
    m = re.fullmatch(r"logsumexp\(keepdims=(True|False)\)", label)
    if m:
        return lambda x, k=m.group(1) == "True": tf.reduce_logsumexp(x, axis=-1, keepdims=k)
    return TF_STEPS[label]


# -- running a program on both -------------------------------------------------------------------------------

def weights(shape, k):
    return np.asarray(np.random.default_rng(100 + k).normal(size=shape), np.float32)


class Side:
    """What running a program needs of one library (tapejax or TF): its module, accumulator and sum, the
    fuzz's two Variables in it, and the program as a function of its input tensors (every step's output)."""

    def __init__(self, m, accumulator, total, v, w, program):
        self.m, self.accumulator, self.total, self.v, self.w, self.program = m, accumulator, total, v, w, program


def tj_side(p) -> Side:
    return Side(tj, tj.ForwardAccumulator, tj.numpy.sum, F.V, F.W, p.run)


def tf_side(p) -> Side:
    fns = [tf_step(s.label) for s in p.steps]

    def program(*ts):
        pool = list(ts)
        for s, f in zip(p.steps, fns):
            pool.append(f(*[pool[i] for i in s.args]))
        return pool[2:]
    return Side(tf, tf.autodiff.ForwardAccumulator, tf.reduce_sum, V_TF, W_TF, program)


def run(side: Side, p, tangents):
    """``(outputs, gradients w.r.t. x0, x1, V and W, the loss' JVP or None, second order)`` of program ``p``
    on ``side``; the loss weighs the compared outputs (all of them, or the last)."""
    xs = [side.m.constant(x) for x in p.xs]

    def loss_of(*ts):
        outs = side.program(*ts)
        outs = outs if p.all_outputs else outs[-1:]
        return outs, sum(side.total(o * weights(o.shape, k)) for k, o in enumerate(outs))
    side.v.assign(p.v0)
    with side.m.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        outs, loss = loss_of(*xs)
    grads = tape.gradient(loss, xs + [side.v, side.w])
    try:  # the last output's full Jacobian (vectorized, both libraries' default), None where unconnected
        jac = [None if j is None else j.numpy() for j in tape.jacobian(outs[-1], xs)]
    except Exception as e:  # (compared as "raised": TF's pfor refuses some ops)
        jac = f"raised {type(e).__name__}"
    # (TF's recompute_grad refuses a second derivative: NotImplementedError, "tried to transpose grad")
    second = _second_order(side, xs, loss_of, p.v0, tangents) if "recompute" not in p.labels else "not compared"
    first = [o.numpy() for o in outs], [None if g is None else g.numpy() for g in grads]
    if not forward_mode(p):
        return (*first, None, second, jac)
    side.v.assign(p.v0)
    with side.accumulator(xs, [side.m.constant(t) for t in tangents]) as acc:
        _, loss2 = loss_of(*xs)
    return (*first, _num(acc.jvp(loss2)), second, jac)


def _second_order(side: Side, xs, loss_of, v0, v):
    """Nested tapes: the gradient of ``sum(v * d loss / d xs)`` w.r.t. the inputs (the Variable V set to v0)."""
    side.v.assign(v0)
    with side.m.GradientTape() as outer:
        outer.watch(xs)
        with side.m.GradientTape() as inner:
            inner.watch(xs)
            _, loss = loss_of(*xs)
        gs = inner.gradient(loss, xs)
        terms = [side.total(g * t) for g, t in zip(gs, v) if g is not None]
        if not terms:
            return "no first derivative"
        dot = sum(terms)
    return [None if g is None else np.asarray(g) for g in outer.gradient(dot, xs)]


def forward_mode(p) -> bool:
    """Whether the JVPs are compared: TF's forward mode refuses recompute_grad (NotImplementedError), and through
    a custom gradient it differentiates the forward's own ops where tapejax transposes grad_fn (API.md's
    custom_gradient row: a deliberate difference)."""
    return not (p.labels & {"recompute", "custom_cube", "custom_mul", "custom_v"})


def _num(v):
    return None if v is None else np.asarray(v)


def compare(what, got, want):
    """None when they agree (float32 rounding, relative to the largest magnitude), else why not."""
    if got is None or want is None:
        return None if got is None and want is None else f"{what}: tj {'None' if got is None else 'a value'}, " \
                                                         f"TF {'None' if want is None else 'a value'}"
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return f"{what}: shape {got.shape} vs {want.shape}"
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        # (which way matters: only TF's NaN where tapejax has a number is API.md's mul_no_nan rule)
        way = "TF's NaN only" if not np.any(np.isnan(got) & ~np.isnan(want)) else "tj's NaN too"
        return f"{what}: NaN positions differ, {way} (tj {got.tolist()}, TF {want.tolist()})"
    finite = np.isfinite(want) & np.isfinite(got)
    if not np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)]):
        return f"{what}: infinities differ (tj {got.tolist()}, TF {want.tolist()})"
    scale = max(1.0, float(np.max(np.abs(want[finite]), initial=0.0)))
    if not np.allclose(got[finite], want[finite], rtol=1e-3, atol=1e-4 * scale):
        return f"{what}: tj {np.round(got, 5).tolist()} TF {np.round(want, 5).tolist()}"
    return None


# Steps whose TF rule differs from tapejax's on purpose (tools/tf_differential.py's KNOWN): a program holding
# one and mismatching is counted as "known", not as a mismatch
# one: (why, the kind of problem it explains: a prefix of the problem's text, "" for any; when it applies: of the
# program and its tapejax forward values, None for always)
def _zero_argument(op: str):
    """Whether a step ``op`` takes an argument holding a zero: an input's, or one a step made (x1 - x0, seed 18793)."""
    def test(p, values) -> bool:
        return any(s.label.split("(")[0] == op and any(np.any(values[a] == 0) for a in s.args) for s in p.steps)
    return test


def _constant_row(op: str):
    """Whether a step ``op`` normalizes a row whose values are all equal (or equal but for a few ulps): its
    derivatives are 1/sqrt(epsilon) (316) times differences of equal terms, exactly 0 in each library's op-by-op
    kernels and an ulp of those terms in XLA's fused ones (seed 902965: the jacobian through layer_norm([7.25] * 3)
    is 0 in TF, 15 ulps of 316 * 7.25 in tapejax, whose backward kernel is one jitted program: jax.vjp of the same
    formula gives 0 run op by op and -2.4e-4 under jax.jit)."""
    def test(p, values) -> bool:
        for s in p.steps:
            if s.label.split("(")[0] == op:
                x = np.asarray(values[s.args[0]], np.float32)
                spread = np.max(x, axis=-1) - np.min(x, axis=-1)
                if np.any(spread <= 4 * np.spacing(np.max(np.abs(x), axis=-1))):
                    return True
        return False
    return test


def _softmax_of_inf(p, values) -> bool:
    return any(s.label.startswith("softmax") and np.any(np.isposinf(values[s.args[0]])) for s in p.steps)


KNOWN_LABELS = {
    "logaddexp": ("tf.experimental.numpy.logaddexp gives a tie's whole gradient to x1 (tapejax: 1/2 each)", "",
                  None),
    "cumprod": ("TF's CumprodGrad divides by x (0 where x = 0): not the derivative at a zero (tapejax's is exact)",
                "", _zero_argument("cumprod")),
    "prod": ("TF's ProdGrad is made of cumprods: its own derivative at a zero goes through CumprodGrad's division "
             "(tapejax's second derivative is exact)", "second order", _zero_argument("prod")),
    # not a rule: a row that is constant but for rounding (softmax of equal values) has (x - mean) of an ulp,
    # which layer_norm's second derivative multiplies by epsilon**-1.5 (3e7); TF and XLA round differently
    "layer_norm": [("layer_norm's second derivative at a row constant but for rounding (float conditioning)",
                    "second order", None),
                   ("layer_norm of a constant row: derivatives made of differences of equal terms times "
                    "1/sqrt(epsilon), rounded differently by XLA's fused kernels (float conditioning)", "",
                    _constant_row("layer_norm"))],
    # seed 16097: softmax([a, b, inf]) is [0, 0, nan] in TF's kernel, all NaN in jax.nn.softmax (a NaN sum), which
    # tj.nn mirrors (API.md); NaN either way, and the derivatives through it differ in where they are NaN
    "softmax": ("a softmax of a row holding +inf: TF's kernel keeps 0 for the finite entries, jax.nn.softmax (and "
                "tj.nn) gives NaN for the whole row", "", _softmax_of_inf),
}


# Steps whose derivative depends on how their arguments compare (a tie, a bound reached), and the comparisons they
# make: where float32 rounding (a softmax's last bit, TF's kernel against XLA's) makes a comparison come out one way
# in TF and the other in tapejax, each library applies the same rule to a different case, and the derivatives
# differ by a whole term. Such a program is counted as "tie_rounding", not as a mismatch.
TIE_COMPARISONS = {
    "maximum": lambda a, b: [np.sign(a - b)], "minimum": lambda a, b: [np.sign(a - b)],
    "where_gt": lambda a, b: [np.sign(a - b)], "where_ge": lambda a, b: [np.sign(a - b)],
    "logaddexp": lambda a, b: [np.sign(a - b)],
    "clip_t": lambda a, b: [np.sign(a - b), np.sign(a - (b + np.float32(0.5)))],  # (b + 0.5: IEEE float32 in both)
    # (its a > 0; seed 909132: a layer_norm's row summed, 0 but for rounding, is 2.4e-7 in tapejax and not above 0
    # in TF, and the square root makes that 4.9e-4)
    "sqrt_where": lambda a: [np.sign(a)],
}


def forward_values(side: Side, p) -> list:
    """The inputs and every step's value, as NumPy arrays, of ``p`` run on ``side`` (the Variable V at p.v0)."""
    side.v.assign(p.v0)
    xs = [side.m.constant(x) for x in p.xs]
    return list(p.xs) + [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in side.program(*xs)]


def tie_comparisons(step):
    """The comparisons ``step`` makes (TIE_COMPARISONS), or for a max/min reduction which elements equal the extreme
    (tied elements share its gradient: seed 15951, where TF's arctan2 rounds two equal arguments to values a unit
    apart, so that three elements tie for the minimum in TF and four in tapejax), or None."""
    if step.label in TIE_COMPARISONS:
        return TIE_COMPARISONS[step.label]
    m = re.fullmatch(r"(max|min)\(axis=(.*),keepdims=(True|False)\)", step.label)
    if m is None:
        return None
    axis, extreme = ast.literal_eval(m.group(2)), (np.max if m.group(1) == "max" else np.min)
    return lambda a: [a == extreme(a, axis=axis, keepdims=True)]


def ties_differ(p) -> bool:
    """Whether a comparison of ``tie_comparisons`` comes out differently in TF and tapejax on program ``p``."""
    steps = [(s, tie_comparisons(s)) for s in p.steps if tie_comparisons(s) is not None]
    if not steps:
        return False
    got, want = forward_values(tj_side(p), p), forward_values(tf_side(p), p)
    for s, compare_args in steps:
        for a, b in zip(compare_args(*[got[i] for i in s.args]), compare_args(*[want[i] for i in s.args])):
            if not np.array_equal(a, b, equal_nan=True):  # (NaN in both: no comparison made differently)
                return True
    return False


def check(seed: int):
    """("ok" | "mismatch" | "mul_no_nan" | "tie_rounding" | "known" | "skip", details) for program ``seed``."""
    p = F.Program(seed)
    rng = np.random.default_rng(seed + 7)
    tangents = [np.asarray(rng.normal(size=x.shape), np.float32) for x in p.xs]
    try:
        want = run(tf_side(p), p, tangents)
    except Exception as e:  # TF rejects the program (a shape its op does not broadcast, a missing gradient)
        return "skip", f"TF raised {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    got = run(tj_side(p), p, tangents)
    problems = [compare(f"output {k}", g, w) for k, (g, w) in enumerate(zip(got[0], want[0]))]
    names = ["d/dx0", "d/dx1", "d/dV", "d/dW"]
    problems += [compare(n, g, w) for n, g, w in zip(names, got[1], want[1])]
    problems.append(compare("jvp", got[2], want[2]))
    if isinstance(got[3], str) or isinstance(want[3], str):
        if got[3] != want[3]:
            problems.append(f"second order: tj {got[3] if isinstance(got[3], str) else 'values'}, TF "
                            f"{want[3] if isinstance(want[3], str) else 'values'}")
    else:
        problems += [compare(f"second order d/dx{k}", g, w) for k, (g, w) in enumerate(zip(got[3], want[3]))]
    if isinstance(want[4], str):  # TF's jacobian refused the program: not compared (tapejax's may work)
        pass
    elif isinstance(got[4], str):
        problems.append(f"jacobian: tj {got[4]}, TF values")
    else:
        problems += [compare(f"jacobian d/dx{k}", g, w) for k, (g, w) in enumerate(zip(got[4], want[4]))]
    problems = [q for q in problems if q]
    if not problems:
        return "ok", ""
    kind, why = classify(p, problems)
    return kind, "; ".join(problems) + why


def classify(p, problems) -> tuple:
    """``(kind, why)`` of a program's non-empty list of problems: "mul_no_nan", "tie_rounding", "known" (``why``:
    KNOWN_LABELS's reasons) or "mismatch" (also used by tools/tf_gradients_differential.py)."""
    # API.md's mul_no_nan rule: TF's NaN (0 * inf) where tapejax gives a number, at a zero in the inputs or in a
    # step's value (seed 13414: |x1 - |x1|| ** b, the base 0 where x1 > 0)
    # (each problem explained by one class or another: seed 910031's JVP is the mul_no_nan rule's, its second order
    # prod's KNOWN entry)
    tf_nan_only = [q for q in problems if "NaN positions differ, TF's NaN only" in q]
    if tf_nan_only and not (any(np.any(x == 0) for x in p.xs) or
                            any(np.any(v == 0) for v in forward_values(tj_side(p), p))):
        tf_nan_only = []
    rest = [q for q in problems if q not in tf_nan_only]
    if not rest:
        return "mul_no_nan", ""
    if ties_differ(p):
        return "tie_rounding", ""
    known = []  # (a label's entry: one (why, stage, test) or a list of them, the first that applies)
    for k in sorted(p.labels & set(KNOWN_LABELS)):
        entries = KNOWN_LABELS[k] if isinstance(KNOWN_LABELS[k], list) else [KNOWN_LABELS[k]]
        for why, stage, test in entries:
            if all(q.startswith(stage) for q in rest) and (test is None or test(p, forward_values(tj_side(p), p))):
                known.append(why)
                break
    if known:
        return "known", "  -- " + "; ".join(known + (["the rest API.md's mul_no_nan rule"] if tf_nan_only else []))
    return "mismatch", ""


OUTCOMES = ("ok", "mismatch", "mul_no_nan", "tie_rounding", "known", "skip")


def main(argv=None) -> int:
    args = seed_arguments(__doc__, argv, 200)
    counts = dict.fromkeys(OUTCOMES, 0)
    for seed in range(args.first, args.first + args.programs):
        kind, detail = check(seed)
        counts[kind] += 1
        if kind != "ok" and (kind == "mismatch" or args.verbose):
            print(f"[{kind}] {F.Program(seed)!r}\n    {detail}")
    print(f"\n{args.programs} programs (seeds {args.first}-{args.first + args.programs - 1}): " +
          ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
