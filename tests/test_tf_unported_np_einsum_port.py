"""TensorFlow's NumPy-API einsum tests, ported to tapejax.

TF source: tensorflow/python/ops/numpy_ops/tests/np_einsum_test.py (EinsumTest, TF's adaptation of JAX's
lax_numpy_einsum_test). ``tnp.einsum`` there maps to ``tj.numpy.einsum`` (jax.numpy.einsum's signature, including
``optimize=``). Inputs are float32 / int32 / complex64 from a seeded NumPy RNG (TF's test uses float64 ``randn``;
tj.numpy runs with JAX's x64 off, so the 32-bit dtypes are the ones checked).

Values: every method compares with ``np.einsum`` (the test's own reference, dtype included); TF 2.21's
``tf.experimental.numpy.einsum`` was run on the same inputs here and agrees (atol/rtol 1e-4, same dtype) on
every enabled case. Gradients (a sample of the subscripts, with a random output gradient), one ForwardAccumulator
JVP and one tape inside ``tj.function`` are checked against TF 2.21's ``tf.einsum`` under ``tf.GradientTape`` /
``tf.autodiff.ForwardAccumulator`` / ``tf.function``, hard-coded (lists, or a ``D`` digest for larger arrays).

Ported: test_three_operands_1 (test_three_operands_2 is the same case), test_two_operands_1..6,
test_one_operand_1..16 (test_one_operand_4 repeats _3), test_tf_unsupported_1..3, test_from_dask (27 subscripts x
float32/int32/complex64), test_ordered_front_batch_dim_case, test_einsum_path (see below),
test_einsum_kpmurphy_example, test_contraction_broadcasting, test_batch_broadcasting,
test_batch_and_contraction_broadcasting, test_broadcasting_issue_2189. Some subscripts also appear in
test_tf_array_ops_port.py / test_tf_unported_math_port.py (einsum_op_test / special_math_ops_test), with other
shapes, dtypes or methods; these are this file's own methods and cheap, so they are kept.

Left out / changed:
  * test_einsum_path checks ``np.einsum_path``'s output string only; tj.numpy leaves ``einsum_path`` out on
    purpose (test_numpy_index_tricks.py LEFT_OUT). Ported as: ``tj.numpy.einsum`` with ``optimize='greedy'`` and
    with the precomputed path NumPy's docstring gives ([(1, 2), (0, 1)]) gives NumPy's value, for both examples.

Sanctioned differences (API.md: tj.numpy follows jax.numpy / NumPy rules):
  * test_contraction_broadcasting, test_batch_broadcasting, test_batch_and_contraction_broadcasting,
    test_broadcasting_issue_2189 are ``@tntu.disable``d in TF: TF 2.21 raises InvalidArgumentError on a label
    whose sizes differ with one of them 1 (``'cij,cjk->cik'`` of (3, 4, 5), (3, 1, 6)). NumPy and jax.numpy
    broadcast the size-1 dimension; tj.numpy is checked against NumPy's value.
  * test_einsum_kpmurphy_example is disabled in TF (TF's tnp has no einsum_path); ported with ``optimize=
    'optimal'`` against the test's explicit loop.
"""
import numpy as np
import pytest
import itertools
from collections import defaultdict

import tapejax as tj
from conftest import D, close_to_tf, tape_gradients

tnp = tj.numpy


def _operands(shapes, dtype=np.float32, seed=0):
    r = np.random.RandomState(seed)
    out = []
    for s in shapes:
        a = r.randn(*s)
        if dtype == np.int32:
            a = np.round(3 * a)
        elif dtype == np.complex64:
            a = a + 1j * r.randn(*s)
        out.append(a.astype(dtype))
    return out


def _check(s, xs):
    want = np.einsum(s, *xs)
    got = tnp.einsum(s, *xs)
    assert isinstance(got, tj.Tensor)
    assert got.dtype == want.dtype, (s, got.dtype, want.dtype)
    assert got.shape == want.shape, (s, got.shape, want.shape)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-4, rtol=1e-4, err_msg=s)


