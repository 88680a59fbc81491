"""JAX's jax.random tests ported to tj.random: the distribution tests of tests/random_lax_test.py and the parts of
tests/random_test.py about the public key API (jax-ml/jax; the installed jax is 0.10.2).

How JAX maps to tj: ``jax.random.X(key, ...)`` -> ``tj.random.X(key, ...)`` (same names, signatures and defaults;
tj.random's draws are jax.random's, bit for bit, for the same key). The ``use_jit=True`` half of JAX's tests
(``jax.jit(random.X)``) becomes the draw inside ``tj.function`` compared with the eager draw (JAX's
_CompileAndCheck analogue) for a sample of samplers (uniform, cauchy, choice, permutation, key, clone). JAX's
references are kept: scipy.stats distributions through Kolmogorov-Smirnov and chi-square tests (JAX's helpers,
written afresh, at JAX's levels), NumPy's ``default_rng().choice`` shapes, the implicit-reparameterization formula
for gamma's gradient (-dF/da / pdf, dF/da by central differences of scipy's CDF), and random_test.py's recorded
values (recorded without partitionable threefry, so checked under ``jax.threefry_partitionable(False)``; jax 0.10.2
defaults to True). Cheap draws are also compared with jax.random's draw on the same key; the gamma family and the
count samplers (a while loop: one to two seconds of compile per signature) only with scipy, as JAX's tests do,
and each with one parameter signature (a vector of parameters covers several of JAX's grid points in one draw);
tests/test_random_mirror.py compares every sampler with jax.random bit for bit, eagerly and inside tj.function,
and its gradients with jax.grad / jax.jvp. Dtype and shape sweeps (RandomDtypeTest, RandomShapeTest,
testMultivariateNormalShapes, ...) compare tj with jax through ``jax.eval_shape``. Sample sizes are JAX's (10**4)
but for maxwell / weibull (10**5 -> 10**4), testBernoulliSmallProbabilty (10**8 -> 10**5), testLowProbabilityGumbel
(128 groups -> 1) and testMultivariateNormalCovariance (10**5 -> 2 * 10**4).

Ported, random_lax_test.py: test_split_size_shape, testRngUniform (float32, float16), testRngRandint (int8, uint8,
int32), test_eval_shape_big_random_array, test_prng_jit_invariance (seeds -1, 0, 1 as a Tensor in tj.function),
test_prng_errors, test_dtype (the float samplers at float16 and float32; the integer ones at int8, uint8, int16,
int32 against jax's dtype), test_shape (all but the ``method=`` cases), testNormal (float32), testNormalBfloat16,
testNormalComplex (complex64), testTruncatedNormal, testChoice (4 grid points), testPermutation (4),
testPermutationErrors, testBernoulli (3), testCategorical (3), testCategoricalWithoutReplacement (2),
testBernoulliShape, testBernoulliSmallProbabilty (mode 'high'), testCauchy, testDirichlet, testDirichletSmallAlpha,
testExponential, testGammaVsLogGamma, testGamma (a = 0.1, 1, 10), testGammaGrad (alpha 0.01, 1, 100, both
log_space), testPoisson (lam 3, 50, int32), testPoissonBatched, testPoissonWithoutShape, testPoissonShape,
testPoissonZeros, testPoissonCornerCases, the rbg-key error of testPoissonApproximateRngImpl, testGumbel,
testLowProbabilityGumbel, testLaplace, testLogistic, testOrthogonal (4 points, one complex64), testGeneralizedNormal
and testBall (shapes and dtypes), testPareto, testParetoShape, testMultivariateNormal (cholesky, dim 3),
testMultivariateNormalShapes, testMultivariateNormalCovariance, testMultivariateNormalSingularCovariance (cholesky,
eigh), testIssue222, testFoldIn, testFoldInBig, testStaticShapeErrors, testIssue756, testDtypeErrorMessage,
testRandomBroadcast, testMaxwellSample, testWeibullSample, testDoublesidedMaxwellSample, testRadamacher,
testChoiceShapeIsNotSequenceError, test_randint_bounds (int8, int32), test_randint_out_of_range,
test_categorical_shape_argument (2 points), testRayleigh, testWald, testGeometric, testTriangular, testLogNormal (one
point each), testBinomialSample (n 13, p 0.3), testBinomialCornerCases, test_binomial_dtypes, testMultinomialExample,
testMultinomialDtype (eval_shape), test_batched_key_errors, test_randint_narrow_int_bias (int8, uint16),
test_geometric_avoids_infs, RBGPRNGTest.test_vmap_random_bits_distribution (jax.vmap over tj.random.uniform),
KeyArrayTest.test_random_clone.
Ported, random_test.py: testRngRandomBits, testRngRandomBitsShapeDtype (threefry2x32, rbg),
testRngRandomBitsViewProperty, testPRNGValues, test_random_seed_offset, test_random_bits_error,
test_threefry_split_fold_in_symmetry, test_threefry_split_vmapped_fold_in_symmetry, test_prng_seeds_and_keys (x64
off), test_default_prng_selection, test_key_construction_with_explicit_impl_name, test_key_dtype,
test_key_construction_with_dtype, test_key_construction_with_both_impl_and_dtype, test_wrap_key_data_with_dtype,
test_wrap_key_data_with_both_impl_and_dtype, test_isinstance, test_key_output_vjp, test_legacy_prng_key_flag,
KeyArrayTest.test_key_as_seed, test_non_scalar_seed, test_non_integer_seed.

Left out:
- every ``method=`` case (testBeta/testGamma/testPoisson/testChisquare's 'approximate', the four *InvalidMethod
  tests, testGammaGradApproximate, testPoissonApproximateTotalVariation, the approximate half of
  testPoissonApproximateRngImpl): jax 0.10.2's samplers have no ``method`` argument;
- testBeta, testChisquare: x64-only in JAX (its KS test fails in float32);
- testT (JAX skips it on the CPU: compile time), testF, testBetaSmallParameters, testMultinomialNumpy,
  testMultinomialShape, test_loggamma_nan_corner_case, testGammaGradType, testIssue1789, testBall's norm bound: each a
  further gamma-family / multinomial signature (1-2 s of compile) for the CI budget; their shapes and dtypes are in
  the eval_shape sweeps and test_random_mirror.py checks their draws and gradients against jax;
- testGeneralizedNormalKS, testBallKS: skipped in JAX itself (key-sensitive);
- test_out_sharding (shardings; only ``out_sharding=None`` is checked), test_large_prng (lowers a 4e10-element
  program), testSafeIntToFloat and RandomUtilTest (private helpers), testNumpyAndXLAAgreeOnFloatEndianness (no tj op);
- CustomPRNGTest and the rest of RBGPRNGTest / UnsafeRBGPRNGTest (custom PRNG implementations, key-array vmap
  internals); random_test.py's threefry kernels (testThreefry2x32*, testNoOpByOpUnderHash,
  test_threefry_gpu_kernel_lowering), test_config_prngs_registered, testRandomDistributionValues (skipped in JAX
  under both x64 settings), test_seed_no_implicit_transfers (device transfer guard), the other KeyArrayTest methods
  and JnpWithKeyArrayTest (key-array dtype internals, jnp on key arrays);
- testBernoulliSmallProbabilty's mode='low' half: it needs 10**8 draws (0.5 GB) to see a True.

Sanctioned differences (API.md):
- tj.function treats a Python number argument as static (as tf.function), so JAX's OverflowError for an int seed
  beyond int32 under ``jax.jit`` (test_prng_seeds_and_keys), its ConcretizationTypeError for
  ``jax.jit(random.permutation)(key, 10)`` and its shape TypeError under jit (testStaticShapeErrors) have their
  analogues with a traced Tensor argument, which is what is tested;
- tj raises subclasses of jax's exception classes (AxisError is a ValueError, ShapeError a TypeError) with
  messages naming the tj op.

Differences found and fixed in tapejax:
- ``tj.random.fold_in`` took only a Python int (each value compiled a kernel of its own) and raised TypeError for
  traced data (a Tensor inside tj.function, jax.jit, jax.vmap with ``lax.axis_index``), which jax takes;
- ``tj.random.choice(key, 5, 2)``: jax raises TypeError (shape must be a sequence); tj took 2 as (2,);
- ``out_sharding=None`` (jax's default) raised TypeError in tj.random.normal, uniform and permutation;
- ``jax.legacy_prng_key('warn' / 'error')`` was checked only when tj first traced a draw's kernel: a draw that ran
  before took a raw uint32 key with no warning and no error;
- ``tj.random.key(a key)`` / ``PRNGKey(a key)`` raised NumPy's key-conversion TypeError, whose message did not name
  the seed (jax: "key accepts a scalar seed, but was given a PRNG key").
"""
from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg
import scipy.stats
from jax._src import config as jax_config  # (random_seed_offset: no public context in jax 0.10.2)

