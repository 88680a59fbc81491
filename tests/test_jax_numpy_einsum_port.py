"""JAX's einsum tests (what earlier ports left), ported to tj.numpy.einsum / tj.numpy.einsum_path.

Source: jax-ml/jax tests/lax_numpy_einsum_test.py (EinsumTest, 42 methods), run against the installed jax 0.10.2
and NumPy 2.4. ``jnp.einsum`` / ``jnp.einsum_path`` -> ``tj.numpy.einsum`` / ``tj.numpy.einsum_path`` (same names
and signatures). Values: NumPy's (the test's own reference, ``np.einsum``) computed at test time, and jax.numpy's
result on the same inputs, whose shape and dtype tj must give (x64 off: JAX's float64 ``randn`` inputs give float32
results, and tj must do the same). ``_CompileAndCheck`` -> the same call inside ``tj.function`` against eager.
Gradients (JAX's file has none; asked for here): ``tape.gradient`` with a random output gradient against
``jax.vjp`` of the jax.numpy call, ``ForwardAccumulator`` against ``jax.jvp``; complex ones with TF's conjugate
convention (API.md: the tape's gradient for output gradient g is conj of jax's cotangent map applied to conj(g)).

Already ported elsewhere, so not repeated here (only what they left out is added):
  * test_tf_unported_np_einsum_port.py (TF's copy of this file): test_three_operands_1/2, test_two_operands_1..6,
    test_one_operand_1..16, test_tf_unsupported_1..3, test_from_dask (float32/int32/complex64),
    test_ordered_front_batch_dim_case, test_einsum_kpmurphy_example (with optimize='optimal': tj then had no
    einsum_path), test_contraction_broadcasting, test_batch_broadcasting, test_batch_and_contraction_broadcasting,
    test_broadcasting_issue_2189; all against NumPy without ``precision``.
  * test_jax_numpy_misc_port.py: test_from_dask for bool, test_inf_nan, test_preferred_element_type (bfloat16),
    test_einsum_mixed_precision, test_einsum_optimization_modes, test_einsum_path_optimization_modes,
    test_einsum_unsupported_optimization.
Added here from JAX's methods:
  * the named cases' ``_check`` as JAX writes it: ``precision=lax.Precision.HIGHEST`` and JAX's float64 inputs
    (one case from each group of methods; the precision argument in each form the installed jax accepts);
  * test_einsum_path: ``tj.numpy.einsum_path`` (added since) gives NumPy's greedy path and the description whose
    first line the test checks; its second example (a 10**4-element operand) runs;
  * test_einsum_kpmurphy_example as JAX writes it: under ``jax.default_matmul_precision('float32')``, the path from
    ``einsum_path(optimize='optimal')`` given back to ``einsum(optimize=path)``, against the test's explicit loop;
  * test_preferred_element_type's dtype rule on int8 / bool / float16 operands (its jaxpr half left out).
Plus: gradients of representative subscripts, errors of bad subscripts and bad arguments (jax.numpy's class), and one
program of all of einsum's options under tj.function.

Left out: test_no_unnecessary_transpose (jaxpr inspection, JAX-internal); the jaxpr halves of
test_preferred_element_type / test_einsum_mixed_precision (same reason).

Sanctioned differences (API.md): einsum's operands may be Python lists (tj converts them, API.md "everywhere a Tensor
is accepted"; jax.numpy raises TypeError); tj's errors name tj.numpy and the op's arguments rather than repeating
jax's message, so only the class is compared. No difference from jax.numpy was found.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import tapejax as tj
from conftest import jax_raises

tnp = tj.numpy


def _randn(*shapes, seed=0, dtype=None):
    r = np.random.RandomState(seed)
    out = [np.asarray(r.randn(*s)) for s in shapes]
    return [o.astype(dtype) for o in out] if dtype else out


def _agrees(got, s, ops, want_np, rtol=1e-4, atol=1e-4, **kw):
    """``got`` has jax.numpy's shape and dtype for ``einsum(s, *ops, **kw)`` and NumPy's values (JAX's _check
    tolerances)."""
    want_jax = jnp.einsum(s, *ops, **kw)
    assert isinstance(got, tj.Tensor)
    assert (got.shape, got.dtype) == (want_jax.shape, want_jax.dtype), (s, got.shape, got.dtype, want_jax.dtype)
    np.testing.assert_allclose(np.asarray(want_jax), want_np, rtol=rtol, atol=atol, err_msg=s)  # (jax vs NumPy)
    np.testing.assert_allclose(got.numpy(), want_np, rtol=rtol, atol=atol, err_msg=s)


# one case from each group of JAX's named methods, each with another form of `precision` jax.numpy accepts
NAMED = [
    ("three_operands_1", "i,j,k->ijk", [(3,), (4,), (5,)], lax.Precision.HIGHEST),
    ("two_operands_3", "iji,i->j", [(3, 4, 3), (3,)], "highest"),
    ("one_operand_13", "iijkk->i", [(3, 3, 5, 4, 4)], lax.Precision.HIGHEST),
    ("tf_unsupported_1", "ij...,jk...->ik...", [(2, 3, 5, 1), (3, 4, 5, 1)], ("highest", "default")),
    ("batch_and_contraction_broadcasting", "cij,cjk->cik", [(1, 4, 5), (3, 1, 6)],
     (lax.Precision.HIGH, lax.Precision.DEFAULT)),
    ("broadcasting_issue_2189", "...ij,...j", [(2, 1, 3, 3), (2, 4, 3)], lax.DotAlgorithmPreset.F32_F32_F32),
]


@pytest.mark.parametrize("name, s, shapes, precision", NAMED, ids=[c[0] for c in NAMED])
def test_named_case_with_precision(name, s, shapes, precision):
    # JAX's _check: float64 randn operands (float32 with x64 off, as jax.numpy) and an explicit precision
    ops = _randn(*shapes)
    _agrees(tnp.einsum(s, *ops, precision=precision), s, ops, np.einsum(s, *ops), precision=precision)


def test_einsum_path():
    # np.einsum_path's docstring example: NumPy's greedy path, and its description's first line
    a, b, c = _randn((2, 2), (2, 5), (5, 2))
    path, info = tnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
    np_path = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0]
    assert np_path == ["einsum_path", (1, 2), (0, 1)]
    assert path == np_path[1:] == jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0]
    assert str(info).split("\n")[0] == "  Complete contraction:  ij,jk,kl->il"
    # the second example (only shapes are read, so the large operand costs nothing)
    big, cm = _randn((10, 10, 10, 10), (10, 10), seed=1)
    s = "ea,fb,abcd,gc,hd->efgh"
    path, _ = tnp.einsum_path(s, cm, cm, tj.constant(big.astype(np.float32)), cm, tj.Variable(cm.astype(np.float32)),
                              optimize="greedy")
    assert path == np.einsum_path(s, cm, cm, big, cm, cm, optimize="greedy")[0][1:]


def test_einsum_kpmurphy_example():
    n_, c_, d_, k_, t_ = 2, 3, 4, 5, 6
    s_, w_, v_ = _randn((n_, t_, k_), (k_, d_), (d_, c_), seed=2)
    want = np.zeros((n_, c_))
    for n in range(n_):
        for c in range(c_):
            want[n, c] = sum(s_[n, t, k] * w_[k, d] * v_[d, c] for d in range(d_) for k in range(k_) for t in range(t_))
    with jax.default_matmul_precision("float32"):
        path = tnp.einsum_path("ntk,kd,dc->nc", s_, w_, v_, optimize="optimal")[0]
        assert path == jnp.einsum_path("ntk,kd,dc->nc", s_, w_, v_, optimize="optimal")[0]
        got = tnp.einsum("ntk,kd,dc->nc", s_, w_, v_, optimize=path)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


PREFERRED = [  # (operand dtype, preferred_element_type): the result has jax.numpy's dtype (the preferred one)
    (np.int8, np.int32), (np.bool_, "int32"), (np.float16, jnp.float32), (np.int8, np.float32)]


@pytest.mark.parametrize("dtype, pet", PREFERRED, ids=[f"{np.dtype(d).name}-{np.dtype(p).name}" for d, p in PREFERRED])
def test_preferred_element_type(dtype, pet):
    x, y = _randn((3, 4), (4,), seed=3)
    x, y = ((x > 0, y > 0) if dtype == np.bool_ else (np.round(3 * x).astype(dtype), np.round(3 * y).astype(dtype)))
    got = tnp.einsum("ij,j->i", x, y, preferred_element_type=pet)
    assert got.dtype == np.dtype(pet) == jnp.einsum("ij,j->i", x, y, preferred_element_type=pet).dtype
    # the products are small integers, so the sums are exact in each preferred dtype
    np.testing.assert_array_equal(got.numpy(), np.einsum("ij,j->i", x.astype(pet), y.astype(pet)))


def test_all_options_compiled_as_eager():
    # _CompileAndCheck: precision, preferred_element_type and an explicit path inside tj.function give eager's value
    a, b, c = _randn((2, 3), (3, 4), (4, 2), seed=4, dtype=np.float16)
    kw = dict(optimize=[(1, 2), (0, 1)], precision="highest", preferred_element_type=np.float32)
    eager = tnp.einsum("ij,jk,kl->il", a, b, c, **kw)
    _agrees(eager, "ij,jk,kl->il", (a, b, c), np.einsum("ij,jk,kl->il", *(o.astype(np.float32) for o in (a, b, c))),
            rtol=2e-3, atol=2e-3, **kw)
    compiled = tj.function(lambda *o: tnp.einsum("ij,jk,kl->il", *o, **kw))(a, b, c)
    assert compiled.dtype == eager.dtype == np.float32
    np.testing.assert_allclose(compiled.numpy(), eager.numpy(), rtol=1e-5, atol=1e-5)


# -- gradients ----------------------------------------------------------------------------------------------------

GRADS = [  # (what, subscripts, operand shapes)
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("trace", "ii->", [(3, 3)]),
    ("broadcast_batch", "...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 4)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("repeated_index", "iij,j->i", [(3, 3, 2), (2,)]),
]


@pytest.mark.parametrize("what, s, shapes", GRADS, ids=[c[0] for c in GRADS])
def test_tape_gradient_matches_jax_vjp(what, s, shapes):
    ops = _randn(*shapes, seed=5, dtype=np.float32)
    want_y, vjp = jax.vjp(lambda *o: jnp.einsum(s, *o), *ops)
    ct = np.asarray(np.random.RandomState(6).randn(*want_y.shape), np.float32)
    ts = [tj.constant(o) for o in ops]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = tnp.einsum(s, *ts)
    grads = tape.gradient(y, ts, output_gradients=ct)
    np.testing.assert_allclose(y.numpy(), np.asarray(want_y), rtol=1e-5, atol=1e-5)
    for g, w in zip(grads, vjp(ct)):
        assert g is not None and (g.shape, g.dtype) == (w.shape, w.dtype), what
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-5, atol=1e-5, err_msg=what)


def test_forward_accumulator_matches_jax_jvp():
    s = "...ij,...jk->...ik"
    ops = _randn((2, 1, 2, 3), (3, 3, 4), seed=7, dtype=np.float32)
    tans = _randn((2, 1, 2, 3), (3, 3, 4), seed=8, dtype=np.float32)
    want_y, want_t = jax.jvp(lambda *o: jnp.einsum(s, *o), tuple(ops), tuple(tans))
    ts = [tj.constant(o) for o in ops]
    with tj.ForwardAccumulator(ts, [tj.constant(t) for t in tans]) as acc:
        y = tnp.einsum(s, *ts)
    jvp = acc.jvp(y)
    assert (jvp.shape, jvp.dtype) == (want_t.shape, want_t.dtype)
    np.testing.assert_allclose(y.numpy(), np.asarray(want_y), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jvp.numpy(), np.asarray(want_t), rtol=1e-5, atol=1e-5)


def test_gradient_with_preferred_element_type_keeps_operand_dtypes():
    # float16 operands, float32 result: the gradients are float16, as jax.vjp's; a Variable operand gets one too
    a, b = _randn((2, 3), (3, 4), seed=9, dtype=np.float16)
    _, vjp = jax.vjp(lambda u, v: jnp.einsum("ij,jk->ik", u, v, preferred_element_type=np.float32), a, b)
    ct = np.asarray(np.random.RandomState(10).randn(2, 4), np.float32)
    ta, vb = tj.constant(a), tj.Variable(b)
    with tj.GradientTape() as tape:
        tape.watch(ta)
        y = tnp.einsum("ij,jk->ik", ta, vb, preferred_element_type=np.float32)
    assert y.dtype == np.float32
    for g, w in zip(tape.gradient(y, [ta, vb], output_gradients=ct), vjp(ct)):
        assert g.dtype == w.dtype == np.float16
        np.testing.assert_allclose(g.numpy().astype(np.float32), np.asarray(w, np.float32), rtol=1e-3, atol=1e-3)


def test_complex_gradient_is_conjugated():
    # TF's convention (API.md): tape.gradient(y, z, g) = conj(vjp(conj(g))) for jax's cotangent map vjp
    ra, ia, rb, ib, rg, ig = _randn((2, 3), (2, 3), (3,), (3,), (2,), (2,), seed=11)
    a, b, g = (ra + 1j * ia).astype(np.complex64), (rb + 1j * ib).astype(np.complex64), (rg + 1j * ig).astype(
        np.complex64)
    _, vjp = jax.vjp(lambda u, v: jnp.einsum("ab,b->a", u, v), a, b)
    ts = [tj.constant(a), tj.constant(b)]
    with tj.GradientTape() as tape:
        tape.watch(ts)
        y = tnp.einsum("ab,b->a", *ts)
    for got, w in zip(tape.gradient(y, ts, output_gradients=g), vjp(np.conj(g))):
        assert got.dtype == np.complex64
        np.testing.assert_allclose(got.numpy(), np.conj(np.asarray(w)), rtol=1e-5, atol=1e-5)


# -- errors -------------------------------------------------------------------------------------------------------

BAD = [  # (what, subscripts, operand shapes): jax.numpy raises ValueError for each
    ("unknown_output_label", "ij,jk->im", [(2, 3), (3, 4)]),
    ("repeated_output_label", "ij->ii", [(2, 2)]),
    ("two_arrows", "i->->i", [(2,)]),
    ("stray_dot", "i.j->i", [(2, 2)]),
    ("two_ellipses", "i...i...->i", [(2, 2, 2)]),
    ("too_few_operands", "ij,jk", [(2, 3)]),
    ("too_many_operands", "ij", [(2, 3), (3, 4)]),
    ("no_operands", "ij,jk->ik", []),
    ("rank_too_high", "ij->", [(2, 3, 4)]),
    ("rank_too_low", "ij->", [(2,)]),
    ("size_mismatch", "i,i", [(2,), (3,)]),
    ("batch_size_mismatch", "...ij,...jk->...ik", [(5, 2, 3), (7, 3, 4)]),
]


@pytest.mark.parametrize("what, s, shapes", BAD, ids=[c[0] for c in BAD])
def test_bad_subscripts_raise_value_error(what, s, shapes):
    ops = _randn(*shapes, dtype=np.float32)
    jax_raises(ValueError, lambda: jnp.einsum(s, *ops))
    with pytest.raises(ValueError):
        tnp.einsum(s, *ops)
    if ops:  # einsum_path parses the same subscripts (jax's path needs at least one operand)
        jax_raises(ValueError, lambda: jnp.einsum_path(s, *ops))
        with pytest.raises(ValueError):
            tnp.einsum_path(s, *ops)


BAD_OPTIONS = [  # (what, keyword arguments, jax.numpy's error class)
    ("precision_string", dict(precision="bad"), ValueError),
    ("precision_int", dict(precision=3), ValueError),
    ("preferred_element_type", dict(preferred_element_type="notadtype"), TypeError),
    ("out", dict(out=np.zeros((2, 4), np.float32)), NotImplementedError),
    ("unknown_keyword", dict(foo=1), TypeError),
]


@pytest.mark.parametrize("what, kw, exc", BAD_OPTIONS, ids=[c[0] for c in BAD_OPTIONS])
def test_bad_options_raise_as_jax_numpy(what, kw, exc):
    a, b = _randn((2, 3), (3, 4), dtype=np.float32)
    jax_raises(exc, lambda: jnp.einsum("ij,jk->ik", a, b, **kw))
    with pytest.raises(exc):
        tnp.einsum("ij,jk->ik", a, b, **kw)