NAMED = [  # (TF method, subscripts, shapes)
    ("three_operands_1", "i,j,k->ijk", [(3,), (4,), (5,)]),
    ("two_operands_1", "ij,j->i", [(3, 4), (4,)]),
    ("two_operands_2", "ijk,j->i", [(3, 4, 5), (4,)]),
    ("two_operands_3", "iji,i->j", [(3, 4, 3), (3,)]),
    ("two_operands_4", "ij,ij->", [(3, 4), (3, 4)]),
    ("two_operands_5", "nij,jk->nik", [(10, 2, 3), (3, 4)]),
    ("two_operands_6", "sa,shb->shab", [(2, 1), (2, 3, 4)]),
    ("one_operand_1", "ijk->j", [(3, 4, 5)]),
    ("one_operand_2", "ijk->kij", [(3, 4, 5)]),
    ("one_operand_3", "ijk->ki", [(3, 4, 5)]),
    ("one_operand_5", "...ijk->...ki", [(2, 3, 4, 5)]),
    ("one_operand_6", "...ijk->ki", [(3, 4, 5)]),
    ("one_operand_7", "ii->", [(3, 3)]),
    ("one_operand_8", "ij->", [(3, 3)]),
    ("one_operand_9", "iii->", [(3, 3, 3)]),
    ("one_operand_10", "ii->i", [(3, 3)]),
    ("one_operand_11", "iij->i", [(3, 3, 4)]),
    ("one_operand_12", "iii->i", [(3, 3, 3)]),
    ("one_operand_13", "iijkk->i", [(3, 3, 5, 4, 4)]),
    ("one_operand_14", "iijkk->ik", [(3, 3, 5, 4, 4)]),
    ("one_operand_15", "iijkl->il", [(3, 3, 5, 4, 4)]),
    ("one_operand_16", "ij->ij", [(3, 3)]),
    ("tf_unsupported_1", "ij...,jk...->ik...", [(2, 3, 5, 1), (3, 4, 5, 1)]),
    ("tf_unsupported_2", "ijj,k->ik", [(2, 3, 3), (4,)]),
    ("tf_unsupported_3", "ij,ij,jk->ik", [(2, 3), (2, 3), (3, 4)]),
    # disabled in TF (TF raises; NumPy and jax.numpy broadcast the size-1 dimension: see the module docstring)
    ("contraction_broadcasting", "cij,cjk->cik", [(3, 4, 5), (3, 1, 6)]),
    ("batch_broadcasting", "cij,cjk->cik", [(1, 4, 5), (3, 5, 6)]),
    ("batch_and_contraction_broadcasting", "cij,cjk->cik", [(1, 4, 5), (3, 1, 6)]),
    ("broadcasting_issue_2189", "...ij,...j", [(2, 1, 3, 3), (2, 4, 3)]),
]


@pytest.mark.parametrize("name,s,shapes", NAMED, ids=[c[0] for c in NAMED])
def test_einsum_named_cases(name, s, shapes):
    _check(s, _operands(shapes))


DASK = ['abc,bad->abcd', 'abcdef,bcdfg->abcdeg', 'ea,fb,abcd,gc,hd->efgh', 'ab,b', 'aa', 'a,a->', 'a,a->a', 'a,a',
        'a,b', 'a,b,c', 'a', 'ba,b', 'ba,b->', 'defab,fedbc->defac', 'ab...,bc...->ac...', 'a...a', 'abc...->cba...',
        '...ab->...a', 'a...a->a...', '...abc,...abcd->...d', 'ab...,b->ab...', 'aa->a', 'ab,ab,c->c', 'aab,bc->ac',
        'aab,bcc->ac', 'fdf,cdd,ccd,afe->ae', 'fff,fae,bef,def->abd']


