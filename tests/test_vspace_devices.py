"""VSpace across devices: run in a subprocess with 8 simulated CPU devices."""
import os
import subprocess
import sys
import textwrap
from conftest import xla_flags


def _run_on_8_devices(script: str) -> None:
    """Run ``script`` in a subprocess with 8 simulated CPU devices; it prints OK when its checks pass."""
    env = dict(os.environ, XLA_FLAGS=xla_flags("--xla_force_host_platform_device_count=8"), JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


SCRIPT = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import tapejax as tj
    from tapejax import vspace
    devs = jax.devices()
    assert len(devs) == 8, devs
    # Gradients living on different devices: summed per device first, then on the first placement.
    parts = [jax.device_put(jnp.full((4,), float(i), jnp.float32), devs[i % 3]) for i in range(6)]
    total = vspace.aggregate(parts)
    np.testing.assert_allclose(np.asarray(total), np.full((4,), 15.0))
    # ones-like / zeros-like keep the sharding of what they mirror.
    mesh = Mesh(np.array(devs), ("d",))
    sh = NamedSharding(mesh, P("d"))
    x = jax.device_put(jnp.arange(16, dtype=jnp.float32), sh)
    assert vspace.ones_like(x).sharding == sh
    assert vspace.zeros_like(x).sharding == sh
    # A gradient of a sharded source comes back with that sharding, with the right values.
    t = tj.constant(x)
    with tj.GradientTape() as tape:
        tape.watch(t)
        y = tj.numpy.sum(tj.numpy.tanh(t) * t)
    g = tape.gradient(y, t)
    expect = jax.grad(lambda a: jnp.sum(jnp.tanh(a) * a))(x)
    np.testing.assert_allclose(np.asarray(g.value), np.asarray(expect), rtol=1e-6)
    assert g.value.sharding.is_equivalent_to(sh, 1), g.value.sharding
    print("OK")
""")


def test_multi_device_aggregation_and_sharding():
    _run_on_8_devices(SCRIPT)


PLACEMENT_SCRIPT = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import tapejax as tj
    devs = jax.devices()
    mesh = Mesh(np.array(devs).reshape(4, 2), ("x", "y"))
    xy, rep = NamedSharding(mesh, P("x", "y")), NamedSharding(mesh, P())
    # Eager assignments keep the Variable where it is (TF: on its device). A host value moved a sharded Variable to
    # device 0, a value committed to device 2 moved it there (a later op with the mesh failed: incompatible devices),
    # and assign_add of such a value raised jax's incompatible-devices error.
    v = tj.Variable(jax.device_put(jnp.zeros((8, 4)), xy))
    v.assign(np.ones((8, 4), np.float32))
    assert v.value().value.sharding == xy
    v.assign(jax.device_put(jnp.full((8, 4), 2.0), devs[2]))
    assert v.value().value.sharding == xy
    v.assign_add(jax.device_put(jnp.ones((8, 4)), devs[2]))
    assert v.value().value.sharding == xy and float(v.numpy()[0, 0]) == 3.0
    w = tj.Variable(jax.device_put(jnp.zeros(4), devs[3]))
    w.assign(np.ones(4, np.float32))
    assert w.value().value.sharding.device_set == {devs[3]}
    # tj.function's write-back keeps a sharded Variable's sharding (XLA's propagation gave a replicated one the
    # sharding of the gradient that updated it, from the second call on).
    a = tj.Variable(jax.device_put(jnp.ones((8, 4)), xy))
    b = tj.Variable(jax.device_put(jnp.ones((4, 2)), rep))

    @tj.function
    def step(x):
        with tj.GradientTape() as tape:
            loss = tj.numpy.sum(tj.numpy.tanh(x @ a @ b))
        ga, gb = tape.gradient(loss, [a, b])
        a.assign_sub(0.1 * ga)
        b.assign_sub(0.1 * gb)
        return loss
    x = jax.device_put(jnp.ones((16, 8)), NamedSharding(mesh, P(None, "x")))
    for _ in range(3):
        step(x)
        assert a.value().value.sharding.is_equivalent_to(xy, 2), a.value().value.sharding
        assert b.value().value.sharding.is_equivalent_to(rep, 2), b.value().value.sharding
    print("OK")
""")


def test_variables_keep_their_placement_through_assignments():
    _run_on_8_devices(PLACEMENT_SCRIPT)


