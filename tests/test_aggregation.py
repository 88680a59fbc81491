"""Early aggregation of pending gradients (tape.h): thresholds in tj.config, stats on the tape."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy

FAN = 64
M = 65_536  # elements of x: 256 KiB per gradient
SIZE = M * 4
C_NP = np.linspace(0.5, 2.0, FAN).astype(np.float32)
X_NP = np.linspace(-1.0, 1.0, M).astype(np.float32)


def fan_out_gradient(x_np=X_NP):
    """x -> FAN products x*c_i -> a chain of adds -> sum. Returns (gradient, stats)."""
    x = tj.constant(x_np)
    cs = [tj.constant(float(c)) for c in C_NP]
    with tj.GradientTape() as tape:
        tape.watch(x)
        total = x * cs[0]
        for c in cs[1:]:
            total = total + x * c
        y = total.sum()
    g = tape.gradient(y, x)
    return g, tape.last_gradient_stats


def expected_gradient(x_np=X_NP):
    def f(x):
        total = x * C_NP[0]
        for c in C_NP[1:]:
            total = total + x * c
        return total.sum()
    return np.asarray(jax.grad(f)(jnp.asarray(x_np)))


def test_defaults_and_setters():
    cfg = tj.config
    assert cfg.aggregation_min_count == 4
    stats = jax.devices()[0].memory_stats()
    if not stats or not stats.get("bytes_limit"):
        assert cfg.aggregation_min_bytes == 128 * 1024 * 1024
    else:
        assert 0 < cfg.aggregation_min_bytes < stats["bytes_limit"]
    old_c, old_b = cfg.aggregation_min_count, cfg.aggregation_min_bytes
    try:
        cfg.aggregation_min_count = 7
        cfg.aggregation_min_bytes = 1234
        assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == (7, 1234)
        with pytest.raises(ValueError):
            cfg.aggregation_min_bytes = -1
    finally:
        cfg.aggregation_min_count, cfg.aggregation_min_bytes = old_c, old_b
    assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == (old_c, old_b)


def test_context_manager_sets_and_restores():
    cfg = tj.config
    before = (cfg.aggregation_min_count, cfg.aggregation_min_bytes)
    with cfg.aggregation(min_count=2, min_bytes=10):
        assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == (2, 10)
        with cfg.aggregation(min_bytes=99):
            assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == (2, 99)
        assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == (2, 10)
    assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == before
    with pytest.raises(RuntimeError):
        with cfg.aggregation(min_count=3):
            raise RuntimeError("boom")
    assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == before
    with pytest.raises(ValueError):
        with cfg.aggregation(min_count=-1):
            pass
    assert (cfg.aggregation_min_count, cfg.aggregation_min_bytes) == before


def test_fan_out_peak_with_and_without_aggregation():
    want = expected_gradient()
    threshold = 8 * SIZE
    with tj.config.aggregation(min_count=4, min_bytes=threshold):
        g_on, st_on = fan_out_gradient()
    with tj.config.aggregation(min_count=10 ** 9):
        g_off, st_off = fan_out_gradient()

    # same numbers either way
    np.testing.assert_allclose(g_on.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(g_off.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(g_on.numpy(), g_off.numpy(), rtol=1e-6)

    # ops run: FAN multiplies, FAN-1 adds, one sum; aggregation does not change what runs
    assert st_on.ops_run == 2 * FAN
    assert st_off.ops_run == 2 * FAN

    # disabled: all FAN contributions to dx wait at once
    assert st_off.peak_pending_bytes >= FAN * SIZE
    assert st_off.early_aggregations == 0
    # enabled: the pending bytes stay near the threshold (a few in-flight gradients on top)
    assert st_on.peak_pending_bytes <= threshold + 4 * SIZE, st_on
    assert st_on.peak_pending_bytes >= threshold  # the count rule did not fire too early
    assert st_on.early_aggregations > 0


def test_count_threshold_alone():
    with tj.config.aggregation(min_count=4, min_bytes=0):
        g, st = fan_out_gradient()
    np.testing.assert_allclose(g.numpy(), expected_gradient(), rtol=1e-6)
    # at most min_count + 1 gradients of x pending, plus a few in flight
    assert st.peak_pending_bytes <= (4 + 1 + 4) * SIZE, st
    assert st.early_aggregations >= FAN // 5


def test_bytes_threshold_blocks_aggregation():
    # many gradients, but their bytes stay below min_bytes: no early aggregation
    with tj.config.aggregation(min_count=1, min_bytes=FAN * SIZE * 2):
        g, st = fan_out_gradient()
    assert st.early_aggregations == 0
    assert st.peak_pending_bytes >= FAN * SIZE
    np.testing.assert_allclose(g.numpy(), expected_gradient(), rtol=1e-6)


def test_config_attributes_drive_the_tape():
    cfg = tj.config
    old = (cfg.aggregation_min_count, cfg.aggregation_min_bytes)
    try:
        cfg.aggregation_min_count = 4
        cfg.aggregation_min_bytes = 0
        _, st = fan_out_gradient()
        assert st.early_aggregations > 0
        assert st.peak_pending_bytes < FAN * SIZE / 4
    finally:
        cfg.aggregation_min_count, cfg.aggregation_min_bytes = old


def test_aggregation_under_outer_tape_second_derivative():
    # early aggregation while an outer tape records the backward pass: the sums are recorded too
    x_np = np.array([0.3, -0.7, 1.1], np.float32)
    cs = [tj.constant(float(c)) for c in C_NP[:16]]

    def f(x):
        total = x * x * C_NP[0]
        for c in C_NP[1:16]:
            total = total + x * x * c
        return jnp.sum(jnp.sin(total))
    with tj.config.aggregation(min_count=2, min_bytes=0):
        x = tj.constant(x_np)
        with tj.GradientTape() as outer:
            outer.watch(x)
            with tj.GradientTape() as inner:
                inner.watch(x)
                total = x * x * cs[0]
                for c in cs[1:]:
                    total = total + x * x * c
                y = tnp.sin(total).sum()
            g = inner.gradient(y, x)
            assert inner.last_gradient_stats.early_aggregations > 0
        h = outer.gradient(g, x)
    np.testing.assert_allclose(g.numpy(), np.asarray(jax.grad(f)(jnp.asarray(x_np))), rtol=1e-5)
    want_h = jax.grad(lambda u: jnp.sum(jax.grad(f)(u)))(jnp.asarray(x_np))
    np.testing.assert_allclose(h.numpy(), np.asarray(want_h), rtol=1e-4)


def test_peak_counts_real_bytes():
    # float16 gradients count 2 bytes per element
    x = tj.constant(np.ones(1000, np.float16))
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = (x * x).sum()
    tape.gradient(y, x)
    # the seed (2 bytes) and then dx (2000 bytes) and the d(x*x) (2000 bytes)
    assert 2000 <= tape.last_gradient_stats.peak_pending_bytes <= 3 * 2000