def _dask_shapes(s):
    # the test's shapes: labels take sizes 2, 3, 4, 2, ... in order of first appearance; '...' stands for two
    dims = itertools.cycle([2, 3, 4])
    sizes = defaultdict(lambda: next(dims))
    return [tuple(sizes[c] for c in names.replace('...', '01')) for names in s.split('->')[0].split(',')]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex64], ids=["float32", "int32", "complex64"])
def test_einsum_from_dask(dtype):
    # TF's test_from_dask: the dtype is kept (int32 stays int32, complex64 stays complex64), as NumPy's
    for s in DASK:
        _check(s, _operands(_dask_shapes(s), dtype))


def test_einsum_ordered_front_batch_dim_case():
    x = np.ones((1, 8, 20, 4), np.float32)
    got = tnp.einsum('ijkl,ijml->ijkm', x, x)
    assert got.shape == (1, 8, 20, 20) and got.dtype == np.float32
    np.testing.assert_array_equal(got.numpy(), np.full((1, 8, 20, 20), 4.0, np.float32))


def test_einsum_optimize_paths():
    # test_einsum_path's examples (np.einsum_path's docstring): 'greedy' and the path NumPy finds give NumPy's value
    r = np.random.RandomState(0)
    a, b, c = (r.rand(*s).astype(np.float32) for s in [(2, 2), (2, 5), (5, 2)])
    assert np.einsum_path('ij,jk,kl->il', a, b, c, optimize='greedy')[0] == ['einsum_path', (1, 2), (0, 1)]
    want = np.einsum('ij,jk,kl->il', a, b, c)
    for opt in ('greedy', [(1, 2), (0, 1)], False):
        np.testing.assert_allclose(tnp.einsum('ij,jk,kl->il', a, b, c, optimize=opt).numpy(), want, rtol=1e-5)
    big = r.rand(10, 10, 10, 10).astype(np.float32)
    cm = r.rand(10, 10).astype(np.float32)
    np.testing.assert_allclose(tnp.einsum('ea,fb,abcd,gc,hd->efgh', cm, cm, big, cm, cm, optimize='greedy').numpy(),
                               np.einsum('ea,fb,abcd,gc,hd->efgh', cm, cm, big, cm, cm), rtol=1e-4)


def test_einsum_kpmurphy_example():
    # disabled in TF; the test's explicit loop is the reference
    n_, c_, d_, k_, t_ = 2, 3, 4, 5, 6
    s, w, v = _operands([(n_, t_, k_), (k_, d_), (d_, c_)])
    want = np.zeros((n_, c_))
    for n in range(n_):
        for c in range(c_):
            want[n, c] = sum(float(s[n, t, k]) * w[k, d] * v[d, c]
                             for d in range(d_) for k in range(k_) for t in range(t_))
    got = tnp.einsum('ntk,kd,dc->nc', s, w, v, optimize='optimal')
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