import tapejax as tj

tnp = tj.numpy
N = 10000  # JAX's sample size for the distribution tests


def key(seed=0):
    return jax.random.key(seed)


def _np(x):
    return np.asarray(x.numpy() if isinstance(x, tj.Tensor) else x)


def _ks(samples, cdf, pval=0.01):
    """A Kolmogorov-Smirnov test of ``samples`` against ``cdf``, at JAX's level."""
    samples = _np(samples).astype(np.float64).ravel()
    p = scipy.stats.kstest(samples, cdf).pvalue
    assert p > pval, f"KS p-value {p}"


def _chi2(samples, pmf, pval=0.01):
    """A chi-square test of integer ``samples`` against ``pmf``, over every value with a nonzero expectation up to
    100 past the largest drawn (JAX's helper's range)."""
    samples = _np(samples).astype(np.int64).ravel()
    counts = np.bincount(samples, minlength=samples.max() + 100)
    expected = pmf(np.arange(len(counts))) * samples.size
    keep = expected > 0
    p = scipy.stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()).pvalue
    assert p > pval, f"chi-square p-value {p}"


def _collisions(samples, nbits, fail_prob=0.01):
    """JAX's collision check: the number of distinct values is near what uniform draws over 2**nbits give."""
    n, bins = samples.size, 2 ** nbits
    expected = bins * (1 - ((bins - 1) / bins) ** n)
    deviation = ((len(np.unique(_np(samples))) - expected) / expected) ** 2
    assert deviation < 1 / np.sqrt(expected * fail_prob)


def _same_as_jax(got, want):
    assert isinstance(got, tj.Tensor)
    want = np.asarray(want)
    assert got.dtype == want.dtype and tuple(got.shape) == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(_np(got), want)


def _in_function_equals(draw, eager, *args):
    """``draw`` (a function of a key and ``args``) inside tj.function gives the eager draw (JAX's use_jit half)."""
    got = tj.function(draw)(*args)
    assert got.dtype == eager.dtype and tuple(got.shape) == tuple(eager.shape)
    if jnp.issubdtype(eager.dtype, jnp.inexact):  # (a fused program may round in the last place)
        np.testing.assert_allclose(_np(got).astype(np.float64), _np(eager).astype(np.float64), rtol=2e-6,
                                   atol=1e-7)
    else:
        np.testing.assert_array_equal(_np(got), _np(eager))


def _shape_dtype(fn, *args):
    """(shape, dtype) of ``fn(*args)`` by jax.eval_shape (a tj result is a Tensor holding a ShapeDtypeStruct)."""
    out = jax.eval_shape(fn, *args)
    return tuple(out.shape), jnp.dtype(out.dtype)


# -- keys (CommonRandomTest, random_test.py PrngTest, KeyArrayTest) ---------------------------------------------

@pytest.mark.parametrize("num", [None, 6, (6,), (2, 3)])
def test_split_size_shape(num):
    k = key(0)
    got = tj.random.split(k) if num is None else tj.random.split(k, num)
    want = jax.random.split(k) if num is None else jax.random.split(k, num)
    assert got.shape == ((2,) if num is None else tuple(num) if isinstance(num, tuple) else (num,))
    np.testing.assert_array_equal(jax.random.key_data(got), jax.random.key_data(want))


def test_fold_in_distinct_keys_big_data_and_split_symmetry():
    k = key(0)
    data = [jax.random.key_data(tj.random.fold_in(k, i)) for i in range(3)]  # (JAX's 10: a compile each here)
    assert np.unique(np.asarray(data), axis=0).shape[0] == 3
    big = [jax.random.key_data(tj.random.fold_in(k, s)) for s in (2 ** 32 - 2, 2 ** 32 - 1)]
    assert np.unique(np.asarray(big), axis=0).shape[0] == 2
    np.testing.assert_array_equal(big[1], jax.random.key_data(jax.random.fold_in(k, 2 ** 32 - 1)))
    # test_threefry_split_fold_in_symmetry: with partitionable threefry (jax 0.10.2's default) fold_in(key, i)
    # is split(key, n)[i]
    assert jax.config.jax_threefry_partitionable
    k72 = key(72)
    split = jax.random.key_data(tj.random.split(k72, 3))
    for i in range(3):
        np.testing.assert_array_equal(jax.random.key_data(tj.random.fold_in(k72, i)), split[i])


def test_fold_in_of_traced_data():
    """test_threefry_split_vmapped_fold_in_symmetry, and the same data as a Tensor inside tj.function."""
    k = key(72)
    split = jax.random.key_data(jax.random.split(k, 3))
    inside = tj.function(lambda kk, i: tj.random.fold_in(kk, i))(k, tj.constant(2))
    np.testing.assert_array_equal(jax.random.key_data(inside.value), split[2])
    mapped = jax.vmap(lambda kk, _: tj.random.fold_in(kk, jax.lax.axis_index("batch")), in_axes=(None, 0),
                      axis_name="batch")(k, jnp.ones(3))
    np.testing.assert_array_equal(jax.random.key_data(mapped), split)


@pytest.mark.parametrize("seed", [-1, 0, 1])
def test_key_data_of_a_traced_seed_equals_eager(seed):
    eager = tj.random.key_data(tj.random.key(seed))
    np.testing.assert_array_equal(eager, jax.random.key_data(jax.random.key(seed)))
    traced = tj.function(lambda s: tj.random.key_data(tj.random.key(s)))(tj.constant(seed))
    np.testing.assert_array_equal(_np(traced), eager)


def test_seed_overflow_raises_overflow_error():
    seed = np.iinfo(np.int64).max + 1
    for make in (tj.random.key, tj.random.PRNGKey):
        with pytest.raises(OverflowError):
            make(seed)
        with pytest.raises(OverflowError):  # (a Python int is static in tj.function: the same call inside)
            tj.function(lambda: make(seed))()


# (seed, type, key data with x64 off): test_prng_seeds_and_keys
SEEDS = [(0, int, [0, 0]), (1, np.int32, [0, 1]), (2, np.uint32, [0, 2]), (3, np.int64, [0, 3]),
         (-1, int, [0, 4294967295]), (-2, np.int32, [0, 4294967294]), (-3, np.int64, [0, 4294967293]),
         (2 ** 31 - 1 + 100, int, [0, 2147483747]), (2 ** 31 - 1 + 101, np.uint32, [0, 2147483748]),
         (-2 ** 31 - 100, int, [0, 2147483548]), (-2 ** 31 - 101, np.int64, [0, 2147483547])]


