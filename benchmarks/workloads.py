"""The workloads of the benchmark suite (``benchmarks/run.py``), each written once per framework.

A workload's ``build(mode, variant, size, device)`` returns a zero-argument callable that runs one
iteration and blocks until its results are ready (``block_until_ready`` for JAX, ``.numpy()`` for
TF, a CUDA synchronize for torch on GPU), or raises ``NotApplicable``. Modes:

* ``tapejax``      eager ``tj.GradientTape`` (every kernel a jitted JAX call)
* ``tj.function``  the same Python step traced into one XLA program
* ``jax.jit``      ``jax.jit(jax.value_and_grad(...))`` (or the jitted JAX equivalent)
* ``jax``          the same, unjitted (op-by-op JAX dispatch)
* ``tf``, ``tf.function``, ``torch``   TensorFlow eager / graph, PyTorch eager, when installed
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import jax
import jax.numpy as jnp
import numpy as np

MODES = ["tapejax", "tj.function", "jax.jit", "jax", "tf", "tf.function", "torch"]
LR = 0.01


class NotApplicable(Exception):
    """This mode/variant does not apply here (framework missing, device unsupported, ...)."""


# -- framework helpers ----------------------------------------------------------------------------------

def _tj():
    import tapejax as tj
    return tj


def _tf(device):
    try:
        import tensorflow as tf
    except ImportError:
        raise NotApplicable("tensorflow not installed")
    if device.platform == "cpu":
        return tf, "/CPU:0"
    gpus = tf.config.list_physical_devices("GPU")
    if device.platform == "gpu" and gpus:
        return tf, "/GPU:0"
    raise NotApplicable(f"tensorflow has no {device.platform} device")


def limit_tf_threads(threads: int) -> str:
    """TF's intra- and inter-op thread pools set to ``threads`` each (0: TF's default), before TF starts its
    runtime; the note for the table. On a small shared machine TF's default pools (one thread per core, spinning
    while they wait for work) take the cores from the contenders timed next in the same process: on the 2-core
    development machine the eager tapejax MLP Adam step went from ~0.75 ms to ~0.97 ms, jax.jit's from ~0.68 to
    ~0.83 ms, when TF steps ran between theirs (the reason torch runs on one thread, adam_step.py)."""
    try:
        import tensorflow as tf
    except ImportError:
        return ""
    if threads:
        try:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        except RuntimeError:  # (TF's runtime already started in this process: its pools stay as they are)
            pass
    intra = tf.config.threading.get_intra_op_parallelism_threads()
    inter = tf.config.threading.get_inter_op_parallelism_threads()
    return f"TF on {intra or 'default'} intra-op / {inter or 'default'} inter-op thread(s)"


def _torch(device):
    try:
        import torch
    except ImportError:
        raise NotApplicable("torch not installed")
    if device.platform == "cpu":
        return torch, torch.device("cpu")
    if device.platform == "gpu" and torch.cuda.is_available():
        return torch, torch.device("cuda")
    raise NotApplicable(f"torch has no {device.platform} device")


def _torch_sync(torch, dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def _block(x):
    jax.block_until_ready(jax.tree_util.tree_map(lambda t: getattr(t, "value", t), x,
                                                 is_leaf=lambda t: hasattr(t, "value")))
    return x


def _place(device, arr):
    return jax.device_put(jnp.asarray(arr), device)


# -- array namespaces: each loss is written once against one of these ---------------------------------------

class _TJ:
    def __init__(self):
        tj = _tj()
        self.np, self.nn = tj.numpy, tj.nn

    def tanh(self, x): return self.np.tanh(x)
    def relu(self, x): return self.nn.relu(x)
    def mean(self, x, axis=None, keepdims=False): return self.np.mean(x, axis=axis, keepdims=keepdims)
    def sqrt(self, x): return self.np.sqrt(x)
    def softmax(self, x): return self.nn.softmax(x, axis=-1)
    def swap12(self, x): return self.np.swapaxes(x, 1, 2)
    def conv(self, x, w): return self.nn.conv(x, w, (1, 1), "SAME")


class _JAX:
    def tanh(self, x): return jnp.tanh(x)
    def relu(self, x): return jax.nn.relu(x)
    def mean(self, x, axis=None, keepdims=False): return jnp.mean(x, axis=axis, keepdims=keepdims)
    def sqrt(self, x): return jnp.sqrt(x)
    def softmax(self, x): return jax.nn.softmax(x, axis=-1)
    def swap12(self, x): return jnp.swapaxes(x, 1, 2)
    def conv(self, x, w): return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME")


class _TF:
    def __init__(self, tf): self.tf = tf
    def tanh(self, x): return self.tf.tanh(x)
    def relu(self, x): return self.tf.nn.relu(x)
    def mean(self, x, axis=None, keepdims=False): return self.tf.reduce_mean(x, axis=axis, keepdims=keepdims)
    def sqrt(self, x): return self.tf.sqrt(x)
    def softmax(self, x): return self.tf.nn.softmax(x, axis=-1)
    def swap12(self, x): return self.tf.transpose(x, [0, 2, 1])

    def conv(self, x, w):  # TF's CPU conv is NHWC/HWIO only: transpose around it (same math)
        tf = self.tf
        y = tf.nn.conv2d(tf.transpose(x, [0, 2, 3, 1]), tf.transpose(w, [2, 3, 1, 0]), 1, "SAME")
        return tf.transpose(y, [0, 3, 1, 2])


class _Torch:
    def __init__(self, torch):
        self.t = torch
        import torch.nn.functional as F
        self.F = F
    def tanh(self, x): return self.t.tanh(x)
    def relu(self, x): return self.t.relu(x)

    def mean(self, x, axis=None, keepdims=False):
        return x.mean() if axis is None else x.mean(dim=axis, keepdim=keepdims)
    def sqrt(self, x): return self.t.sqrt(x)
    def softmax(self, x): return self.t.softmax(x, dim=-1)
    def swap12(self, x): return x.transpose(1, 2)
    def conv(self, x, w): return self.F.conv2d(x, w, padding="same")


# -- losses ------------------------------------------------------------------------------------------------

def mlp_loss(B, params, x, y):
    h = x
    for w in params[:-1]:
        h = B.tanh(h @ w)
    return B.mean((h @ params[-1] - y) ** 2)


def cnn_loss(B, params, x, y):
    w1, w2, w3 = params
    h = B.relu(B.conv(x, w1))
    h = B.relu(B.conv(h, w2))
    h = B.mean(h, axis=(2, 3))
    return B.mean((h @ w3 - y) ** 2)


def _ln(B, z):
    mu = B.mean(z, axis=-1, keepdims=True)
    c = z - mu
    return c / B.sqrt(B.mean(c * c, axis=-1, keepdims=True) + 1e-5)


def transformer_loss(B, params, x, y):
    wq, wk, wv, wo, w1, w2 = params
    h = _ln(B, x)
    q, k, v = h @ wq, h @ wk, h @ wv
    att = B.softmax((q @ B.swap12(k)) * 0.125)
    x = x + (att @ v) @ wo
    h = _ln(B, x)
    x = x + B.relu(h @ w1) @ w2
    return B.mean((x - y) ** 2)


def _init(rng, shapes):
    return [(rng.standard_normal(s) / np.sqrt(s[0] if len(s) == 2 else np.prod(s[1:]))).astype(np.float32)
            for s in shapes]


def _train_problem(kind: str, scale: float):
    """(loss, params (numpy), x, y, description) for a train-step workload at a size scale."""
    rng = np.random.default_rng(0)
    r = lambda n: max(1, int(round(n * scale)))
    if kind == "mlp":
        b, d, h, o = r(128), 64, r(256), 10
        shapes = [(d, h), (h, h), (h, h), (h, o)]
        x, y = rng.standard_normal((b, d)), rng.standard_normal((b, o))
        desc = f"MLP {d}-{h}-{h}-{h}-{o} tanh, batch {b}"
        return mlp_loss, _init(rng, shapes), x, y, desc
    if kind == "cnn":
        b, c1, c2, hw = r(32), r(8), r(16), 16
        shapes = [(c1, 1, 3, 3), (c2, c1, 3, 3), (c2, 10)]
        x, y = rng.standard_normal((b, 1, hw, hw)), rng.standard_normal((b, 10))
        desc = f"CNN conv{c1}-conv{c2}-mean-dense (NCHW), batch {b} of 1x{hw}x{hw}"
        return cnn_loss, _init(rng, shapes), x, y, desc
    if kind == "transformer":
        b, s, d, m = r(8), 32, 64, 256
        shapes = [(d, d)] * 4 + [(d, m), (m, d)]
        x, y = rng.standard_normal((b, s, d)), rng.standard_normal((b, s, d))
        desc = f"transformer block (1 head, width {d}, MLP {m}, layer norms), batch {b} x seq {s}"
        return transformer_loss, _init(rng, shapes), x, y, desc
    raise KeyError(kind)


def build_train_step(kind: str, mode: str, size: str, device) -> Callable:
    scale = SCALES[size]
    loss, p0, x0, y0, _ = _train_problem(kind, scale)
    x0, y0 = x0.astype(np.float32), y0.astype(np.float32)
    if mode in ("tapejax", "tj.function"):
        tj = _tj()
        B = _TJ()
        with jax.default_device(device):
            params = [tj.Variable(p) for p in p0]
            x, y = tj.constant(x0), tj.constant(y0)

        def step(params, x, y):
            with tj.GradientTape() as tape:
                lo = loss(B, params, x, y)
            grads = tape.gradient(lo, params)
            for p, g in zip(params, grads):
                p.assign_sub(g * LR)
            return lo
        fn = step if mode == "tapejax" else tj.function(step)
        # Wait for the updated variables too, not just the loss: an eager step returns with its backward
        # pass and updates still running on the device (jax.jit's loss and new parameters come together).
        return lambda: _block((fn(params, x, y), [p.read_value() for p in params]))
    if mode in ("jax.jit", "jax"):
        B = _JAX()
        state = {"p": [_place(device, p) for p in p0]}
        x, y = _place(device, x0), _place(device, y0)

        def step(params, x, y):
            lo, g = jax.value_and_grad(lambda ps: loss(B, ps, x, y))(params)
            return [p - LR * gi for p, gi in zip(params, g)], lo
        fn = jax.jit(step) if mode == "jax.jit" else step

        def run():
            state["p"], lo = fn(state["p"], x, y)
            return _block(lo)
        return run
    if mode in ("tf", "tf.function"):
        tf, dev = _tf(device)
        B = _TF(tf)
        with tf.device(dev):
            params = [tf.Variable(p) for p in p0]
            x, y = tf.constant(x0), tf.constant(y0)

        def step():
            with tf.GradientTape() as tape:
                lo = loss(B, params, x, y)
            grads = tape.gradient(lo, params)
            for p, g in zip(params, grads):
                p.assign_sub(g * LR)
            return lo
        fn = step if mode == "tf" else tf.function(step)
        return lambda: fn().numpy()
    if mode == "torch":
        torch, dev = _torch(device)
        B = _Torch(torch)
        params = [torch.tensor(p, device=dev, requires_grad=True) for p in p0]
        x, y = torch.tensor(x0, device=dev), torch.tensor(y0, device=dev)

        def run():
            lo = loss(B, params, x, y)
            grads = torch.autograd.grad(lo, params)
            with torch.no_grad():
                for p, g in zip(params, grads):
                    p.sub_(g * LR)
            _torch_sync(torch, dev)
            return lo.item()
        return run
    raise NotApplicable(mode)


# -- op-overhead chain ---------------------------------------------------------------------------------------

CHAIN_X0 = np.linspace(-1.0, 1.0, 16).astype(np.float32)


def build_chain(mode: str, size: str, device, iters: Optional[int] = None) -> Callable:
    iters = iters or {"small": 100, "default": 300, "large": 1000}[size]
    if mode in ("tapejax", "tj.function"):
        tj = _tj()
        tnp = tj.numpy
        with jax.default_device(device):
            x0 = tj.constant(CHAIN_X0)

        def grad(x0):
            with tj.GradientTape() as tape:
                tape.watch(x0)
                x = x0
                for _ in range(iters):
                    x = tnp.tanh(x * 1.01 + 0.1)
                s = tnp.sum(x)
            return tape.gradient(s, x0)
        fn = grad if mode == "tapejax" else tj.function(grad)
        return lambda: _block(fn(x0))
    if mode in ("jax.jit", "jax"):
        x0 = _place(device, CHAIN_X0)

        def f(x):
            for _ in range(iters):
                x = jnp.tanh(x * 1.01 + 0.1)
            return jnp.sum(x)
        vg = jax.value_and_grad(f)
        fn = jax.jit(vg) if mode == "jax.jit" else vg
        return lambda: _block(fn(x0))
    if mode in ("tf", "tf.function"):
        tf, dev = _tf(device)
        with tf.device(dev):
            x0 = tf.constant(CHAIN_X0)

        def grad():
            with tf.GradientTape() as tape:
                tape.watch(x0)
                x = x0
                for _ in range(iters):
                    x = tf.tanh(x * 1.01 + 0.1)
                s = tf.reduce_sum(x)
            return tape.gradient(s, x0)
        fn = grad if mode == "tf" else tf.function(grad)
        return lambda: fn().numpy()
    if mode == "torch":
        torch, dev = _torch(device)
        x0 = torch.tensor(CHAIN_X0, device=dev, requires_grad=True)

        def run():
            x = x0
            for _ in range(iters):
                x = torch.tanh(x * 1.01 + 0.1)
            (g,) = torch.autograd.grad(x.sum(), x0)
            _torch_sync(torch, dev)
            return g
        return run
    raise NotApplicable(mode)


# -- deep chains ---------------------------------------------------------------------------------------------

def build_deep(mode: str, n_ops: int, device) -> Callable:
    """``x = sin(x)`` n_ops times on 16 floats, then the gradient of sum(x): one op per step."""
    if mode == "tapejax":
        tj = _tj()
        tnp = tj.numpy
        with jax.default_device(device):
            x0 = tj.constant(CHAIN_X0)

        def run():
            with tj.GradientTape() as tape:
                tape.watch(x0)
                x = x0
                for _ in range(n_ops):
                    x = tnp.sin(x)
                s = tnp.sum(x)
            return _block(tape.gradient(s, x0))
        return run
    if mode == "tf":
        tf, dev = _tf(device)
        with tf.device(dev):
            x0 = tf.constant(CHAIN_X0)

        def run():
            with tf.GradientTape() as tape:
                tape.watch(x0)
                x = x0
                for _ in range(n_ops):
                    x = tf.sin(x)
                s = tf.reduce_sum(x)
            return tape.gradient(s, x0).numpy()
        return run
    if mode == "torch":
        torch, dev = _torch(device)
        x0 = torch.tensor(CHAIN_X0, device=dev, requires_grad=True)

        def run():
            x = x0
            for _ in range(n_ops):
                x = torch.sin(x)
            (g,) = torch.autograd.grad(x.sum(), x0)
            _torch_sync(torch, dev)
            return g
        return run
    raise NotApplicable(f"{mode}: a {n_ops}-op program is not an eager workload (compiling it is the benchmark)")


# -- fan-out aggregation ----------------------------------------------------------------------------------------

def build_fanout(mode: str, variant: str, size: str, device, stats: Dict) -> Callable:
    """One tensor of N floats used by K ops; the gradient sums K contributions. Reports peak pending bytes
    (``tape.last_gradient_stats``) with early aggregation (min_count=4, min_bytes=0) and without."""
    n = {"small": 100_000, "default": 1_000_000, "large": 4_000_000}[size]
    k = 32
    x_np = np.linspace(-1, 1, n).astype(np.float32)
    if mode == "tapejax":
        tj = _tj()
        tnp = tj.numpy
        with jax.default_device(device):
            x = tj.constant(x_np)
        agg = dict(min_count=4, min_bytes=0) if variant == "early aggregation" else dict(min_count=10 ** 9)

        def run():
            with tj.config.aggregation(**agg):
                with tj.GradientTape() as tape:
                    tape.watch(x)
                    s = tnp.sum(tnp.stack([tnp.sum(tnp.sin(x * float(i + 1))) for i in range(k)]))
                g = tape.gradient(s, x)
            stats["peak_pending_bytes"] = tape.last_gradient_stats.peak_pending_bytes
            stats["early_aggregations"] = tape.last_gradient_stats.early_aggregations
            return _block(g)
        return run
    if variant != "early aggregation":
        raise NotApplicable("variant only for tapejax")
    if mode in ("jax.jit", "jax"):
        x = _place(device, x_np)

        def f(x):
            return jnp.sum(jnp.stack([jnp.sum(jnp.sin(x * float(i + 1))) for i in range(k)]))
        g = jax.grad(f)
        fn = jax.jit(g) if mode == "jax.jit" else g
        return lambda: _block(fn(x))
    if mode == "torch":
        torch, dev = _torch(device)
        x = torch.tensor(x_np, device=dev, requires_grad=True)

        def run():
            s = torch.stack([torch.sin(x * float(i + 1)).sum() for i in range(k)]).sum()
            (g,) = torch.autograd.grad(s, x)
            _torch_sync(torch, dev)
            return g
        return run
    raise NotApplicable(mode)


# -- Jacobian: pfor vs loop -------------------------------------------------------------------------------

def build_jacobian(mode: str, variant: str, size: str, device) -> Callable:
    """Jacobian of tanh(W x) (n outputs, n inputs): ``variant`` 'pfor' (vectorized) or 'loop' (row loop)."""
    n = {"small": 64, "default": 256, "large": 1024}[size]
    rng = np.random.default_rng(0)
    w_np = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    x_np = rng.standard_normal(n).astype(np.float32)
    if mode in ("tapejax", "tj.function"):
        tj = _tj()
        tnp = tj.numpy
        with jax.default_device(device):
            w, x = tj.constant(w_np), tj.constant(x_np)
        pfor = variant == "pfor"

        def jac(w, x):
            with tj.GradientTape(persistent=not pfor) as tape:
                tape.watch(x)
                y = tnp.tanh(w @ x)
            return tape.jacobian(y, x, experimental_use_pfor=pfor)
        fn = jac if mode == "tapejax" else tj.function(jac)
        return lambda: _block(fn(w, x))
    if mode in ("jax.jit", "jax"):
        if variant != "pfor":
            raise NotApplicable("jax.jacrev is always vectorized")
        w, x = _place(device, w_np), _place(device, x_np)
        jac = jax.jacrev(lambda x: jnp.tanh(w @ x))
        fn = jax.jit(jac) if mode == "jax.jit" else jac
        return lambda: _block(fn(x))
    if mode in ("tf", "tf.function"):
        tf, dev = _tf(device)
        with tf.device(dev):
            w, x = tf.constant(w_np), tf.constant(x_np)
        pfor = variant == "pfor"

        def jac():
            with tf.GradientTape(persistent=not pfor) as tape:
                tape.watch(x)
                y = tf.tanh(tf.linalg.matvec(w, x))
            return tape.jacobian(y, x, experimental_use_pfor=pfor)
        if mode == "tf" and not pfor:
            raise NotApplicable("TF eager row loop: very slow, skipped")
        fn = jac if mode == "tf" else tf.function(jac)
        return lambda: fn().numpy()
    if mode == "torch":
        torch, dev = _torch(device)
        w, x = torch.tensor(w_np, device=dev), torch.tensor(x_np, device=dev)
        from torch.autograd.functional import jacobian
        vec = variant == "pfor"

        def run():
            j = jacobian(lambda x: torch.tanh(w @ x), x, vectorize=vec)
            _torch_sync(torch, dev)
            return j
        return run
    raise NotApplicable(mode)


# -- Hessian-vector products ------------------------------------------------------------------------------

def build_hvp(mode: str, size: str, device) -> Callable:
    """HVP of an MLP loss w.r.t. its weights, forward-over-reverse where the framework has forward mode."""
    scale = SCALES[size]
    loss, p0, x0, y0, _ = _train_problem("mlp", scale * 0.5)
    x0, y0 = x0.astype(np.float32), y0.astype(np.float32)
    rng = np.random.default_rng(1)
    v0 = [rng.standard_normal(p.shape).astype(np.float32) for p in p0]
    if mode in ("tapejax", "tj.function"):
        tj = _tj()
        B = _TJ()
        with jax.default_device(device):
            params = [tj.constant(p) for p in p0]
            vs = [tj.constant(v) for v in v0]
            x, y = tj.constant(x0), tj.constant(y0)

        def hvp(params, vs, x, y):
            with tj.ForwardAccumulator(params, vs) as acc:
                with tj.GradientTape() as tape:
                    tape.watch(params)
                    lo = loss(B, params, x, y)
                g = tape.gradient(lo, params)
            return acc.jvp(g)
        fn = hvp if mode == "tapejax" else tj.function(hvp)
        return lambda: _block(fn(params, vs, x, y))
    if mode in ("jax.jit", "jax"):
        B = _JAX()
        params = [_place(device, p) for p in p0]
        vs = [_place(device, v) for v in v0]
        x, y = _place(device, x0), _place(device, y0)

        def hvp(params, vs):
            return jax.jvp(jax.grad(lambda ps: loss(B, ps, x, y)), (params,), (vs,))[1]
        fn = jax.jit(hvp) if mode == "jax.jit" else hvp
        return lambda: _block(fn(params, vs))
    if mode in ("tf", "tf.function"):
        tf, dev = _tf(device)
        B = _TF(tf)
        with tf.device(dev):
            params = [tf.constant(p) for p in p0]
            vs = [tf.constant(v) for v in v0]
            x, y = tf.constant(x0), tf.constant(y0)

        def hvp():
            with tf.autodiff.ForwardAccumulator(params, vs) as acc:
                with tf.GradientTape() as tape:
                    tape.watch(params)
                    lo = loss(B, params, x, y)
                g = tape.gradient(lo, params)
            return acc.jvp(g)
        fn = hvp if mode == "tf" else tf.function(hvp)
        return lambda: [t.numpy() for t in fn()]
    if mode == "torch":
        torch, dev = _torch(device)
        B = _Torch(torch)
        params = tuple(torch.tensor(p, device=dev) for p in p0)
        vs = tuple(torch.tensor(v, device=dev) for v in v0)
        x, y = torch.tensor(x0, device=dev), torch.tensor(y0, device=dev)
        from torch.func import grad, jvp

        def run():
            out = jvp(grad(lambda ps: loss(B, list(ps), x, y)), (params,), (vs,))[1]
            _torch_sync(torch, dev)
            return out
        return run
    raise NotApplicable(mode)


SCALES = {"small": 0.25, "default": 1.0, "large": 2.0}


class Workload:
    """A named workload: ``variants`` (each a separate row group), the modes that apply, and how to count
    its work (``ops``: ops per iteration, for a per-op time; None: per iteration)."""

    def __init__(self, name: str, title: str, build: Callable, modes: List[str], variants=("-",),
                 ops: Optional[Callable] = None, unit: str = "ms / iteration") -> None:
        self.name, self.title, self.build, self.modes, self.variants = name, title, build, modes, list(variants)
        self.ops, self.unit = ops, unit


def workloads(deep_sizes: List[int]) -> Dict[str, Workload]:
    ws = [
        Workload("chain", "op-overhead chain: 300 x tanh(x*1.01+0.1) on 16 floats, grad of sum (us per op)",
                 lambda m, v, s, d, st: build_chain(m, s, d), MODES,
                 ops=lambda v, s: 3 * {"small": 100, "default": 300, "large": 1000}[s]),
        Workload("mlp", "MLP train step (SGD on Variables)",
                 lambda m, v, s, d, st: build_train_step("mlp", m, s, d), MODES),
        Workload("cnn", "small CNN train step", lambda m, v, s, d, st: build_train_step("cnn", m, s, d), MODES),
        Workload("transformer", "transformer-block train step",
                 lambda m, v, s, d, st: build_train_step("transformer", m, s, d), MODES),
        Workload("fanout", "fan-out: one tensor used by 32 ops (peak pending gradient bytes)",
                 lambda m, v, s, d, st: build_fanout(m, v, s, d, st), ["tapejax", "jax.jit", "jax", "torch"],
                 variants=["early aggregation", "no early aggregation"]),
        Workload("deep", "deep chains: x = sin(x) n times on 16 floats, grad of sum (us per op)",
                 lambda m, v, s, d, st: build_deep(m, int(v.split()[0]), d), ["tapejax", "tf", "torch"],
                 variants=[f"{n} ops" for n in deep_sizes], ops=lambda v, s: int(v.split()[0])),
        Workload("jacobian", "Jacobian of tanh(W x), 256x256: vectorized (pfor) vs row loop",
                 lambda m, v, s, d, st: build_jacobian(m, v, s, d), MODES, variants=["pfor", "loop"]),
        Workload("hvp", "Hessian-vector product of an MLP loss (forward-over-reverse)",
                 lambda m, v, s, d, st: build_hvp(m, s, d), MODES),
    ]
    return {w.name: w for w in ws}