# -- gradients against TF 2.21's tf.einsum under tf.GradientTape ----------------------------------------------
# operands _operands(shapes, float32, seed=k) for the k-th case; output gradient
# np.asarray(np.random.RandomState(100 + k).randn(*out_shape), np.float32)
TF_GRADS = [  # (subscripts, shapes, [TF 2.21's gradient for each operand])
    ('ij,j->i', [(3, 4), (4,)], [[-1.331638, -0.2129027, -0.7766566, -0.5838519, 0.2607927, 0.04169564,
        0.1521032, 0.1143437, 0.8775037, 0.1402956, 0.5117902, 0.3847384], [-2.565717, -0.5616406, -1.220898,
        -2.296075]]),
    ('iji,i->j', [(3, 4, 3), (3,)], [D(3.6878070160746574, -0.26691471760841456, 14.295055083930492), [5.181489,
        -0.1644623, -0.6298243]]),
    ('sa,shb->shab', [(2, 1), (2, 3, 4)], [[-6.700561, 3.506181], [-0.6951805, -0.3858602, -0.4409285,
        0.3835585, -0.5416803, -0.1380231, 0.2124819, 0.3763736, 0.05418534, 0.9327889, -0.4055741, 0.01007921,
        0.02728534, 0.06241478, 0.03145174, -0.05865178, 0.09634359, -0.007659034, 0.02613279, -0.002868474,
        -0.08146866, -0.03337402, 0.0425161, 0.03528861]]),
    ('ii->i', [(3, 3)], [[-1.249278, 0, 0, 0, -0.2603314, 0, 0, 0, 0.3837933]]),
    ('iii->', [(3, 3, 3)], [D(-1.2546396553516388, -0.3549086466500141, 1.2546396553516388)]),
    ('iij->i', [(3, 3, 4)], [D(-6.341782987117767, -1.7927047068787312, 6.341782987117767)]),
    ('iijkk->ik', [(3, 3, 5, 4, 4)], [D(5.223657786846161, 1.5201086627146987, 48.36355574429035)]),
    ('...ijk->ki', [(3, 4, 5)], [D(-20.67309557646513, -0.515233384036299, 41.60922586172819)]),
    ('i,j,k->ijk', [(3,), (4,), (5,)], [[11.60262, 0.4548552, -18.26176], [-7.239864, -11.40005, 3.000606,
        -3.668381], [5.874464, 11.50268, 6.628013, 7.453019, 9.061348]]),
    ('ij,ij,jk->ik', [(2, 3), (2, 3), (3, 4)], [[-0.3344417, 0.7669075, 0.1634378, -0.8728797, 0.08068516,
        1.283567], [0.0002443415, 0.4523654, 0.7578819, -0.01735495, -0.04800847, -0.3549012], [0.006456311,
        0.004016026, 0.003746239, -0.001650956, -0.2036719, 0.1128047, -0.1960918, 0.1050769, -0.6663187,
        -0.1589651, -0.4697487, 0.2269241]]),
    ('ijj,k->ik', [(2, 3, 3), (4,)], [[1.270935, 0, 0, 0, 1.270935, 0, 0, 0, 1.270935, -0.5167129, 0, 0, 0,
        -0.5167129, 0, 0, 0, -0.5167129], [1.79681, -0.4234506, 2.874867, -2.602767]]),
    ('ij...,jk...->ik...', [(2, 3, 5, 1), (3, 4, 5, 1)], [D(-1.3208904340863228, 2.2426405393188436,
        49.57217708975077), D(-7.358747966907686, -0.546503929373275, 50.44442215593881)]),
    ('ea,fb,abcd,gc,hd->efgh', [(2, 2), (3, 3), (2, 3, 4, 2), (4, 4), (2, 2)], [[18.4148, -9.790745, 19.28829,
        40.27983], [10.91037, 16.83599, 5.360607, 12.11561, 19.35648, -1.894934, 3.391758, 2.223523, -6.713295],
        D(-27.669752970337868, -6.124962247969407, 222.86868792772293), [-14.19906, 0.08616086, 4.497312,
        -6.456072, 36.20822, 20.31624, -9.074756, 18.98804, -9.393397, -4.029048, 1.397451, -6.51932, -7.705439,
        -5.733656, 2.820777, -2.238636], [-73.13381, 55.7585, -35.60616, 39.3996]]),
    ('fdf,cdd,ccd,afe->ae', [(2, 3, 2), (4, 3, 3), (4, 4, 3), (2, 2, 2)], [[0.06767746, 0, 0.02307348, 0,
        0.1522499, 0, 0, -0.1233375, 0, -0.0420498, 0, -0.2774648], D(-0.6706426925957203, -0.15098809104163236,
        1.187467586249113), D(1.0255747273913585, 0.17241568424673698, 1.1546765253297053), [0.3918082,
        -2.436563, -0.3977609, 2.473582, -0.5464774, 2.682196, 0.5547801, -2.722947]]),
]