@pytest.mark.parametrize("make", ["key", "PRNGKey"])
def test_prng_seeds_and_keys(make):
    for seed, typ, data in SEEDS:
        got = getattr(tj.random, make)(typ(seed))
        np.testing.assert_array_equal(jax.random.key_data(got), np.asarray(data, np.uint32), err_msg=str(seed))


def test_key_impls_dtypes_and_wrapping():
    for name in ("threefry2x32", "rbg"):
        with jax.default_prng_impl(name):  # test_default_prng_selection
            k = tj.random.key(42)
            assert jax.random.key_impl(k) == jax.random.key_impl(jax.random.key(0, impl=name))
            assert all(jax.random.key_impl(s) == jax.random.key_impl(k) for s in tj.random.split(k, 2))
            assert tj.random.PRNGKey(42).shape == jax.random.PRNGKey(42).shape
        assert tj.random.key(42, impl=name).dtype == tj.random.key_dtype(name) == jax.random.key_dtype(name)
        assert isinstance(tj.random.key(0, impl=name), jax.Array)
    dtype = tj.random.key_dtype("threefry2x32")
    assert tj.random.key(42, dtype="threefry2x32").dtype == dtype
    assert tj.random.key(42, dtype=dtype).dtype == dtype
    with pytest.raises(ValueError, match="both"):
        tj.random.key(42, impl="threefry2x32", dtype=dtype)
    data = jnp.zeros(2, dtype="uint32")
    assert tj.random.wrap_key_data(data, dtype="threefry2x32").dtype == dtype
    assert tj.random.wrap_key_data(data, dtype=dtype).dtype == dtype
    with pytest.raises(ValueError, match="both"):
        tj.random.wrap_key_data(data, impl="threefry2x32", dtype=dtype)
    for make in (tj.random.key, tj.random.PRNGKey):  # test_key_output_vjp: no crash
        jax.vjp(make, 1)


def test_random_seed_offset():
    k1 = tj.random.key_data(tj.random.key(17))
    with jax_config.random_seed_offset(3):
        k2 = tj.random.key_data(tj.random.key(17))
        np.testing.assert_array_equal(k2, jax.random.key_data(jax.random.key(17)))
    assert not np.array_equal(k1, k2)


@pytest.mark.parametrize("seed", [np.arange(4), np.pi], ids=["array", "float"])
def test_non_scalar_or_non_integer_seed_raises_type_error(seed):
    for make in (tj.random.key, tj.random.PRNGKey):
        with pytest.raises(TypeError):
            make(seed)


def test_key_as_seed_raises_a_type_error_naming_the_seed():
    for make in (tj.random.key, tj.random.PRNGKey):
        with pytest.raises(TypeError, match="seed"):
            make(key(1))


def test_random_clone_eager_jit_vmap_and_in_function():
    keys = jax.random.split(key(0), 5)
    want = jax.random.key_data(keys)
    for got in (tj.random.clone(keys), jax.jit(tj.random.clone)(keys), jax.vmap(tj.random.clone)(keys),
                tj.function(tj.random.clone)(keys)):
        got = got.value if isinstance(got, tj.Tensor) else got
        assert got.dtype == keys.dtype
        np.testing.assert_array_equal(jax.random.key_data(got), want)


@pytest.mark.parametrize("name,args", [("bits", ((2,),)), ("chisquare", (1.0, (2,))),
                                       ("dirichlet", (jnp.arange(2.0), (2,))), ("gamma", (1.0, (2,))),
                                       ("loggamma", (1.0, (2,))), ("fold_in", (0,)), ("split", ())])
def test_batched_key_errors(name, args):
    keys = jax.random.split(key(0))
    with pytest.raises(ValueError, match=f"{name} accepts a single key"):
        getattr(tj.random, name)(keys, *args)
    tj.random.key_data(keys)  # (fine)


def test_legacy_prng_key_flag_first_call():
    """A raw uint32 key under jax.legacy_prng_key: jax warns / raises; an invalid key raises TypeError. A draw
    (shape (7, 13)) no other test makes, so its kernel is traced here."""
    raw = jnp.zeros(2, dtype="uint32")
    with jax.legacy_prng_key("error"):
        with pytest.raises(ValueError, match="Legacy uint32 key"):
            tj.random.uniform(raw, (7, 13))
        with pytest.raises(TypeError, match="invalid PRNG key"):
            tj.random.uniform(jnp.zeros(1, dtype="float32"))


def test_legacy_prng_key_flag_every_call():
    raw = jnp.zeros(2, dtype="uint32")
    tj.random.exponential(raw, (3,))  # (allowed: the default)
    with jax.legacy_prng_key("warn"):
        with pytest.warns(UserWarning, match="Legacy uint32 key"):
            tj.random.exponential(raw, (3,))
    with jax.legacy_prng_key("error"):
        with pytest.raises(ValueError, match="Legacy uint32 key"):
            tj.random.exponential(raw, (3,))


@pytest.mark.parametrize("mode", ["warn", "error"])
def test_legacy_prng_key_flag_is_about_the_users_keys(mode):
    """TF-style draws make their keys from seeds themselves: jax.legacy_prng_key does not apply to those (tj made
    raw uint32 keys for them, so 'error' broke tj.random.stateless_uniform and split)."""
    with jax.legacy_prng_key(mode), warnings.catch_warnings():
        warnings.simplefilter("error")
        tj.random.stateless_uniform([2], seed=[1, 2])
        tj.random.stateless_normal([2], seed=[1, 2 ** 40])
        tj.random.split([1, 2])
        tj.random.fold_in([1, 2], 3)
        tj.function(lambda s: tj.random.stateless_uniform([2], seed=s))(tj.constant([1, 2]))


# -- recorded values (random_test.py; recorded by JAX without partitionable threefry) ---------------------------

