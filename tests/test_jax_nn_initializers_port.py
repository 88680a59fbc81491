"""JAX's tests of jax.nn.initializers (tests/nn_test.py in jax-ml/jax, class NNInitializersTest) ported to
tj.nn.initializers, with what tapejax adds: Tensors out, tj keys in, draws inside tj.function and in Modules.

Every draw is compared with jax.nn.initializers' on the same key: bit for bit against the jitted jax initializer
(tj compiles each draw; jax's eager draw may round its final multiply differently by 1 ulp), shapes and dtypes as
JAX's test asserts them.

Ported: testInitializer and testInitializerProvider (every initializer record, each of its dtypes on a shape of its
range, smallest to largest; the provider form, the dtype given to the factory, on the first of each record),
testInitializerOrthogonalZeroSize (float32), testVarianceScalingMultiAxis, testVarianceScalingBatchAxis,
testVarianceScalingError. Left out: TPU tolerances (none here).

A difference, decided: a draw has no gradient (one op, not differentiable, as tj.random's draws), so
``constant(value)``'s result carries none back to ``value`` (jax's jnp.full would).
"""
from __future__ import annotations

import functools
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
import tapejax.numpy as tnp
from tapejax.nn import initializers as tinit

jinit = jax.nn.initializers

ALL_SHAPES = [(), (2,), (2, 2), (2, 3), (3, 2), (2, 3, 4), (4, 3, 2), (2, 3, 4, 5)]
FLOATING = [np.float32, jnp.bfloat16, np.float16]
INEXACT = FLOATING + [np.complex64]


def _record(name, make, dtypes, min_dims=2, max_dims=4):
    """pytest params (maker of (tj factory, jax factory), shape, dtype, whether to check the provider form too):
    as many shapes of the range as the record has dtypes, spread from its smallest to its largest, each with the
    next dtype; the provider form on the first (each case compiles its own kernels: the suite's time)."""
    shapes = [s for s in ALL_SHAPES if min_dims <= len(s) <= max_dims]
    n = min(len(shapes), len(dtypes))
    picked = [shapes[round(i * (len(shapes) - 1) / max(n - 1, 1))] for i in range(n)]
    return [pytest.param(make, shape, dtype, i == 0, id=f"{name}-{shape}-{np.dtype(dtype)}")
            for i, (shape, dtype) in enumerate(zip(picked, dtypes))]


def _factories(name, *args, **kwargs):
    return lambda **kw: (getattr(tinit, name)(*args, **kwargs, **kw), getattr(jinit, name)(*args, **kwargs, **kw))


RECORDS = [
    *_record("uniform", _factories("uniform"), FLOATING, 1),
    *_record("normal", _factories("normal"), INEXACT, 1),
    *_record("he_normal", _factories("he_normal"), INEXACT),
    *_record("he_uniform", _factories("he_uniform"), INEXACT),
    *_record("glorot_normal", _factories("glorot_normal"), INEXACT),
    *_record("glorot_uniform", _factories("glorot_uniform"), INEXACT),
    *_record("lecun_normal", _factories("lecun_normal"), INEXACT),
    *_record("lecun_uniform", _factories("lecun_uniform"), INEXACT),
    *_record("orthogonal", _factories("orthogonal"), [np.float32], 2, 2),  # (QR: no LAPACK kernel for 16 bits)
    *_record("truncated_normal", _factories("truncated_normal"), FLOATING, 1),
    *_record("delta_orthogonal", _factories("delta_orthogonal"), [np.float32], 4, 4),
    *_record("vs_fan_geo_avg", _factories("variance_scaling", 1, "fan_geo_avg", "normal"), FLOATING),
    *_record("vs_fan_in_in", _factories("variance_scaling", 1, "fan_in", "normal", in_axis=[0], out_axis=[]),
             FLOATING, 1),
    *_record("vs_fan_in_out", _factories("variance_scaling", 1, "fan_in", "normal", in_axis=[], out_axis=[0]),
             FLOATING, 1),
    *_record("vs_fan_in_none", _factories("variance_scaling", 1, "fan_in", "normal", in_axis=[], out_axis=[]),
             FLOATING, 0),
]


@functools.lru_cache(maxsize=None)
def _jitted(init, shape, dtype):
    return jax.jit(lambda k: init(k, shape, dtype))


def _same(t, want):
    assert isinstance(t, tj.Tensor) and isinstance(t.value, jax.Array)
    assert t.shape == want.shape and t.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(t.value), np.asarray(want))