LIKE_SCRIPT = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import tapejax as tj
    tnp = tj.numpy
    sh = NamedSharding(Mesh(np.array(jax.devices()), ("d",)), P("d"))
    x = jax.device_put(jnp.arange(16, dtype=jnp.float32), sh)
    t, v = tj.constant(x), tj.Variable(x)
    for name in ("zeros_like", "ones_like", "empty_like"):
        f = getattr(tnp, name)
        assert getattr(jnp, name)(x).sharding == sh
        for a in (t, v):
            assert f(a).value.sharding == sh, (name, type(a), f(a).value.sharding)
        for lazy in (True, False):
            with tj.config.override(lazy=lazy):
                with tj.GradientTape() as tape:
                    tape.watch(t)
                    z = f(t)
                    s = tnp.sum(z * t)
                assert z.value.sharding == sh, (name, lazy)
                np.testing.assert_array_equal(np.asarray(tape.gradient(s, t).value), np.asarray(z.value))
    assert tnp.zeros_like(tj.constant([1.0, 2.0])).value.sharding.device_set == {jax.devices()[0]}
    print("OK")
""")


def test_zeros_like_and_ones_like_keep_the_sharding():
    # jnp.zeros_like / ones_like / empty_like of an array sharded over 8 devices keep its NamedSharding; tapejax's
    # (of a Tensor or a Variable, eagerly and under a tape) came back on one device: their jitted kernel's constant
    # output is placed by default.
    _run_on_8_devices(LIKE_SCRIPT)


FULL_LIKE_SCRIPT = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import tapejax as tj
    tnp = tj.numpy
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("a", "b"))
    sh, rep = NamedSharding(mesh, P("a", "b")), NamedSharding(mesh, P())
    x = jax.device_put(jnp.arange(32, dtype=jnp.float32).reshape(8, 4), sh)
    r = jax.device_put(jnp.arange(4, dtype=jnp.float32), rep)
    t, v, c = tj.constant(x), tj.Variable(x), tj.constant(3.0)
    one_device = jax.devices()[0]
    cases = [  # (jax.numpy's call on x or r, tapejax's on a, jax.numpy's placement as jax 0.10 gives it)
        (lambda a: jnp.full_like(a, jnp.float32(3.0)), lambda a: tnp.full_like(a, c), sh),
        (lambda a: jnp.full_like(a, jnp.float32(3.0), shape=(8, 4)), lambda a: tnp.full_like(a, c, shape=(8, 4)), sh),
        (lambda a: jnp.full_like(a, 3.0, shape=(8, 4)), lambda a: tnp.full_like(a, 3.0, shape=(8, 4)), sh),
        (lambda a: jnp.zeros_like(a, shape=(8, 4)), lambda a: tnp.zeros_like(a, shape=(8, 4)), sh),
        (lambda a: jnp.ones_like(a, shape=(8, 4)), lambda a: tnp.ones_like(a, shape=(8, 4)), sh),
        # another shape: only a replicated sharding is kept; a fill of several values is broadcast, not placed
        (lambda a: jnp.zeros_like(a, shape=(2,)), lambda a: tnp.zeros_like(a, shape=(2,)), None),
        (lambda a: jnp.full_like(a, jnp.arange(4.0)), lambda a: tnp.full_like(a, tj.constant(np.arange(4.0))), None),
    ]
    for i, (jf, tf_, expect) in enumerate(cases):
        got_jnp = jf(x).sharding
        assert (got_jnp.device_set == {one_device}) if expect is None else got_jnp == expect, (i, got_jnp)
        for a in (t, v, x):
            got = tf_(a).value.sharding
            assert got.is_equivalent_to(got_jnp, 2), (i, type(a), got, got_jnp)
    assert jnp.zeros_like(r, shape=(2, 3)).sharding == rep
    assert tnp.zeros_like(tj.constant(r), shape=(2, 3)).value.sharding == rep
    # the fill keeps its gradient (the sum of the upstream gradient, TF's tf.fill)
    with tj.GradientTape() as tape:
        tape.watch(c)
        y = tnp.full_like(t, c)
        s = tnp.sum(y * t)
    assert y.value.sharding == sh and float(tape.gradient(s, c)) == 496.0
    print("OK")
""")


def test_full_like_and_a_given_shape_keep_the_sharding():
    # jnp.full_like of an array sharded over 8 devices keeps its NamedSharding with a scalar fill, also a jax array
    # one; so do zeros_like / ones_like / full_like given shape= a's shape (or any shape where a is replicated).
    # tapejax's came back on one device for a Tensor fill (full_like(t, tj.constant(3.))) and for any shape= given.
    _run_on_8_devices(FULL_LIKE_SCRIPT)
