"""VSpace across devices: run in a subprocess with 8 simulated CPU devices."""
import os
import subprocess
import sys
import textwrap
from conftest import xla_flags

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
    env = dict(os.environ, XLA_FLAGS=xla_flags("--xla_force_host_platform_device_count=8"), JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