@pytest.mark.parametrize("make, shape, dtype, provider", RECORDS)
def test_initializer_and_provider(make, shape, dtype, provider):
    # testInitializer: init(key, shape, dtype); testInitializerProvider: factory(dtype=dtype)(key, shape)
    key = jax.random.key(0)
    t_init, j_init = make()
    got = t_init(tj.random.key(0), shape, dtype)
    assert got.shape == shape and got.dtype == jax.dtypes.canonicalize_dtype(dtype)
    _same(got, _jitted(j_init, shape, dtype)(key))
    if provider:
        t_prov, _ = make(dtype=dtype)
        _same(t_prov(key, shape), got)


@pytest.mark.parametrize("rows, cols", [(0, 0), (0, 3), (1, 3), (2, 2), (3, 1), (3, 2), (3, 0)])
def test_orthogonal_zero_size(rows, cols):
    # testInitializerOrthogonalZeroSize (float32)
    val = tinit.orthogonal()(tj.random.key(0), (rows, cols), np.float32)
    assert val.shape == (rows, cols) and val.dtype == np.float32
    v = val.numpy()
    if rows <= cols:
        np.testing.assert_allclose(v @ v.T, np.eye(rows), atol=1e-6)
    if cols <= rows:
        np.testing.assert_allclose(v.T @ v, np.eye(cols), atol=1e-6)


@pytest.mark.parametrize("axes", [dict(in_axis=(0, 1), out_axis=(-2, -1)),
                                  dict(in_axis=0, out_axis=(2, 3), batch_axis=1)], ids=["multi_axis", "batch_axis"])
def test_variance_scaling_axes(axes):
    # testVarianceScalingMultiAxis / testVarianceScalingBatchAxis, with jax's values
    args = dict(scale=1.0, mode="fan_avg", distribution="truncated_normal", **axes)
    got = tinit.variance_scaling(**args)(tj.random.key(0), (2, 3, 4, 5))
    _same(got, _jitted(jinit.variance_scaling(**args), (2, 3, 4, 5), None)(jax.random.key(0)))


def test_variance_scaling_error():
    # testVarianceScalingError: jax's ValueError and words, named for tj
    init = tinit.variance_scaling(scale=1.0, mode="fan_avg", distribution="truncated_normal")
    with pytest.raises(ValueError, match="tj.nn.initializers.variance_scaling for shape \\(5,\\): Can't compute input "
                                         "and output sizes of a 1-dimensional weights tensor with default in_axis. "
                                         "Must be at least 2D or specify in_axis explicitly."):
        init(tj.random.key(0), (5,))
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: fan_x"):
        tinit.variance_scaling(1.0, "fan_x", "normal")(tj.random.key(0), (2, 2))


def test_names_signatures_and_aliases():
    public = {n for n in dir(jinit) if not n.startswith("_")}
    assert set(dir(tinit)) == public
    assert tj.nn.initializers is tinit and "initializers" in dir(tj.nn)
    assert tinit.xavier_normal is tinit.glorot_normal and tinit.kaiming_uniform is tinit.he_uniform
    for name in public - {"Initializer", "zeros", "ones", "constant"}:
        assert inspect.signature(getattr(tinit, name)) == inspect.signature(getattr(jinit, name)), name
    assert [*inspect.signature(tinit.zeros).parameters] == [*inspect.signature(jinit.zeros).parameters]
    assert isinstance(tinit.glorot_normal(), tinit.Initializer)


def test_zeros_ones_constant():
    key = tj.random.key(1)
    _same(tinit.zeros(key, (2, 3)), jnp.zeros((2, 3)))
    _same(tinit.ones(key, [3], jnp.int32), jnp.ones(3, jnp.int32))
    # constant's value: a list, an array, a Tensor or a Variable (its value now), broadcast to the shape
    _same(tinit.constant([1.0, 2.0])(key, (3, 2)), jinit.constant(jnp.array([1.0, 2.0]))(jax.random.key(1), (3, 2)))
    _same(tinit.constant(tj.constant(3), dtype=jnp.float16)(key, (2,)), jnp.full(2, 3, jnp.float16))
    v = tj.Variable([1.0, -1.0])
    init = tinit.constant(v)
    v.assign([5.0, 5.0])
    _same(init(key, (1, 2)), jnp.array([[1.0, -1.0]]))