@pytest.mark.parametrize("k", range(len(TF_GRADS)), ids=[c[0] for c in TF_GRADS])
def test_einsum_tape_gradients(k):
    s, shapes, want = TF_GRADS[k]
    xs = _operands(shapes, seed=k)
    out_shape = np.einsum(s, *xs).shape
    dy = np.asarray(np.random.RandomState(100 + k).randn(*out_shape), np.float32)
    y, gs = tape_gradients(lambda *a: tnp.einsum(s, *a), xs, output_gradients=tj.constant(dy))
    np.testing.assert_allclose(y.numpy(), np.einsum(s, *xs), atol=1e-4, rtol=1e-4)
    for x, g, w in zip(xs, gs, want):
        assert g is not None and g.shape == x.shape and g.dtype == np.float32
        close_to_tf(g, w, rtol=1e-4, atol=1e-5)


def test_einsum_complex_tape_gradient():
    # 'ab,b->a' of complex64 operands (seed 50) with output gradient [1+2j, -0.5+1j]: TF's conjugate convention
    xs = _operands([(2, 3), (3,)], np.complex64, seed=50)
    dy = tj.constant(np.array([1 + 2j, -0.5 + 1j], np.complex64))
    _, (ga, gb) = tape_gradients(lambda a, b: tnp.einsum('ab,b->a', a, b), xs, output_gradients=dy)
    want_a = [3.8945537 - 0.20543432j, 6.2935853 - 3.9832056j, 0.97801483 - 2.9828224j,
              1.2505398 + 1.4961911j, 3.4813578 + 1.3224725j, 1.4865334 - 0.50364083j]
    want_b = [-3.7164793 - 4.468555j, 1.5299225 + 0.34289205j, -2.0849538 - 0.0051994920j]
    assert ga.dtype == np.complex64 and gb.dtype == np.complex64
    np.testing.assert_allclose(ga.numpy().ravel(), want_a, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), want_b, rtol=1e-5, atol=1e-5)


def test_einsum_forward_accumulator():
    # 'iji,i->j': primals seed 60, tangents seed 61; TF 2.21's ForwardAccumulator JVP
    xs = [tj.constant(x) for x in _operands([(3, 4, 3), (3,)], seed=60)]
    ts = [tj.constant(t) for t in _operands([(3, 4, 3), (3,)], seed=61)]
    with tj.ForwardAccumulator(xs, ts) as acc:
        y = tnp.einsum('iji,i->j', *xs)
    close_to_tf(y, [-1.042153, -0.7791075, 0.8807521, -1.418132], rtol=1e-5, atol=1e-6)
    close_to_tf(acc.jvp(y), [0.1992255, 2.539318, -1.404548, -2.04064], rtol=1e-5, atol=1e-6)


def test_einsum_tape_inside_function():
    # sum(einsum('ij,ij,jk->ik') ** 2) and its gradients from a tape inside tj.function (tf.function in TF)
    @tj.function
    def f(a, b, c):
        with tj.GradientTape() as tape:
            tape.watch([a, b, c])
            loss = tnp.sum(tnp.einsum('ij,ij,jk->ik', a, b, c) ** 2)
        return loss, tape.gradient(loss, [a, b, c])

    loss, (ga, gb, gc) = f(*[tj.constant(x) for x in _operands([(2, 3), (2, 3), (3, 4)], seed=70)])
    close_to_tf(loss, [42.61479], rtol=1e-5)
    close_to_tf(ga, [22.74251, -0.4665501, -51.17686, 0.9411188, -3.06115, 20.0809], rtol=1e-4, atol=1e-5)
    close_to_tf(gb, [-6.376588, 0.2000465, -32.50413, 0.5403213, -0.370834, 27.44313], rtol=1e-4, atol=1e-5)
    close_to_tf(gc, [0.3583612, -0.2572846, -24.10259, 12.31903, -0.7613168, -0.9008409, 1.131762, -0.04692002,
                     -2.585626, -2.696131, 16.41376, -6.717422], rtol=1e-4, atol=1e-5)
