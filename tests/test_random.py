"""tj.random: stateless ops equal jax.random's; TF's gradients (minval/maxval/mean/stddev yes, key/logits
no); a Generator never returns the same numbers twice, eagerly, inside tj.function and in replayed steps."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import replay

tnp = tj.numpy


def test_stateless_ops_equal_jax_random():
    k = tj.random.key(7)
    jk = jax.random.key(7)
    np.testing.assert_array_equal(tj.random.normal(k, (3, 2)).numpy(), jax.random.normal(jk, (3, 2)))
    assert tj.random.normal(k, (2,), jnp.float16).dtype == jnp.float16
    np.testing.assert_array_equal(tj.random.uniform(k, (5,)).numpy(), jax.random.uniform(jk, (5,)))
    np.testing.assert_allclose(tj.random.uniform(k, (5,), minval=-2.0, maxval=3.0).numpy(),
                               jax.random.uniform(jk, (5,), minval=-2.0, maxval=3.0), rtol=1e-6, atol=1e-6)
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
    np.testing.assert_array_equal(tj.random.categorical(k, logits).numpy(), jax.random.categorical(jk, logits))
    np.testing.assert_array_equal(tj.random.categorical(k, logits[0], shape=(4,)).numpy(),
                                  jax.random.categorical(jk, logits[0], shape=(4,)))
    np.testing.assert_array_equal(tj.random.bernoulli(k, 0.3, (6,)).numpy(), jax.random.bernoulli(jk, 0.3, (6,)))
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(tj.random.permutation(k, x).numpy(), jax.random.permutation(jk, x))
    np.testing.assert_array_equal(tj.random.shuffle(k, x).numpy(), jax.random.permutation(jk, x))
    np.testing.assert_array_equal(tj.random.permutation(k, 6).numpy(), jax.random.permutation(jk, 6))
    keys = tj.random.split(k, 3)
    assert keys.shape == (3,)
    np.testing.assert_array_equal(jax.random.key_data(keys), jax.random.key_data(jax.random.split(jk, 3)))
    np.testing.assert_array_equal(jax.random.key_data(tj.random.fold_in(k, 3)),
                                  jax.random.key_data(jax.random.fold_in(jk, 3)))
    # a raw uint32 key (jax.random.PRNGKey) and a key inside a Tensor work too
    raw = jax.random.PRNGKey(1)
    np.testing.assert_array_equal(tj.random.normal(tj.Tensor(raw), (2,)).numpy(), jax.random.normal(raw, (2,)))


def test_gradients_follow_tf():
    k = tj.random.key(0)
    lo, hi = tj.constant(-1.0), tj.constant(2.0)
    logits = tj.constant(np.zeros((2, 3), np.float32))
    p = tj.constant(0.4)
    with tj.GradientTape(persistent=True) as t:
        t.watch([lo, hi, logits, p])
        u = tj.random.uniform(k, (4,), minval=lo, maxval=hi)
        c = tj.random.categorical(k, logits)
        b = tj.random.bernoulli(k, p, (3,))
        y = tnp.sum(u)
    base = jax.random.uniform(jax.random.key(0), (4,))
    # TF builds uniform as u * (maxval - minval) + minval: the reparameterization gradient
    np.testing.assert_allclose(t.gradient(y, hi).numpy(), np.sum(base), rtol=1e-5)
    np.testing.assert_allclose(t.gradient(y, lo).numpy(), np.sum(1 - base), rtol=1e-5)
    # categorical's logits (TF's Multinomial) and bernoulli's p: no gradient
    assert c.dtype == jnp.int32 and b.dtype == jnp.bool_
    assert t.gradient(c, logits) is None
    assert t.gradient(b, p) is None
    # Generator.normal: z * stddev + mean, differentiable in mean and stddev
    g = tj.random.Generator.from_seed(3)
    z = tj.random.Generator.from_seed(3).normal((5,)).numpy()
    mean, std = tj.constant(1.0), tj.constant(2.0)
    with tj.GradientTape() as t2:
        t2.watch([mean, std])
        y = tnp.sum(g.normal((5,), mean=mean, stddev=std))
    dm, ds = t2.gradient(y, [mean, std])
    np.testing.assert_allclose([dm.numpy(), ds.numpy()], [5.0, np.sum(z)], rtol=1e-5)
    # permutation is a gather: its gradient puts each cotangent back where its row came from
    x = tj.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    w = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    with tj.GradientTape() as t3:
        t3.watch(x)
        y = tnp.sum(tj.random.permutation(k, x) * w)
    perm = np.asarray(jax.random.permutation(jax.random.key(0), 3))
    want = np.zeros_like(w)
    want[perm] = w
    np.testing.assert_array_equal(t3.gradient(y, x).numpy(), want)


def test_generator_never_repeats_and_is_reproducible():
    g = tj.random.Generator.from_seed(42)
    draws = [g.normal((8,)).numpy() for _ in range(5)] + [g.uniform((8,)).numpy() for _ in range(5)]
    flat = np.stack(draws)
    assert len({row.tobytes() for row in flat}) == len(draws)
    again = tj.random.Generator.from_seed(42)
    np.testing.assert_array_equal(again.normal((8,)).numpy(), draws[0])
    u = g.uniform((1000,), minval=2.0, maxval=4.0).numpy()
    assert u.min() >= 2.0 and u.max() < 4.0 and abs(u.mean() - 3.0) < 0.1
    ints = g.uniform((1000,), minval=0, maxval=5, dtype=jnp.int32).numpy()
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {0, 1, 2, 3, 4}
    n = g.normal((4000,), mean=1.0, stddev=3.0).numpy()
    assert abs(n.mean() - 1.0) < 0.2 and abs(n.std() - 3.0) < 0.2
    # split: independent streams, different from the parent's and from each other's
    a, b = g.split(2)
    xa, xb, xg = a.normal((6,)).numpy(), b.normal((6,)).numpy(), g.normal((6,)).numpy()
    assert not np.array_equal(xa, xb) and not np.array_equal(xa, xg) and not np.array_equal(xb, xg)
    assert isinstance(g.state, tj.Variable) and not g.state.trainable
    with pytest.raises(ValueError, match="maxval"):
        g.uniform((2,), dtype=jnp.int32)
    with pytest.raises(TypeError, match="tj.random.key"):
        tj.random.normal(3, (2,))
    with pytest.raises(TypeError, match="float dtype"):
        tj.random.uniform(tj.random.key(0), (2,), jnp.int32)


def test_generator_inside_function_draws_anew_each_call():
    g = tj.random.Generator.from_seed(5)
    ref = tj.random.Generator.from_seed(5)

    @tj.function
    def step(x):
        return x + g.normal((3,)), g.uniform((2,))

    outs = [step(tj.constant(np.zeros(3, np.float32))) for _ in range(4)]
    for n, u in outs:  # the same stream as eager draws from the same seed, one call after another
        np.testing.assert_allclose(n.numpy(), ref.normal((3,)).numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(u.numpy(), ref.uniform((2,)).numpy(), rtol=1e-6, atol=1e-6)
    assert len({n.numpy().tobytes() for n, _ in outs}) == 4
    np.testing.assert_array_equal(g.state.numpy(), ref.state.numpy())  # the state was written back
    assert "(1 traced signatures)" in repr(step)  # one trace: the state is an input, not a constant baked in

    @tj.function
    def make():  # new generators (Variables) on every call: TF's ValueError, raised at the first call
        return g.split(2)
    with pytest.raises(ValueError, match="singleton"):
        make()

    @tj.function
    def stateless(k, x):  # a key as an argument of a tj.function
        return x + tj.random.normal(k, (3,))
    np.testing.assert_array_equal(stateless(tj.random.key(4), tj.constant(np.zeros(3, np.float32))).numpy(),
                                  jax.random.normal(jax.random.key(4), (3,)))


def test_generator_in_a_replayed_step_draws_anew_each_step(replay_now):
    g = tj.random.Generator.from_seed(11)
    ref = tj.random.Generator.from_seed(11)
    w = tj.Variable(np.ones(4, np.float32))
    grads, hows = [], []
    for _ in range(tj.config.replay_warmup + 4):
        with tj.GradientTape() as t:
            noise = g.normal((4,))
            keep = g.uniform((4,))
            y = tnp.sum(tnp.tanh(w * noise) * keep)
        grads.append(t.gradient(y, w).numpy())
        replay.wait()
        hows.append(t.last_replay)
        n, k = ref.normal((4,)).numpy(), ref.uniform((4,)).numpy()
        want = (1 - np.tanh(n) ** 2) * n * k  # d/dw at w = 1, with this step's draws
        np.testing.assert_allclose(grads[-1], want, rtol=1e-5, atol=1e-6)
    assert all("replayed" in h for h in hows[tj.config.replay_warmup:]), hows
    assert len({x.tobytes() for x in grads}) == len(grads)


def test_parameterized_truncated_normal_gradients_stay_finite_in_tails_and_at_infinite_bounds():
    # the tail sampler's unused branch (erf_inv at 1) and an infinite bound ((inf - mean) / stddev) once made the
    # gradients NaN; the bounds' against central differences of the same draws (the same seed: the same uniforms),
    # the mean's and stddev's TF's (1 per draw, the standardized draw: the standardized bounds held fixed)
    for lo_v, hi_v in [(6.0, 8.0), (-8.0, -6.0), (4.0, np.inf), (-np.inf, -4.0), (-np.inf, np.inf), (-1.0, 1.0)]:
        params = [tj.Variable(v) for v in (0.5, 1.5, lo_v, hi_v)]
        with tj.GradientTape() as tape:
            x = tj.random.stateless_parameterized_truncated_normal([3], [1, 2], *params)
            total_x = tnp.sum(x)
        grads = tape.gradient(total_x, params)
        np.testing.assert_allclose(grads[0].numpy(), 3.0)
        np.testing.assert_allclose(grads[1].numpy(), np.sum((x.numpy() - 0.5) / 1.5), rtol=1e-5)
        for k, (p, g) in enumerate(zip(params, grads)):
            if k < 2:
                continue
            if not np.isfinite(p.numpy()):  # (an infinite bound: no effect on the draws)
                assert g is None or g.numpy() == 0.0, (lo_v, hi_v, k)
                continue
            assert np.isfinite(g.numpy()), (lo_v, hi_v, k)
            h = 1e-2

            def total(v, k=k):
                vals = [q.numpy() for q in params]
                vals[k] = v
                return float(tnp.sum(tj.random.stateless_parameterized_truncated_normal([3], [1, 2], *vals)))
            numeric = (total(p.numpy() + h) - total(p.numpy() - h)) / (2 * h)
            np.testing.assert_allclose(g.numpy(), numeric, rtol=5e-2, atol=5e-3, err_msg=str((lo_v, hi_v, k)))


def test_jax_style_uniform_and_permutation_as_jax_random():
    """jax.random's values for the same key: uniform never goes below minval (jax clamps with max(minval, .):
    maxval < minval gives minval everywhere, where tapejax extrapolated), bounds that do not broadcast to
    ``shape`` raise TypeError (tapejax returned their larger shape); permutation of a 0-d integer array or
    Tensor permutes range(n) (it crashed inside jax on a traced value)."""
    k = jax.random.key(0)
    for lo, hi in ((2.0, 1.0), (-1.0, 3.0), (np.array([0.0, 1.0, 2.0], np.float32), 5.0)):
        np.testing.assert_array_equal(tj.random.uniform(k, (3,), minval=lo, maxval=hi).numpy(),
                                      jax.random.uniform(k, (3,), minval=lo, maxval=hi))
    with pytest.raises(TypeError, match="broadcast to shape"):
        tj.random.uniform(k, (3,), minval=tj.numpy.zeros((2, 3)))
    lo = tj.constant(1.0)
    with tj.GradientTape() as tape:
        tape.watch(lo)
        y = tj.random.uniform(k, (3,), minval=lo, maxval=4.0)
    np.testing.assert_allclose(tape.gradient(y, lo).numpy(),
                               jax.grad(lambda m: jax.random.uniform(k, (3,), minval=m, maxval=4.0).sum())(1.0),
                               rtol=1e-6)
    for n in (jnp.array(4), np.array(4), tj.constant(4)):
        np.testing.assert_array_equal(tj.random.permutation(k, n).numpy(), jax.random.permutation(k, 4))
    with pytest.raises(TypeError, match="integer or at least 1-dimensional"):
        tj.random.permutation(k, tj.constant(4.0))