def test_keys_of_every_kind():
    # a tj key, a jax key, a Tensor or Variable holding one, and a legacy uint32 PRNGKey where jax allows it
    want = _jitted(jinit.lecun_normal(), (3, 4), None)(jax.random.key(7))
    init = tinit.lecun_normal()
    for k in (tj.random.key(7), jax.random.key(7), tj.constant(jax.random.key(7)), tj.Variable(jax.random.key(7))):
        _same(init(k, (3, 4)), want)
    with jax.legacy_prng_key("allow"):
        raw = jax.random.PRNGKey(7)
        _same(init(raw, (3, 4)), _jitted(jinit.lecun_normal(), (3, 4), None)(raw))
    with pytest.raises(TypeError, match="tj.nn.initializers.lecun_normal: expected a key from tj.random.key"):
        init(7, (3, 4))


def test_bad_shapes_and_dtypes():
    init = tinit.glorot_uniform()
    with pytest.raises(ValueError, match="glorot_uniform: shape must not have negative dimensions"):
        init(tj.random.key(0), (2, -1))
    with pytest.raises(TypeError, match="glorot_uniform: shape must be a tuple of Python ints"):
        init(tj.random.key(0), (2.0, 3))
    with pytest.raises((TypeError, ValueError), match="tj.nn.initializers.normal for shape \\(2,\\):"):
        tinit.normal()(tj.random.key(0), (2,), jnp.int32)  # (jax: normal draws need a float or complex dtype)


def test_inside_tj_function_and_no_gradient():
    init = tinit.he_normal()
    f = tj.function(lambda key, x: init(key, (2, 2)) * x)
    want = _jitted(jinit.he_normal(), (2, 2), None)(jax.random.key(3))
    x = tj.constant(2.0)
    np.testing.assert_array_equal(f(tj.random.key(3), x).numpy(), np.asarray(want) * 2)
    c = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        y = tnp.sum(init(tj.random.key(3), (2, 2)) * x)
        z = tnp.sum(tinit.constant(c)(tj.random.key(3), (2, 2)))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.sum(np.asarray(want)), rtol=1e-6)
    assert tape.gradient(z, c) is None  # (a draw: no gradient, see the docstring)


def test_module_built_on_first_call_of_a_tj_function():
    # Keras's pattern: a layer makes its Variables, from an initializer, on the first (traced) call
    class Dense(tj.Module):
        def __init__(self, units):
            super().__init__()
            self.units, self.w = units, None

        @tj.function
        def __call__(self, x):
            if self.w is None:
                self.w = tj.Variable(tinit.glorot_uniform()(tj.random.key(0), (x.shape[-1], self.units)))
            return x @ self.w

    layer = Dense(3)
    x = tj.constant(np.ones((2, 4), np.float32))
    want = np.asarray(_jitted(jinit.glorot_uniform(), (4, 3), None)(jax.random.key(0)))
    np.testing.assert_allclose(layer(x).numpy(), np.ones((2, 4)) @ want, rtol=1e-6)
    np.testing.assert_array_equal(layer.w.numpy(), want)
    assert layer.trainable_variables == (layer.w,)


def test_a_new_factory_with_the_same_arguments_compiles_nothing():
    # a model making glorot_uniform() per layer: the second layer's draw of a shape already drawn reuses the kernel
    events = []

    def listen(name, duration, **kwargs):
        events.append(name)

    tinit.glorot_uniform()(tj.random.key(0), (3, 5))
    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        tinit.glorot_uniform()(tj.random.key(1), (3, 5))
        assert events == []
        tinit.glorot_uniform(in_axis=0)(tj.random.key(1), (3, 5))  # (other arguments: its own kernel)
        assert "/jax/core/compile/jaxpr_trace_duration" in events
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)


def test_array_arguments_of_a_factory_are_operands():
    # a Tensor (also a traced one, inside tj.function) for a factory's number: jax's initializer takes tracers
    # there too; a new value compiles nothing new
    want = lambda s: _jitted(jinit.normal(s), (3,), None)(jax.random.key(0))  # noqa: E731
    f = tj.function(lambda s: tinit.normal(s)(tj.random.key(0), (3,)))
    np.testing.assert_allclose(f(tj.constant(2.0)).numpy(), np.asarray(want(2.0)), rtol=1e-6)
    _same(tinit.normal(tj.constant(2.0))(tj.random.key(0), (3,)), want(2.0))
    events = []

    def listen(name, duration, **kwargs):
        events.append(name)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        got = tinit.normal(tj.constant(3.0))(tj.random.key(0), (3,))
        assert events == []
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    _same(got, want(3.0))
    lo = tinit.truncated_normal(1.0, lower=tj.constant(-0.5))(tj.random.key(2), (50,)).numpy()
    assert lo.min() >= -0.5 and lo.max() <= 2.0