def test_recorded_bits_randint_split_and_fold_in_values():
    with jax.threefry_partitionable(False):
        k = key(1701)
        # testRngRandomBits (uint64 is uint32 with x64 off, with jax's warning)
        np.testing.assert_array_equal(_np(tj.random.bits(k, (3,), "uint8")), np.array([216, 115, 43], np.uint8))
        np.testing.assert_array_equal(_np(tj.random.bits(k, (3,), "uint16")), np.array([41682, 1300, 55017],
                                                                                        np.uint16))
        want32 = np.array([56197195, 4200222568, 961309823], np.uint32)
        _same_as_jax(tj.random.bits(k, (3,), "uint32"), want32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            _same_as_jax(tj.random.bits(k, (3,), "uint64"), want32)
        # testRngRandomBitsViewProperty: 8, 16 and 32-bit draws are views of the same words
        views = [_np(tj.random.bits(k, (640 // n,), f"uint{n}")).view(np.uint32) for n in (8, 16, 32)]
        assert all(np.array_equal(v, views[0]) for v in views)
        # testPRNGValues
        r = tj.random.randint(key(0), (3, 3), 0, 8)
        assert r.dtype == jnp.int32
        np.testing.assert_array_equal(_np(tj.random.randint(key(0), (3, 3), 0, 8, dtype="int32")),
                                      [[2, 1, 3], [6, 1, 5], [6, 3, 4]])
        np.testing.assert_array_equal(jax.random.key_data(tj.random.split(key(0), 4)),
                                      np.array([[2285895361, 1501764800], [1518642379, 4090693311],
                                                [433833334, 4221794875], [839183663, 3740430601]], np.uint32))
        np.testing.assert_array_equal(jax.random.key_data(tj.random.fold_in(key(0), 4)),
                                      np.array([2285895361, 433833334], np.uint32))


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg"])
def test_bits_shapes_and_dtypes(impl):
    """testRngRandomBitsShapeDtype and test_random_bits_error."""
    k = jax.random.key(1701, impl=impl)
    for width in (8, 16, 32):
        b = tj.random.bits(k, (3,), jnp.dtype(f"uint{width}"))
        assert b.shape == (3,) and b.dtype == jnp.dtype(f"uint{width}")
    for bad in ("int8", "float16"):
        with pytest.raises(ValueError, match="unsigned int"):
            tj.random.bits(k, (3, 4), np.dtype(bad))


def test_eval_shape_of_a_huge_draw():
    out = jax.eval_shape(lambda s: tj.random.normal(tj.random.key(s), (int(1e12),)), 0)
    assert tuple(out.shape) == (int(1e12),) and out.dtype == jnp.float32


# -- dtypes and shapes (RandomDtypeTest, RandomShapeTest) -------------------------------------------------------

H = np.float16
DTYPE_CASES = {  # JAX's _DTYPE_CASES: float16 parameters, the dtype asked for
    "beta": (float, lambda r, k, dt: r.beta(k, H(0.5), H(0.5), shape=(10,), dtype=dt)),
    "binomial": (float, lambda r, k, dt: r.binomial(k, H(10.), H(0.5), shape=(10,), dtype=dt)),
    "chisquare": (float, lambda r, k, dt: r.chisquare(k, H(2.0), shape=(10,), dtype=dt)),
    "dirichlet": (float, lambda r, k, dt: r.dirichlet(k, np.ones(3, H), shape=(10,), dtype=dt)),
    "double_sided_maxwell": (float, lambda r, k, dt: r.double_sided_maxwell(k, loc=H(0.), scale=H(1.), shape=(10,),
                                                                            dtype=dt)),
    "f": (float, lambda r, k, dt: r.f(k, H(2.0), H(2.0), shape=(10,), dtype=dt)),
    "gamma": (float, lambda r, k, dt: r.gamma(k, H(2.0), shape=(10,), dtype=dt)),
    "geometric": (int, lambda r, k, dt: r.geometric(k, H(0.5), shape=(10,), dtype=dt)),
    "loggamma": (float, lambda r, k, dt: r.loggamma(k, H(2.0), shape=(10,), dtype=dt)),
    "lognormal": (float, lambda r, k, dt: r.lognormal(k, H(1.0), shape=(10,), dtype=dt)),
    "pareto": (float, lambda r, k, dt: r.pareto(k, H(3.0), shape=(10,), dtype=dt)),
    "poisson": (int, lambda r, k, dt: r.poisson(k, H(3.0), shape=(10,), dtype=dt)),
    "randint": (int, lambda r, k, dt: r.randint(k, shape=(10,), minval=np.int32(0), maxval=np.int32(10), dtype=dt)),
    "rayleigh": (float, lambda r, k, dt: r.rayleigh(k, H(0.5), shape=(10,), dtype=dt)),
    "t": (float, lambda r, k, dt: r.t(k, H(10.0), shape=(10,), dtype=dt)),
    "triangular": (float, lambda r, k, dt: r.triangular(k, H(0.), H(0.5), H(1.), shape=(10,), dtype=dt)),
    "truncated_normal": (float, lambda r, k, dt: r.truncated_normal(k, lower=H(-2.), upper=H(2.), shape=(10,),
                                                                    dtype=dt)),
    "uniform": (float, lambda r, k, dt: r.uniform(k, shape=(10,), minval=H(0.), maxval=H(1.), dtype=dt)),
    "wald": (float, lambda r, k, dt: r.wald(k, H(1.0), shape=(10,), dtype=dt)),
    "weibull_min": (float, lambda r, k, dt: r.weibull_min(k, H(1.0), H(1.0), shape=(10,), dtype=dt)),
}


@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_dtype_argument_is_obeyed(name):
    kind, fn = DTYPE_CASES[name]
    dtypes = (jnp.float16, jnp.float32) if kind is float else (jnp.int8, jnp.uint8, jnp.int16, jnp.int32)
    with jax.numpy_dtype_promotion("standard"):
        for dt in dtypes:
            got = _shape_dtype(lambda k: fn(tj.random, k, dt), key(0))
            assert got == _shape_dtype(lambda k: fn(jax.random, k, dt), key(0)), (name, dt)
            if kind is float:  # (JAX's check: float16 casts safely to the dtype asked for)
                assert got == ((10, 3) if name == "dirichlet" else (10,), jnp.dtype(dt)), (name, dt)


S34 = (3, 4)
SHAPE_CASES = {  # JAX's _SHAPE_CASES but the method= ones
    "beta": lambda r, k: r.beta(k, jnp.ones(S34), jnp.ones(S34), shape=S34),
    "binomial": lambda r, k: r.binomial(k, jnp.full(S34, 10.), jnp.full(S34, 0.5), shape=S34),
    "chisquare": lambda r, k: r.chisquare(k, jnp.ones(S34), shape=S34),
    "f": lambda r, k: r.f(k, jnp.ones(S34), jnp.ones(S34), shape=S34),
    "gamma": lambda r, k: r.gamma(k, jnp.ones(S34), shape=S34),
    "geometric": lambda r, k: r.geometric(k, jnp.full(S34, 0.5), shape=S34),
    "loggamma": lambda r, k: r.loggamma(k, jnp.ones(S34), shape=S34),
    "lognormal": lambda r, k: r.lognormal(k, jnp.ones(S34), shape=S34),
    "pareto": lambda r, k: r.pareto(k, jnp.ones(S34), shape=S34),
    "poisson": lambda r, k: r.poisson(k, jnp.ones(S34), shape=S34),
    "randint": lambda r, k: r.randint(k, shape=S34, minval=jnp.zeros(S34, jnp.int32),
                                      maxval=jnp.full(S34, 10, jnp.int32)),
    "rayleigh": lambda r, k: r.rayleigh(k, jnp.ones(S34), shape=S34),
    "t": lambda r, k: r.t(k, jnp.ones(S34), shape=S34),
    "triangular": lambda r, k: r.triangular(k, jnp.zeros(S34), jnp.full(S34, 0.5), jnp.ones(S34), shape=S34),
    "truncated_normal": lambda r, k: r.truncated_normal(k, lower=jnp.full(S34, -2.), upper=jnp.full(S34, 2.),
                                                        shape=S34),
    "uniform": lambda r, k: r.uniform(k, shape=S34, minval=jnp.zeros(S34), maxval=jnp.ones(S34)),
    "wald": lambda r, k: r.wald(k, jnp.ones(S34), shape=S34),
    "weibull_min": lambda r, k: r.weibull_min(k, jnp.ones(S34), jnp.ones(S34), shape=S34),
}


def test_shape_argument_is_obeyed():
    for name, fn in SHAPE_CASES.items():
        got = _shape_dtype(lambda k: fn(tj.random, k), key(0))
        assert got == _shape_dtype(lambda k: fn(jax.random, k), key(0)), name
        assert got[0] == S34, name


def test_other_shapes_and_dtypes_as_jax():
    """testGeneralizedNormal, testBall, testMultivariateNormalShapes, testMultinomialDtype, test_binomial_dtypes,
    testIssue756: tj's result shape and dtype are jax's (by eval_shape)."""
    calls = []
    for p, shape, dt in ((0.5, (), jnp.float16), (1.5, (5,), jnp.float32), (2.5, (10, 5), jnp.float16)):
        calls.append(lambda r, k, p=p, shape=shape, dt=dt: r.generalized_normal(k, p, shape=shape, dtype=dt))
        calls.append(lambda r, k, p=p, shape=shape, dt=dt: r.ball(k, 3, p, shape=shape, dtype=dt))
    rng = np.random.default_rng(0)
    for dim, mean_batch, cov_batch, shape in ((1, (), (), ()), (2, (3,), (), (5,)), (4, (2, 3), (3,), (1,)),
                                              (2, (), (2, 3), (5,))):
        for method in ("cholesky", "svd", "eigh"):
            mean = rng.standard_normal(mean_batch + (dim,))
            factor = rng.standard_normal(cov_batch + (dim, dim))
            cov = np.einsum("...ij,...kj->...ik", factor, factor) + 1e-3 * np.eye(dim)
            full = shape + (mean_batch if len(mean_batch) > len(cov_batch) else cov_batch)
            calls.append(lambda r, k, m=mean, c=cov, s=full, me=method: r.multivariate_normal(
                k, m, c, shape=s, method=me))
    for n_dt, p_dt in ((jnp.float16, jnp.float32), (jnp.float32, jnp.float16), (jnp.bfloat16, jnp.float32)):
        calls.append(lambda r, k, a=n_dt, b=p_dt: r.multinomial(k, jnp.astype(10, a), jnp.astype(jnp.ones(3) / 3, b)))
    calls.append(lambda r, k: r.binomial(k, jnp.float16(100), jnp.float16(0.5)))
    calls.append(lambda r, k: r.normal(k, ()))
    with jax.numpy_rank_promotion("allow"), jax.numpy_dtype_promotion("standard"):
        for i, fn in enumerate(calls):
            assert _shape_dtype(lambda k: fn(tj.random, k), key(0)) == _shape_dtype(
                lambda k: fn(jax.random, k), key(0)), i
    assert _shape_dtype(lambda k: tj.random.normal(k, ()), key(0)) == ((), jnp.float32)


@pytest.mark.parametrize("name,args", [("normal", ((2,),)), ("uniform", ((2,),)), ("permutation", (4,))])
def test_out_sharding_none_is_accepted(name, args):
    want = getattr(jax.random, name)(key(0), *args, out_sharding=None)
    _same_as_jax(getattr(tj.random, name)(key(0), *args, out_sharding=None), want)


# -- uniform, randint, normal ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16])
def test_uniform_distribution(dtype):
    got = tj.random.uniform(key(0), (N,), dtype)
    _same_as_jax(got, jax.random.uniform(key(0), (N,), dtype))
    _collisions(got, jnp.finfo(dtype).nmant)
    _ks(got, scipy.stats.uniform().cdf)
    if dtype == jnp.float32:
        _in_function_equals(lambda k: tj.random.uniform(k, (N,), dtype), got, key(0))


@pytest.mark.parametrize("dtype", [jnp.int8, jnp.uint8, jnp.int32])
def test_randint_in_bounds(dtype):
    got = tj.random.randint(key(0), (N,), 5, 10, dtype)
    _same_as_jax(got, jax.random.randint(key(0), (N,), 5, 10, dtype))
    assert np.all((_np(got) >= 5) & (_np(got) < 10))


def test_normal_distribution_complex_and_bfloat16():
    got = tj.random.normal(key(0), (N,))
    _same_as_jax(got, jax.random.normal(key(0), (N,)))
    _ks(got, scipy.stats.norm().cdf)
    z = tj.random.normal(key(0), (N,), jnp.complex64)
    assert z.dtype == jnp.complex64
    _ks(np.real(_np(z)), scipy.stats.norm(scale=1 / np.sqrt(2)).cdf)
    _ks(np.imag(_np(z)), scipy.stats.norm(scale=1 / np.sqrt(2)).cdf)
    np.testing.assert_array_equal(_np(tj.random.normal(key(0), dtype="bfloat16")),
                                  _np(tj.random.normal(key(0), dtype=jnp.bfloat16)))
    with pytest.raises(ValueError, match="dtype argument to"):  # testDtypeErrorMessage
        tj.random.normal(key(0), (), dtype=jnp.int32)


def test_truncated_normal_distribution():
    got = tj.random.truncated_normal(key(0), -0.3, 0.3, (N,))
    _same_as_jax(got, jax.random.truncated_normal(key(0), -0.3, 0.3, (N,)))
    assert _np(got).min() > -0.3 and _np(got).max() < 0.3
    _ks(got, scipy.stats.truncnorm(-0.3, 0.3).cdf)


def test_random_broadcast_of_bounds():
    with jax.numpy_rank_promotion("allow"):
        u = tj.random.uniform(key(0), (10, 2), minval=jnp.zeros(2), maxval=jnp.ones(2))
        r = tj.random.randint(key(0), (10, 2), jnp.array([0, 1]), jnp.array([1, 2]))
    assert u.shape == (10, 2) and r.shape == (10, 2)
    np.testing.assert_array_equal(_np(r), np.broadcast_to([0, 1], (10, 2)))


def test_randint_corner_cases():
    _same_as_jax(tj.random.randint(key(10003), (), 0, 0), np.int32(0))  # testIssue222
    # test_randint_bounds: bounds beyond a narrow dtype are clipped; beyond int32 they overflow
    # (one shape, (1000,), for every draw here: JAX's (10,) draws would be kernels of their own)
    lo, hi = np.iinfo(np.int8).min, np.iinfo(np.int8).max
    np.testing.assert_array_equal(_np(tj.random.randint(key(1701), (1000,), lo - 12345, hi + 12345, jnp.int8)),
                                  _np(tj.random.randint(key(1701), (1000,), lo, hi + 1, jnp.int8)))
    with pytest.raises(OverflowError):
        tj.random.randint(key(1701), (1000,), -2 ** 31 - 12345, 2 ** 31 + 12345, jnp.int32)
    # test_randint_out_of_range
    np.testing.assert_array_equal(_np(tj.random.randint(key(0), (1000,), 255, 256, np.uint8)), 255)
    r = _np(tj.random.randint(key(0), (1000,), -128, 128, np.int8))
    assert (r == -128).sum() > 0 and (r == 127).sum() > 0
    r = _np(tj.random.randint(key(0), (1000,), -1000, 1000, np.uint8))
    assert (r == 0).sum() > 0 and (r == 255).sum() > 0


@pytest.mark.parametrize("dtype", ["int8", "uint16"])
def test_randint_narrow_int_bias(dtype):
    data = _np(tj.random.randint(key(7534892), (100_000,), 0, 100, dtype=dtype))
    counts = np.bincount(data.astype(np.int64), minlength=100).astype(float)
    _ks(counts, scipy.stats.poisson(1000).cdf)


def test_static_shape_errors_with_a_traced_dimension():
    with pytest.raises(TypeError, match="shape"):
        tj.function(lambda d: tj.random.normal(key(123), (d,)))(tj.constant(3))


# -- choice, permutation ---------------------------------------------------------------------------------------

CHOICE = [  # (dtype, input range or shape, shape, replace, weighted, axis, mode)
    (np.int32, 100, (4, 5), False, True, 0, "high"),
    (np.float32, (10, 5, 2), (5,), False, False, 1, None),
    (np.int32, (10, 10), (4, 5), True, True, -1, "low"),
    (np.int32, (1, 5), (), False, True, 1, None),
]


@pytest.mark.parametrize("dtype,x,shape,replace,weighted,axis,mode", CHOICE)
def test_choice(dtype, x, shape, replace, weighted, axis, mode):
    is_range = isinstance(x, int)
    if not is_range:
        x = np.random.default_rng(0).permutation(np.arange(math.prod(x), dtype=dtype)).reshape(x)
    n = x if is_range else x.shape[axis]
    p = None
    if weighted:
        p = np.arange(n, dtype=np.float32) + 1
        p /= p.sum()
    got = tj.random.choice(key(0), x, shape, replace, p, axis, mode=mode)
    assert got.shape == np.shape(np.random.default_rng(0).choice(x, shape or None, replace, p, axis))
    assert got.dtype == (jnp.int32 if is_range else dtype)
    _same_as_jax(got, jax.random.choice(key(0), x, shape, replace, p, axis, mode=mode))
    if not replace and shape:  # no entry twice
        flat = np.moveaxis(_np(got), axis, -1).reshape(-1, got.shape[axis]) if not is_range else _np(got).ravel()
        assert len(np.unique(flat, axis=0)) == len(flat)
    if not is_range:
        _same_as_jax(tj.random.choice(key(0), tj.constant(x), shape, replace, p, axis, mode=mode), _np(got))
        if not replace and shape:  # (one case: each is a compile)
            _in_function_equals(lambda k, a: tj.random.choice(k, a, shape, replace, p, axis, mode=mode), got,
                                key(0), tj.constant(x))


@pytest.mark.parametrize("replace", [False, True])
def test_choice_shape_must_be_a_sequence(replace):
    with pytest.raises(TypeError):
        tj.random.choice(key(0), 5, 2, replace=replace)


PERMUTATION = [  # (dtype, range or shape, axis, independent)
    (np.float32, 100, 0, False), (np.int32, (10, 10), 1, True), (np.int32, (0, 5), 1, True),
    (np.float32, (10, 5, 2), -2, False)]


@pytest.mark.parametrize("dtype,x,axis,independent", PERMUTATION)
def test_permutation(dtype, x, axis, independent):
    is_range = isinstance(x, int)
    if not is_range:
        x = np.random.default_rng(0).permutation(np.arange(math.prod(x), dtype=dtype)).reshape(x)
    x_copy = np.copy(x)
    arr = np.arange(x) if is_range else x
    got = tj.random.permutation(key(0), x, axis, independent=independent)
    _same_as_jax(got, jax.random.permutation(key(0), x, axis, independent=independent))
    if arr.shape[axis] >= 10:
        assert not np.array_equal(_np(got), arr)

    def lsort(a):
        if not a.size:
            return a
        return np.take(a, np.lexsort(np.swapaxes(a, axis, -1).reshape((-1, a.shape[axis]))), axis)
    if not independent:
        np.testing.assert_array_equal(lsort(_np(got)), lsort(arr))
    np.testing.assert_array_equal(x, x_copy)  # (the input is left alone)
    if not is_range:
        if independent and arr.size:  # (one case: a compile each)
            _in_function_equals(lambda k, a: tj.random.permutation(k, a, axis, independent=independent), got,
                                key(0), tj.constant(x))


def test_permutation_errors():
    with pytest.raises(ValueError):
        tj.random.permutation(key(0), 10, axis=3)
    with pytest.raises(TypeError):
        tj.random.permutation(key(0), 10.)
    with pytest.raises(jax.errors.ConcretizationTypeError):  # (a Tensor n inside tj.function: jax.jit's case)
        tj.function(lambda k, n: tj.random.permutation(k, n))(key(0), tj.constant(10))


# -- bernoulli, categorical -------------------------------------------------------------------------------------

@pytest.mark.parametrize("p,mode", [(0.1, None), (0.5, "high"), (0.9, "low")])
def test_bernoulli_distribution(p, mode):
    kw = {} if mode is None else {"mode": mode}
    got = tj.random.bernoulli(key(0), np.float32(p), (N,), **kw)
    _same_as_jax(got, jax.random.bernoulli(key(0), np.float32(p), (N,), **kw))
    _chi2(got, scipy.stats.bernoulli(p).pmf)


def test_bernoulli_shape_and_small_probability():
    with jax.numpy_rank_promotion("allow"):
        assert tj.random.bernoulli(key(0), np.array([0.2, 0.3]), shape=(3, 2)).shape == (3, 2)
    # mode='high' resolves p = 1e-10: no True in 10**5 draws (JAX's N = 10**8)
    assert _np(tj.random.bernoulli(key(0), jnp.float32(1e-10), (100_000,), mode="high")).sum() == 0


@pytest.mark.parametrize("p,axis,sample_shape,mode", [
    ([.1, .2, .3, .4], -1, (N,), None), ([[.5, .5], [.1, .9]], 1, (5000, 2), "high"),
    ([[.5, .1], [.5, .9]], 0, (N,), "highest")])
def test_categorical_distribution(p, axis, sample_shape, mode):
    p = np.array(p, np.float32)
    logits = np.log(p) - 42  # (unnormalized)
    out_shape = tuple(np.delete(logits.shape, axis))
    shape = sample_shape + out_shape
    got = tj.random.categorical(key(0), logits, axis=axis, shape=shape, mode=mode)
    _same_as_jax(got, jax.random.categorical(key(0), logits, axis=axis, shape=shape, mode=mode))
    samples = _np(got).reshape((N,) + out_shape)
    ps = p.T if axis == 0 else p
    for col, cat_p in zip(samples.T.reshape(-1, N), ps.reshape(-1, ps.shape[-1])):
        _chi2(col, lambda v, cat_p=cat_p: np.where(v < len(cat_p), cat_p[np.minimum(len(cat_p) - 1, v)], 0.0))


@pytest.mark.parametrize("logits_shape,prefix_shape", [((7,), (2,)), ((7,), (3, 4))])
def test_categorical_without_replacement(logits_shape, prefix_shape):
    k, sub = jax.random.split(key(0))
    logits = jax.random.normal(sub, logits_shape)
    axis = -1
    dists_shape = logits_shape[:-1]
    n_categories = logits_shape[axis]
    shape = prefix_shape + dists_shape
    prefix_size = math.prod(prefix_shape)
    if n_categories < prefix_size:
        with pytest.raises(ValueError, match="Number of samples without replacement"):
            tj.random.categorical(k, logits, axis=axis, shape=shape, replace=False)
        return
    out = tj.random.categorical(k, logits, axis=axis, shape=shape, replace=False)
    _same_as_jax(out, jax.random.categorical(k, logits, axis=axis, shape=shape, replace=False))
    flat = _np(out).reshape((prefix_size, math.prod(dists_shape)))
    assert ((flat >= 0) & (flat < n_categories)).all()
    assert all(len(np.unique(col)) == prefix_size for col in flat.T)  # (each category at most once)


@pytest.mark.parametrize("base,axis", [((3, 1), -1), ((1, 4), 1)])
def test_categorical_shape_argument(base, axis):
    logits_shape = list(base)
    logits_shape.insert(axis % (len(base) + 1), 10)
    got = tj.random.categorical(key(0), jnp.ones(logits_shape), axis=axis, shape=(3, 4))
    assert got.shape == (3, 4)


# -- continuous distributions with no shape parameter, and the location-scale ones ------------------------------

SIMPLE = {
    "cauchy": ((), scipy.stats.cauchy()), "exponential": ((), scipy.stats.expon()),
    "gumbel": ((), scipy.stats.gumbel_r()), "laplace": ((), scipy.stats.laplace()),
    "logistic": ((), scipy.stats.logistic()), "pareto": ((np.float32(1.0),), scipy.stats.pareto(1.0)),
    "rayleigh": ((np.float32(2.0),), scipy.stats.rayleigh(scale=2.0)),
    "wald": ((np.float32(2.0),), scipy.stats.invgauss(mu=2.0)),
    "lognormal": ((np.float32(0.5),), scipy.stats.lognorm(s=0.5)),
    "triangular": ((np.float32(1.), np.float32(5.), np.float32(20.)), scipy.stats.triang(4 / 19, loc=1., scale=19.)),
}


@pytest.mark.parametrize("name", sorted(SIMPLE))
def test_distribution_against_scipy(name):
    args, dist = SIMPLE[name]
    seed = 1 if name == "triangular" else 0  # (JAX's keys)
    got = getattr(tj.random, name)(key(seed), *args, shape=(N,))
    _same_as_jax(got, getattr(jax.random, name)(key(seed), *args, shape=(N,)))
    _ks(got, dist.cdf)
    if name == "cauchy":  # (one inside tj.function: uniform's and choice's are the others)
        _in_function_equals(lambda k: getattr(tj.random, name)(k, *args, shape=(N,)), got, key(seed))


def test_pareto_shape_broadcast():
    with jax.numpy_rank_promotion("allow"):
        assert tj.random.pareto(key(0), np.array([0.2, 0.3]), shape=(3, 2)).shape == (3, 2)


def test_geometric_distribution_and_bfloat16_has_no_infinity():
    p = 0.3
    got = tj.random.geometric(key(1), np.float32(p), shape=(N,))
    _same_as_jax(got, jax.random.geometric(key(1), np.float32(p), shape=(N,)))
    _chi2(got, scipy.stats.geom(p).pmf)
    np.testing.assert_allclose(_np(got).mean(), 1 / p, rtol=0.02)
    np.testing.assert_allclose(_np(got).var(), (1 - p) / p ** 2, rtol=0.05)
    vals = _np(tj.random.geometric(key(0), jnp.bfloat16(0.1), shape=(256,)))
    assert not np.any(vals == np.iinfo(vals.dtype).max)


def test_maxwell_weibull_and_double_sided_maxwell_moments_and_ks():
    m = tj.random.maxwell(key(0), shape=(N,))
    _same_as_jax(m, jax.random.maxwell(key(0), shape=(N,)))
    np.testing.assert_allclose(_np(m).mean(), scipy.stats.maxwell.mean(), rtol=0.1)
    np.testing.assert_allclose(_np(m).std(), scipy.stats.maxwell.std(), rtol=0.1)
    _ks(m, scipy.stats.maxwell().cdf)
    for conc, scale in ((4.0, 1.0), (2.0, 3.0)):
        w = tj.random.weibull_min(key(0), np.float32(scale), np.float32(conc), shape=(N,))
        dist = scipy.stats.weibull_min(c=conc, scale=scale)
        np.testing.assert_allclose(_np(w).mean(), dist.mean(), rtol=0.1)
        np.testing.assert_allclose(_np(w).std(), dist.std(), rtol=0.1)
        _ks(w, dist.cdf)
    for loc, scale in ((4.0, 1.0), (2.0, 3.0)):
        d = tj.random.double_sided_maxwell(key(0), np.float32(loc), np.float32(scale), shape=(N,))
        np.testing.assert_allclose(_np(d).mean(), loc, rtol=0.1)
        np.testing.assert_allclose(_np(d).std(), np.sqrt(3.) * scale, rtol=0.1)
        _ks(d, lambda x, loc=loc, scale=scale: (scipy.stats.maxwell().cdf((x - loc) / scale)
                                                + 1 - scipy.stats.maxwell().cdf((loc - x) / scale)) / 2)


def test_rademacher_balanced():
    got = tj.random.rademacher(key(0), shape=(100_000,))
    _same_as_jax(got, jax.random.rademacher(key(0), shape=(100_000,)))
    values, counts = np.unique(_np(got), return_counts=True)
    np.testing.assert_array_equal(values, [-1, 1])
    np.testing.assert_allclose(counts / 100_000, 0.5, rtol=1e-2, atol=1e-2)


def test_low_probability_gumbel_bfloat16():
    probs = [x * 2.0 ** -jnp.finfo(jnp.bfloat16).nmant for x in (0.125, 0.75, 1.25, 2.125)]
    v = tj.random.gumbel(key(0), (1024 * 128, 1), dtype=jnp.bfloat16, mode="high")
    thresholds = np.array([[-np.log(-np.log(1 - x)) for x in probs]], dtype=jnp.bfloat16)
    counts = (_np(v) > thresholds).sum(axis=0)
    np.testing.assert_allclose(counts / (1024 * 128), probs, rtol=0.25, atol=0)


def test_vmap_over_keys_of_uniform():
    keys = jax.random.split(jax.random.key(0, impl="rbg"), 10)
    got = jax.vmap(lambda k: tj.random.uniform(k, (1000,)))(keys)
    want = jax.vmap(lambda k: jax.random.uniform(k, (1000,)))(keys)
    np.testing.assert_array_equal(_np(got), np.asarray(want))
    _collisions(_np(got).ravel(), jnp.finfo(jnp.float32).nmant)
    _ks(got, scipy.stats.uniform().cdf, pval=0.005)


# -- orthogonal, multivariate normal ----------------------------------------------------------------------------

@pytest.mark.parametrize("n,shape,dtype,m", [(3, (), jnp.float32, None), (2, (5,), jnp.float32, 4),
                                             (4, (), jnp.float32, 1), (3, (2,), jnp.complex64, None)])
def test_orthogonal(n, shape, dtype, m):
    q = tj.random.orthogonal(key(0), n, shape, dtype, m)
    m = n if m is None else m
    assert q.shape == (*shape, n, m) and q.dtype == dtype
    q = _np(q)
    qh = np.conj(np.swapaxes(q, -1, -2))
    if n <= m:
        np.testing.assert_allclose(q @ qh, np.broadcast_to(np.eye(n), (*shape, n, n)), atol=1e-5)
    if n >= m:
        np.testing.assert_allclose(qh @ q, np.broadcast_to(np.eye(m), (*shape, m, m)), atol=1e-5)


def test_multivariate_normal_whitened_is_standard_normal():
    method = "cholesky"
    rng = np.random.default_rng(0)
    dim = 3
    mean = rng.standard_normal(dim).astype(np.float32)
    factor = rng.standard_normal((dim, dim))
    cov = (factor @ factor.T + dim * np.eye(dim)).astype(np.float32)
    got = tj.random.multivariate_normal(key(0), mean, cov, shape=(N,), method=method)
    _same_as_jax(got, jax.random.multivariate_normal(key(0), mean, cov, shape=(N,), method=method))
    inv_scale = scipy.linalg.lapack.dtrtri(np.linalg.cholesky(cov.astype(np.float64)), lower=True)[0]
    whitened = np.einsum("nj,ij->ni", _np(got).astype(np.float64) - mean, inv_scale)
    _ks(whitened, scipy.stats.norm().cdf, pval=0.002)


def test_multivariate_normal_covariance_and_singular_covariance():
    cov = np.array([[0.19, 0.00, -0.13, 0.00], [0.00, 0.29, 0.00, -0.23], [-0.13, 0.00, 0.39, 0.00],
                    [0.00, -0.23, 0.00, 0.49]], np.float32)
    out = _np(tj.random.multivariate_normal(key(0), np.zeros(4, np.float32), cov, shape=(20000,)))
    np.testing.assert_allclose(out.var(axis=0), np.diag(cov), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(np.cov(out, rowvar=False), cov, rtol=1e-2, atol=1e-2)
    # a singular covariance: Cholesky gives NaN, eigh a finite draw with equal columns
    sigma = np.ones((2, 2), np.float32)
    chol = _np(tj.random.multivariate_normal(key(0), np.zeros(2, np.float32), sigma, shape=(10,)))
    assert np.all(np.isnan(chol))
    eig = _np(tj.random.multivariate_normal(key(0), np.zeros(2, np.float32), sigma, shape=(10,), method="eigh"))
    assert not np.any(np.isnan(eig))
    np.testing.assert_allclose(eig[:, 0], eig[:, 1], atol=1e-3, rtol=1e-3)


# -- the gamma family -------------------------------------------------------------------------------------------

def _full(a, n=N):
    return np.full((n,), a, np.float32)


@pytest.mark.parametrize("a", [0.1, 1.0, 10.0])
def test_gamma_distribution_and_equals_exp_loggamma(a):
    """testGamma (a vector of equal a's: one kernel for every a) and testGammaVsLogGamma."""
    g = tj.random.gamma(key(1), _full(a))
    assert g.dtype == jnp.float32 and g.shape == (N,)
    _ks(g, scipy.stats.gamma(a).cdf)
    lg = tj.random.loggamma(key(1), _full(a))
    np.testing.assert_allclose(_np(g), np.exp(_np(lg)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("log_space", [False, True])
@pytest.mark.parametrize("alpha", [1e-2, 1.0, 1e2])
def test_gamma_gradient_is_the_implicit_reparameterization(alpha, log_space):
    """testGammaGrad: the tape's gradient of the draw (or of exp(loggamma)) w.r.t. a equals -dF/da / pdf at the
    draw, dF/da by central differences of scipy's CDF (JAX's reference and tolerance)."""
    alphas = tj.constant(_full(alpha))
    with tj.GradientTape() as tape:
        tape.watch(alphas)
        z = tnp.exp(tj.random.loggamma(key(1), alphas)) if log_space else tj.random.gamma(key(1), alphas)
        total = tnp.sum(z)
    grad = _np(tape.gradient(total, alphas)).astype(np.float64)
    zs = _np(z).astype(np.float64)
    eps = 0.01 * alpha / (1.0 + np.sqrt(alpha))
    cdf_dot = (scipy.stats.gamma.cdf(zs, alpha + eps) - scipy.stats.gamma.cdf(zs, alpha - eps)) / (2 * eps)
    with np.errstate(over="ignore"):
        pdf = scipy.stats.gamma.pdf(zs, alpha)
    np.testing.assert_allclose(grad, -cdf_dot / pdf, rtol=7e-4)


def test_dirichlet_distribution_and_small_alpha():
    alpha = np.array([0.2, 1., 5.], np.float32)
    samples = tj.random.dirichlet(key(0), alpha, shape=(N,))
    assert samples.shape == (N, 3) and samples.dtype == jnp.float32
    np.testing.assert_allclose(_np(samples).sum(-1), np.ones(N), rtol=1e-5)
    for i, a in enumerate(alpha):
        _ks(_np(samples)[:, i], scipy.stats.beta(a, alpha.sum() - a).cdf, pval=0.003)
    # testDirichletSmallAlpha: on the simplex, with one coordinate 1 (JAX's 100 draws: the first 100 here)
    small = _np(tj.random.dirichlet(key(0), np.full(3, 1e-5, np.float32), shape=(N,)))[:100]
    np.testing.assert_allclose(small.sum(1), np.ones(100), rtol=1e-5)
    np.testing.assert_allclose(small.max(1), np.ones(100), rtol=1e-4)


# -- counts: poisson, binomial, multinomial ---------------------------------------------------------------------

def test_poisson_distribution_batches_zeros_and_corner_cases():
    """testPoisson (lam 3 and 50), testPoissonBatched / testPoissonWithoutShape (lam's own shape: 2 and 20),
    testPoissonZeros and testPoissonCornerCases (-1, 0, NaN) in one draw of a lam vector (one kernel)."""
    parts = [np.full(N, 3.0), np.full(N, 50.0), np.full(N // 2, 2.0), np.full(N // 2, 20.0), np.zeros(10),
             [-1, 0, np.nan]]
    lam = np.concatenate(parts).astype(np.float32)
    draw = tj.random.poisson(key(0), lam)
    assert draw.shape == lam.shape and draw.dtype == jnp.int32
    samples = np.split(_np(draw), np.cumsum([len(q) for q in parts])[:-1])
    for rate, got in zip((3.0, 50.0, 2.0, 20.0), samples):
        _chi2(got, scipy.stats.poisson(rate).pmf)
        if len(got) == N:  # (JAX's moment checks, at its sample size)
            np.testing.assert_allclose(got.mean(), rate, rtol=0.02)
            np.testing.assert_allclose(got.var(), rate, rtol=0.03)
    np.testing.assert_array_equal(samples[4], 0)
    np.testing.assert_array_equal(samples[5], [-1, 0, -1])


def test_poisson_shape_and_rbg_keys():
    with jax.numpy_rank_promotion("allow"):
        assert _shape_dtype(lambda k: tj.random.poisson(k, np.array([2.0, 20.0], np.float32), shape=(3, 2)),
                            key(0)) == ((3, 2), jnp.int32)
    with pytest.raises(NotImplementedError):  # (jax's poisson needs threefry keys)
        tj.random.poisson(jax.random.key(0, impl="rbg"), 3.0, (100,))


def test_binomial_distribution_and_corner_cases():
    """testBinomialSample (n 13, p 0.3, 12000 draws) and testBinomialCornerCases in one draw (one kernel): the
    corner (n, p) pairs are n's corners at p = 0.5, p's at n = 5, and both."""
    n, p = 13.0, 0.3
    inf, nan = np.inf, np.nan
    corner_n = [-1, 0, nan, inf, 5, 5, 5, 5, inf, -1, inf]
    corner_p = [.5, .5, .5, .5, nan, 0, -0.1, 1.1, nan, nan, -0.1]
    ns = np.concatenate([np.full(12000, n), corner_n]).astype(np.float32)
    ps = np.concatenate([np.full(12000, p), corner_p]).astype(np.float32)
    draw = tj.random.binomial(key(12), ns, ps)
    assert draw.dtype == jnp.float32 and draw.shape == ns.shape
    samples = _np(draw)[:12000]
    _chi2(samples, scipy.stats.binom(n, p).pmf, pval=1e-3)
    np.testing.assert_allclose(samples.mean(), n * p, rtol=0.025)
    np.testing.assert_allclose(samples.var(), n * p * (1 - p), rtol=0.036)
    np.testing.assert_array_equal(_np(draw)[12000:], [nan, 0, nan, inf, nan, 0, nan, nan, nan, nan, nan])


def test_multinomial_frequencies():
    probs = np.array([[0.5, 0.2, 0.3], [0.1, 0.2, 0.7], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
                      [0.5, 0.0, 0.5]], np.float32)
    counts = tj.random.multinomial(key(0), np.float32(1e5), probs)
    assert counts.shape == (6, 3) and counts.dtype == jnp.float32
    np.testing.assert_allclose(_np(counts) / 1e5, probs, atol=1e-2)
