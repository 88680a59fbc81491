"""TensorFlow's random-number tests, ported to tj.random (TF 2.21's behaviour; the numbers themselves are
JAX's, so what is ported is the semantics: argument rules and errors, dtypes and shapes, value ranges,
statistics, determinism from a seed, new numbers on every draw, checkpoints, gradients).

Sources: tensorflow/python/kernel_tests/random/stateful_random_ops_test.py (StatefulRandomOpsTest),
random_ops_test.py (RandomNormalTest, TruncatedNormalTest, RandomUniformTest, RandomShapeTest),
stateless_random_ops_test.py (StatelessOpsTest, on JAX keys), and the tf.random.Generator parts of
tensorflow/docs site/en/guide/random_numbers.ipynb. A graph session's "evaluate the same op again" is a
tj.function called again; "a new graph" is tj.random.set_seed again. Expected behaviour was observed in
TF 2.21; with JAX's x64 off, float64/int64 draws come back as float32/int32 (tapejax's convention).
"""
import math
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from tapejax.deferred import replay

tnp = tj.numpy
Generator = tj.random.Generator
FLOATS = [jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64]
INTS = [jnp.int32, jnp.int64]


def _canon(dtype):
    return jax.dtypes.canonicalize_dtype(jnp.dtype(dtype))


def _np(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x).astype(np.float64)


def _all_different(tensors):
    """StatefulRandomOpsTest.assertAllDifferent: no value repeats anywhere among the tensors."""
    flat = np.concatenate([np.ravel(np.asarray(t)) for t in tensors]).tolist()
    assert len(flat) == len(set(flat))


def _chi_squared(x, bins):  # (TF's kernel_tests/random/util.py: Pearson's statistic on [0, 1))
    hist, _ = np.histogram(np.ravel(x), bins=bins, range=(0, 1))
    expected = len(np.ravel(x)) / bins
    return float(np.sum((hist - expected) ** 2 / expected))


def _anderson_darling(x):  # (TF's util.py: against the standard normal)
    x = np.sort(np.ravel(x))
    n = len(x)
    i = np.arange(1, n + 1)
    cdf = 0.5 + 0.5 * np.vectorize(math.erf)(x / math.sqrt(2))
    return float(-n - np.sum((2 * i - 1) * np.log(cdf) + (2 * (n - i) + 1) * np.log(1 - cdf)) / n)


# -- StatefulRandomOpsTest ----------------------------------------------------------------------------------

def test_batch_seeds_split_gives_independent_generators():
    """StatefulRandomOpsTest.testBatchSeeds (the split part; make_seeds, which feeds the stateless ops, is
    tested in test_random_mirror.py)."""
    gen = Generator.from_seed(1234)
    gens = gen.split(count=6)
    assert len(gens) == 6
    _all_different([g.uniform_full_int(shape=[2, 3], dtype=jnp.int32) for g in gens])
    again = gen.split(count=6)  # split advances the parent: a second split gives other generators
    _all_different([g.uniform_full_int(shape=[2, 3], dtype=jnp.int32) for g in gens + again])
    assert gen.split(0) == []  # TF: an empty list
    with pytest.raises(ValueError):  # TF: InvalidArgumentError (a negative size)
        gen.split(-1)


def test_split_in_function():
    """StatefulRandomOpsTest.testSplitInFunction: split inside tf.function, on its first call only."""
    g = Generator.from_seed(1)
    new_g = [None]

    @tj.function
    def f():
        if new_g[0] is None:  # (no new Variables on later traces)
            new_g[0] = g.split(2)
        return [new_g[0][i].normal([]) for i in range(2)]

    r1, r2 = f(), f()
    assert all(x.shape == () for x in r1 + r2)
    _all_different([tnp.stack(r1), tnp.stack(r2)])
    ref = Generator.from_seed(1)  # the parent split once (the call that made them), as an eager split
    ref_gens = ref.split(2)
    np.testing.assert_array_equal(g.state.numpy(), ref.state.numpy())
    np.testing.assert_array_equal([x.numpy() for x in r1], [h.normal([]).numpy() for h in ref_gens])


def test_reset_inside_function_repeats_the_stream():
    """StatefulRandomOpsTest.testReset (``reset`` takes a state as Generator.state holds it: a JAX key's data;
    ``reset_from_key_counter``: test_random_mirror.py)."""
    shape = [2, 3]
    gen = Generator.from_seed(0)
    saved = Generator.from_seed(7).state.numpy()
    for resetter in [lambda g: g.reset(state=saved), lambda g: g.reset_from_seed(1234)]:
        resetter(gen)
        expected_normal = gen.normal(shape).numpy()

        @tj.function
        def f(resetter):
            resetter(gen)
            return gen.normal(shape)
        np.testing.assert_array_equal(f(resetter).numpy(), expected_normal)
        np.testing.assert_array_equal(f(resetter).numpy(), expected_normal)
    with pytest.raises(ValueError):  # TF: "Shapes (2,) and [3] are incompatible" (a state of the wrong size)
        gen.reset([1, 2, 3])


def test_generator_creation_in_eager_and_function():
    """StatefulRandomOpsTest.testGeneratorCreation: a generator made inside tf.function on its first call is
    made once and draws the same stream as one made eagerly (from_key_counter: test_random_mirror.py)."""
    shape = [2, 3]
    state = Generator.from_seed(99).state.numpy()
    for constructor in [lambda: Generator(state=state, alg="philox"), lambda: Generator.from_seed(1234),
                        lambda: Generator.from_state(state, tj.random.Algorithm.PHILOX)]:
        gen = constructor()
        expected_normal1 = gen.normal(shape).numpy()
        expected_normal2 = gen.normal(shape).numpy()
        made = [None]

        @tj.function
        def f(constructor):
            if made[0] is None:
                made[0] = constructor()
            return made[0].normal(shape)
        np.testing.assert_array_equal(f(constructor).numpy(), expected_normal1)
        np.testing.assert_array_equal(f(constructor).numpy(), expected_normal2)


def test_create_generator_from_symbolic_arguments():
    """StatefulRandomOpsTest.testCreateGeneratorFromSymbolic: seeds and states that are tf.function arguments
    (a state here is a key's data, 2 words)."""
    g = [None, None]

    @tj.function
    def f(scalar, vector2):
        if g[0] is None:
            g[0] = Generator.from_seed(scalar)
            g[0].reset_from_seed(scalar)
            g[1] = Generator.from_state(vector2, "philox")
            g[1].reset(vector2)
        return [g[i].normal([]) for i in range(2)]
    first = f(tj.constant(1), tj.constant([2, 2]))
    np.testing.assert_array_equal(first[0].numpy(), Generator.from_seed(1).normal([]).numpy())
    np.testing.assert_array_equal(first[1].numpy(), Generator.from_state([2, 2], "philox").normal([]).numpy())
    second = f(tj.constant(1), tj.constant([2, 2]))
    assert second[0].numpy() != first[0].numpy() and second[1].numpy() != first[1].numpy()


@pytest.mark.parametrize("name,int_id,enum_id", [("philox", 1, tj.random.Algorithm.PHILOX),
                                                 ("threefry", 2, tj.random.Algorithm.THREEFRY),
                                                 ("auto_select", 3, tj.random.Algorithm.AUTO_SELECT)])
def test_alg(name, int_id, enum_id):
    """StatefulRandomOpsTest.testAlg: an algorithm by name, id or enum is the same (TF's ids: 1, 2, 3)."""
    g_by_name = Generator.from_seed(1234, name)
    g_by_int = Generator.from_seed(1234, int_id)
    g_by_enum = Generator.from_seed(1234, enum_id)
    assert g_by_name.algorithm == g_by_int.algorithm == g_by_enum.algorithm == int_id
    out = [g.normal([3]).numpy() for g in (g_by_name, g_by_int, g_by_enum)]
    np.testing.assert_array_equal(out[0], out[1])
    np.testing.assert_array_equal(out[0], out[2])


def test_alg_default_and_errors():
    """The guide's ``from_seed(1, alg='philox')`` and TF's default (Philox, id 1); an unknown algorithm
    raises TF's ValueError (TF 2.21 raises AttributeError for an unknown id: its own bug)."""
    assert Generator.from_seed(1).algorithm == 1
    assert Generator.from_seed(1, alg="Philox").algorithm == 1  # (TF canonicalizes case, '-' and '_')
    for bad in ("foo", 7):
        with pytest.raises(ValueError, match="unsupported value"):
            Generator.from_seed(1, alg=bad)


def test_generator_creation_with_var():
    """StatefulRandomOpsTest.testGeneratorCreationWithVar: a Variable given as the state is used as it is."""
    state = Generator.from_seed(5).state.numpy()
    var = tj.Variable(state, dtype=jnp.uint32)
    g = Generator(state=state, alg="philox")
    g_var = Generator(state=var, alg="philox")
    assert g_var.state is var
    g.normal([2, 3])
    g_var.normal([2, 3])
    np.testing.assert_array_equal(g.state.read_value().numpy(), var.read_value().numpy())


def test_generator_creation_unseeded():
    """StatefulRandomOpsTest.testGeneratorCreationUnseeded."""
    made = [None]

    @tj.function
    def f():
        if made[0] is None:
            made[0] = Generator.from_non_deterministic_state()
        return made[0].normal([2, 3])
    assert f().shape == (2, 3)
    assert Generator.from_non_deterministic_state().algorithm == 1
    a, b = Generator.from_non_deterministic_state(), Generator.from_non_deterministic_state()
    assert not np.array_equal(a.state.numpy(), b.state.numpy())


def test_generator_copy():
    """StatefulRandomOpsTest.testGeneratorCopy: Generator(g) copies the algorithm and the state (into a new
    Variable, as TF), eagerly and inside tf.function."""
    g = Generator.from_seed(0, alg="threefry")
    g_copy = Generator(g)
    assert g_copy.algorithm == g.algorithm == 2 and g_copy.state is not g.state
    np.testing.assert_array_equal(g.state.read_value().numpy(), g_copy.state.read_value().numpy())
    np.testing.assert_array_equal(g_copy.normal([3]).numpy(), g.normal([3]).numpy())
    made = [None]

    @tj.function
    def f():
        if made[0] is None:
            made[0] = Generator(g)
        return made[0].normal([2])
    np.testing.assert_array_equal(f().numpy(), Generator(g).normal([2]).numpy())


def test_eager_and_defun_global_generator():
    """StatefulRandomOpsTest.testEagerAndDefun (also_run_as_tf_function)."""
    assert tj.random.get_global_generator().normal((3,)).shape == (3,)
    assert tj.function(lambda: tj.random.get_global_generator().normal((3,)))().shape == (3,)


def test_op_seed_selection_after_set_seed():
    """StatefulRandomOpsTest.testOpSeedSelectionAfterSetSeed (TF's issue 9171)."""
    shape = (3,)
    tj.random.get_global_generator().reset_from_seed(1)
    a = tj.random.get_global_generator().normal(shape).numpy()
    tj.random.get_global_generator().reset_from_seed(1)
    b = tj.random.get_global_generator().normal(shape).numpy()
    np.testing.assert_array_equal(a, b)

    @tj.function
    def f():
        return tj.random.get_global_generator().normal(shape)
    tj.random.get_global_generator().reset_from_seed(1)
    c = f().numpy()
    tj.random.get_global_generator().reset_from_seed(1)
    d = f().numpy()
    np.testing.assert_array_equal(c, d)
    np.testing.assert_array_equal(a, c)


def test_set_seed_docstring_random_ops_in_functions():
    """tf.random.set_seed's docstring, as TF 2.21 runs it: eagerly, draws with one op seed go on in one stream
    (A1, A2); inside a tf.function each random op keeps its own state, so two ops with the same op seed give the
    same numbers, (A1, A1), then (A2, A2) at the next call, and set_seed restarts them, (A1, A1); with a global
    seed and no op seeds, two functions drawing alike give the same numbers (TF: f() and g() both (A1, A2)),
    which move on at the next call. (TF 2.21 observed: uniform([1], seed=1) is 0.169 both eagerly and as foo's
    first draw.) The numbers themselves are not TF's."""
    def values(*ts):
        return [float(np.ravel(t.numpy())[0]) for t in ts]

    tj.random.set_seed(1234)

    @tj.function
    def foo():
        return tj.random.uniform([1], seed=1), tj.random.uniform([1], seed=1), tj.random.normal([1], seed=1)
    a1, b1, n1 = values(*foo())
    a2, b2, n2 = values(*foo())
    assert a1 == b1 and a2 == b2 and a1 != a2 and n1 != n2
    tj.random.set_seed(1234)
    assert values(*foo()) == [a1, b1, n1]
    assert values(tj.random.uniform([1], seed=1), tj.random.uniform([1], seed=1)) == [a1, a2]  # eagerly: on

    tj.random.set_seed(1234)

    @tj.function
    def f():
        return tj.random.uniform([1]), tj.random.uniform([1])

    @tj.function
    def g():
        return tj.random.uniform([1]), tj.random.uniform([1])
    f1, f2 = values(*f())
    assert f1 != f2 and values(*g()) == [f1, f2]
    assert not set(values(*f())) & {f1, f2}
    # the multinomial_op_test case: two categorical ops with one op seed in a function draw the same samples
    logits = tnp.log(tj.constant([[0.15, 0.5, 0.3, 0.05]]))
    c1, c2 = tj.function(lambda: (tj.random.categorical(logits, 100, seed=1),
                                  tj.random.categorical(logits, 100, seed=1)))()
    np.testing.assert_array_equal(c1.numpy(), c2.numpy())


def test_op_seed_selection_not_sensitive():
    """StatefulRandomOpsTest.testOpSeedSelectionNotSensitive (a shape Tensor; TF's Print op, the trivial graph
    change, becomes a different Python argument, i.e. another trace)."""
    def f(include_print):
        shape = tj.constant([5])
        if include_print:
            shape = tnp.asarray(shape)
        return tj.random.get_global_generator().normal(shape)

    f_acc = tj.function(f)
    for fst, snd in ((False, False), (True, True), (True, False)):
        for fn in (f, f_acc):
            tj.random.get_global_generator().reset_from_seed(50)
            one = fn(fst).numpy()
            tj.random.get_global_generator().reset_from_seed(50)
            np.testing.assert_array_equal(one, fn(snd).numpy())


def test_skip():
    """StatefulRandomOpsTest.testSkip, by its documented meaning (TF's counter arithmetic is Philox's): the
    state after skip(n) is that after normal([n]); skip returns the state before; skip(0) changes nothing."""
    a, b = Generator.from_seed(5), Generator.from_seed(5)
    before = a.state.numpy()
    old = a.skip(432)
    np.testing.assert_array_equal(old.numpy(), before)
    assert not np.array_equal(a.state.numpy(), before)
    b.normal([432])
    np.testing.assert_array_equal(a.state.numpy(), b.state.numpy())
    np.testing.assert_array_equal(a.normal([2]).numpy(), b.normal([2]).numpy())
    c = Generator.from_seed(5)
    c.skip(0)
    c.normal([0])  # TF: an empty draw does not advance the counter either
    np.testing.assert_array_equal(c.state.numpy(), before)
    c.skip(tj.constant(3))  # a Tensor delta
    one = Generator.from_seed(5)
    one.normal([3])
    np.testing.assert_array_equal(c.state.numpy(), one.state.numpy())

    @tj.function
    def skip_in_function(g, n):  # a traced delta
        g.skip(n)
        return g.normal([2])
    d, e = Generator.from_seed(6), Generator.from_seed(6)
    np.testing.assert_array_equal(skip_in_function(d, tj.constant(0)).numpy(), e.normal([2]).numpy())
    got = skip_in_function(d, tj.constant(4)).numpy()
    e.skip(4)
    np.testing.assert_array_equal(got, e.normal([2]).numpy())


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_uniform_is_in_range(dtype):
    """StatefulRandomOpsTest.testUniformIsInRange."""
    gen = Generator.from_seed(1234)
    x = gen.uniform(shape=[1000], dtype=dtype, minval=2, maxval=33)
    assert x.dtype == _canon(dtype) and x.shape == (1000,)
    x = _np(x)
    assert np.all(x >= 2) and np.all(x < 33)


def test_normal_is_finite():
    """StatefulRandomOpsTest.testNormalIsFinite."""
    gen = Generator.from_seed(1234)
    for dtype in FLOATS:
        x = gen.normal(shape=[10000], dtype=dtype)
        assert x.dtype == _canon(dtype)
        assert np.all(np.isfinite(_np(x)))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_distribution_of_uniform(dtype):
    """StatefulRandomOpsTest.testDistributionOfUniform: Pearson's chi-squared over 10 bins below 16.92 (9
    degrees of freedom, p = 0.05), seed 123."""
    gen = Generator.from_seed(123)
    maxval = 100 if jnp.issubdtype(dtype, jnp.integer) else 1
    x = _np(gen.uniform(shape=[1000], maxval=maxval, dtype=dtype))
    if maxval > 1:
        x = x / maxval
    assert _chi_squared(x, 10) < 16.92


@pytest.mark.parametrize("dtype", FLOATS)
def test_distribution_of_normal(dtype):
    """StatefulRandomOpsTest.testDistributionOfNormal: Anderson-Darling below 2.492 (5%), seed 1234."""
    x = _np(Generator.from_seed(1234).normal(shape=[1000], dtype=dtype))
    assert _anderson_darling(x) < 2.492


def test_errors_integer_bounds_must_be_scalars():
    """StatefulRandomOpsTest.testErrors (the Python-level part; the rest drives TF's raw ops on the state's
    resource handle): integer bounds must be scalars, in tf.function and eagerly (TF eager:
    InvalidArgumentError "minval must be 0-D", raised here as ValueError)."""
    shape = [2, 3]
    gen = Generator.from_seed(1234)

    @tj.function
    def f():
        gen.uniform(shape=shape, minval=tnp.zeros(shape, "int32"), maxval=100, dtype="int32")

    @tj.function
    def f2():
        gen.uniform(shape=shape, minval=0, maxval=tnp.ones(shape, "int32") * 100, dtype="int32")
    with pytest.raises(ValueError, match="minval must be a scalar; got a tensor of shape "):
        f()
    with pytest.raises(ValueError, match="maxval must be a scalar; got a tensor of shape "):
        f2()
    with pytest.raises(ValueError, match="minval must be a scalar"):
        gen.uniform(shape=shape, minval=np.zeros(shape, np.int32), maxval=100, dtype=jnp.int32)


def test_set_global_generator_does_not_affect_a_traced_function():
    """StatefulRandomOpsTest.testSetGlobalGeneratorBadWithDefun."""
    shape = (3,)

    @tj.function
    def f():
        return tj.random.get_global_generator().normal(shape)
    tj.random.set_global_generator(Generator.from_seed(50))
    samples = f().numpy()
    tj.random.set_global_generator(Generator.from_seed(50))
    assert not np.array_equal(samples, f().numpy())  # new samples: the traced function kept its generator
    tj.random.set_global_generator(None)  # TF: the next use makes a new global generator
    assert tj.random.get_global_generator().normal([1]).shape == (1,)


def test_function_arg():
    """StatefulRandomOpsTest.testFunctionArg: a generator as a tf.function argument advances its state."""
    shape = [2, 3]

    @tj.function
    def f(gen):
        return gen.normal(shape)
    g1, g2 = Generator.from_seed(1), Generator.from_seed(1)
    np.testing.assert_array_equal(f(g1).numpy(), g2.normal(shape).numpy())
    np.testing.assert_array_equal(g1.state.read_value().numpy(), g2.state.read_value().numpy())


def test_uniform_full_int():
    """StatefulRandomOpsTest.testUniformFullInt: uniform(minval=None, maxval=None) on an integer dtype is
    uniform_full_int; each bound alone raises TF's ValueError."""
    shape = [3, 4]
    r1 = Generator.from_seed(1).uniform(shape=shape, dtype=jnp.int32, minval=None)
    r2 = Generator.from_seed(1).uniform_full_int(shape=shape, dtype=jnp.int32)
    assert r1.dtype == jnp.int32 and r1.shape == (3, 4)
    np.testing.assert_array_equal(r1.numpy(), r2.numpy())
    big = Generator.from_seed(2).uniform_full_int([10000], dtype=jnp.int32).numpy()
    assert big.min() < -2 ** 30 and big.max() > 2 ** 30 and 0.45 < (big < 0).mean() < 0.55  # TF: 0.4923
    assert Generator.from_seed(2).uniform_full_int([2]).dtype == _canon(jnp.uint64)  # TF's default, uint64
    with pytest.raises(ValueError, match="both `None` or both non-`None`"):
        Generator.from_seed(1).uniform([3], dtype=jnp.int32)  # maxval missing
    with pytest.raises(ValueError, match="both `None` or both non-`None`"):
        Generator.from_seed(1).uniform([3], minval=None, maxval=5, dtype=jnp.int32)
    with pytest.raises(ValueError):  # TF: InvalidArgumentError (not an integer dtype)
        Generator.from_seed(1).uniform_full_int([2], dtype=jnp.float32)


def test_restore(tmp_path):
    """StatefulRandomOpsTest.testRestore: write a checkpoint, draw, restore, draw again: the same numbers."""
    fname = os.path.join(tmp_path, "checkpoint")
    g = Generator.from_seed(1)
    cp = tj.train.Checkpoint(g=g)
    for _ in range(2):  # cp.write in several states of the generator
        cp.write(fname)
        r1 = g.uniform([], dtype=jnp.uint32, minval=None).numpy()
        cp.restore(fname)
        r2 = g.uniform([], dtype=jnp.uint32, minval=None).numpy()
        assert r1 == r2


# -- the guide: random_numbers.ipynb, tf.random.Generator ------------------------------------------------

def test_guide_generator_basics():
    """Guide: from_seed, get_global_generator, alg='philox', from_non_deterministic_state, reset_from_seed."""
    g1 = Generator.from_seed(1)
    assert g1.normal(shape=[2, 3]).shape == (2, 3)
    assert tj.random.get_global_generator().normal(shape=[2, 3]).shape == (2, 3)
    np.testing.assert_array_equal(Generator.from_seed(1, alg="philox").normal(shape=[2, 3]).numpy(),
                                  Generator.from_seed(1).normal(shape=[2, 3]).numpy())
    assert Generator.from_non_deterministic_state().normal(shape=[2, 3]).shape == (2, 3)
    g = Generator.from_seed(1)
    first, second = g.normal([]).numpy(), g.normal([]).numpy()
    assert first != second
    g.reset_from_seed(1)
    assert g.normal([]).numpy() == first


def test_guide_independent_streams_with_split():
    """Guide, "Creating independent random-number streams": split changes the parent's state, and the new
    generators' numbers differ from each other's and from the parent's."""
    g = Generator.from_seed(1)
    ref = Generator.from_seed(1)
    values = [g.normal([]).numpy()]
    new_gs = g.split(3)
    values += [new_g.normal([]).numpy() for new_g in new_gs]
    values.append(g.normal([]).numpy())
    assert len(set(values)) == 5
    ref.normal([])
    assert ref.normal([]).numpy() != values[-1]  # the split advanced g
    assert tj.random.get_global_generator().split(1)[0].normal([]).shape == ()


def test_guide_generators_and_functions():
    """Guide, "Interaction with tf.function": made outside; made inside on the first run only (new numbers on
    each call); passed as arguments (TF 2.21 traces once per generator object: 2 traces)."""
    g = Generator.from_seed(1)

    @tj.function
    def foo():
        return g.normal([])
    assert foo().numpy() == Generator.from_seed(1).normal([]).numpy()

    made = [None]

    @tj.function
    def foo2():
        if made[0] is None:
            made[0] = Generator.from_seed(1)
        return made[0].normal([])
    ref = Generator.from_seed(1)
    a, b = foo2().numpy(), foo2().numpy()
    assert a != b
    assert a == ref.normal([]).numpy() and b == ref.normal([]).numpy()  # TF: True, True

    num_traces = [0]

    @tj.function
    def foo3(g):
        num_traces[0] += 1
        return g.normal([])
    foo3(Generator.from_seed(1))
    foo3(Generator.from_seed(2))
    assert num_traces[0] == 2  # TF 2.21: 2

    @tj.function
    def every_call():  # a generator made on every call: TF's ValueError (singleton Variables)
        return Generator.from_seed(3).normal([])
    with pytest.raises(ValueError, match="singleton"):
        every_call()


def test_guide_stateless_draws_depend_on_the_key_only():
    """Guide, "Stateless RNGs": the same seed (here a JAX key) gives the same numbers."""
    k = tj.random.key(12)
    np.testing.assert_array_equal(tj.random.normal(k, shape=(2, 3)).numpy(),
                                  tj.random.normal(k, shape=(2, 3)).numpy())


def test_module_does_not_track_a_generator_state_and_checkpoint_resumes_it(tmp_path):
    """TF: tf.Module.variables does not list a Generator attribute's state (TF 2.21: only the module's own
    Variable), while tf.train.Checkpoint saves it: restoring a generator, also into one made from another
    seed, resumes the saved stream."""
    class M(tj.Module):
        def __init__(self):
            super().__init__()
            self.g = Generator.from_seed(1)
            self.w = tj.Variable(1.0)
    m = M()
    assert len(m.variables) == 1 and m.variables[0] is m.w
    path = tj.train.Checkpoint(g=m.g).save(os.path.join(tmp_path, "ck"))
    want = m.g.normal([4]).numpy()
    other = Generator.from_seed(99)
    tj.train.Checkpoint(g=other).restore(path)
    np.testing.assert_array_equal(other.normal([4]).numpy(), want)
    # a Checkpoint of the module saves the generator under it (TF: model/g/_state_var), also via a manager
    mgr = tj.train.CheckpointManager(tj.train.Checkpoint(model=m), os.path.join(tmp_path, "mgr"), max_to_keep=2)
    saved = mgr.save()
    assert "model/g/_state_var" in [name for name, _ in tj.train.list_variables(saved)]
    want = m.g.normal([3]).numpy()
    tj.train.Checkpoint(model=m).restore(saved)
    np.testing.assert_array_equal(m.g.normal([3]).numpy(), want)


# -- random_ops_test: tf.random.normal / truncated_normal / uniform --------------------------------------

def _sampler(op, num, a, b, dtype, seed=None, graph_seed=None):
    """random_ops_test's _Sampler: a new graph (here: set_seed, when seeded) evaluating one op 10 times."""
    def func():
        if graph_seed is not None or seed is not None:
            tj.random.set_seed(graph_seed if graph_seed is not None else 0)
        return np.stack([_np(op([num], a, b, dtype=dtype, seed=seed)) for _ in range(10)])
    return func


def test_random_normal_distinct_seed_nocse():
    """RandomNormalTest.testDistinct, testSeed, testNoCSE."""
    for dt in (jnp.float16, jnp.float32, jnp.float64):
        sampler = _sampler(tj.random.normal, 1000, 0.0, 1.0, dt)
        x, y = sampler(), sampler()
        assert (x == y).sum() < 10
        sx = _sampler(tj.random.normal, 1000, 0.0, 1.0, dt, seed=345)
        sy = _sampler(tj.random.normal, 1000, 0.0, 1.0, dt, seed=345)
        np.testing.assert_array_equal(sx(), sy())
    rnd1 = tj.random.normal([2, 3, 4], 0.0, 1.0, jnp.float32)
    rnd2 = tj.random.normal([2, 3, 4], 0.0, 1.0, jnp.float32)
    assert np.linalg.norm(_np(rnd2 - rnd1)) > 0.1


def _not_constant(op, num, a, b, dtype, op_seed=None, graph_seed=None):
    """RandomOpTestCommon._testSingleSessionNotConstant: one op (here one tj.function) evaluated three times
    does not give the same numbers three times."""
    if graph_seed is not None:
        tj.random.set_seed(graph_seed)
    f = tj.function(lambda: op([num], a, b, dtype=dtype, seed=op_seed))
    y, z, w = (f().numpy() for _ in range(3))
    assert not np.array_equal(y, z) or not np.array_equal(z, w) or not np.array_equal(y, w)


def test_single_session_not_constant():
    """RandomNormalTest / RandomUniformTest .testSingleSessionNotConstant, testSingleSessionOpSeedNotConstant,
    testSingleSessionGraphSeedNotConstant."""
    for dt in (jnp.float16, jnp.float32):
        _not_constant(tj.random.normal, 100, 0.0, 1.0, dt)
        _not_constant(tj.random.normal, 100, 0.0, 1.0, dt, op_seed=1345)
        _not_constant(tj.random.normal, 100, 0.0, 1.0, dt, graph_seed=965)
    for dt in (jnp.float32, jnp.int32):
        _not_constant(tj.random.uniform, 100, 0, 17, dt)
        _not_constant(tj.random.uniform, 100, 10, 20, dt, op_seed=1345)
        _not_constant(tj.random.uniform, 100, 20, 200, dt, graph_seed=965)


def test_truncated_normal():
    """TruncatedNormalTest.testDistinct, testSeed, testStdDev (the effective standard deviation is about 85%
    of the one asked for), testNoCSE, testEagerSeed; Generator.truncated_normal alike."""
    sampler = _sampler(tj.random.truncated_normal, 1000, 0.0, 1.0, jnp.float32)
    x, y = sampler(), sampler()
    assert (x == y).sum() < 10
    sx = _sampler(tj.random.truncated_normal, 1000, 0.0, 1.0, jnp.float32, seed=345)
    np.testing.assert_array_equal(sx(), sx())
    stddev = 3.0
    for draw in (lambda: tj.random.truncated_normal([100000], 0.0, stddev),
                 lambda: Generator.from_seed(1).truncated_normal([100000], 1.0, stddev) - 1.0):
        x = _np(draw())
        assert abs(np.std(x) / stddev - 0.85) < 0.04  # TF: 0.880 and 0.879
        assert np.abs(x).max() <= 2 * stddev + 1e-5  # TF: 5.99990, 5.99995
    rnd1 = tj.random.truncated_normal([2, 3, 4], 0.0, 1.0, jnp.float32)
    rnd2 = tj.random.truncated_normal([2, 3, 4], 0.0, 1.0, jnp.float32)
    assert np.linalg.norm(_np(rnd2 - rnd1)) > 0.1
    tj.random.normal([])
    tj.random.set_seed(42)
    rnd1 = tj.random.normal([]).numpy()
    tj.random.set_seed(42)
    assert rnd1 == tj.random.normal([]).numpy()
    assert Generator.from_seed(1).truncated_normal([2], dtype=jnp.float16).dtype == jnp.float16
    with pytest.raises(TypeError):  # TF: "Cannot convert 0.0 to EagerTensor of dtype int32"
        Generator.from_seed(1).truncated_normal([2], dtype=jnp.int32)
    with pytest.raises(TypeError):
        tj.random.truncated_normal([2], dtype=jnp.int32)


def test_random_uniform():
    """RandomUniformTest.testRange, testDistinct, testSeed (also with seeds 2**100 and -2**100), testNoCSE."""
    for dt in (jnp.float16, jnp.float32, jnp.float64, jnp.int32, jnp.int64):
        x = _sampler(tj.random.uniform, 1000, -2, 8, dt)()
        assert -2 <= np.min(x) and np.max(x) < 8
        is_float = jnp.issubdtype(dt, jnp.floating)
        sampler = _sampler(tj.random.uniform, 1000, 0, 1.0 if is_float else 1 << 30, dt)
        x, y = sampler(), sampler()
        assert (x == y).sum() < (50 if dt == jnp.float16 else 10)
    for dt in (jnp.float32, jnp.int32):
        for seed in (345, 2 ** 100, -2 ** 100):
            sx = _sampler(tj.random.uniform, 1000, 0, 17, dt, seed=seed)
            np.testing.assert_array_equal(sx(), sx())
    for dtype in (jnp.float16, jnp.float32, jnp.int32):
        rnd1 = tj.random.uniform([2, 3, 4], 0, 17, dtype=dtype)
        rnd2 = tj.random.uniform([2, 3, 4], 0, 17, dtype=dtype)
        assert np.linalg.norm(_np(rnd2) - _np(rnd1)) > 0.1


def test_uniform_ints_invalid_shape_histogram_and_degenerate():
    """RandomUniformTest.testUniformIntsWithInvalidShape (TF eager: InvalidArgumentError "minval must be 0-D",
    raised here as ValueError), testUniformInts (histogram counts within 5 standard deviations),
    testUniformIntsDegenerate (minval == maxval: fine for no numbers, else "Need minval < maxval")."""
    for dtype in INTS:
        with pytest.raises(ValueError, match="must be a scalar"):
            tj.random.uniform([1000], minval=[1, 2], maxval=3, dtype=dtype)
        with pytest.raises(ValueError, match="must be a scalar"):
            tj.random.uniform([1000], minval=1, maxval=[2, 3], dtype=dtype)
    minv, maxv, n = -2, 15, 100000
    p = 1 / (maxv - minv)
    mean, std = p * n, np.sqrt(n * p * (1 - p))
    for dt in INTS:
        x = _sampler(tj.random.uniform, n // 10, minv, maxv, dt, seed=17)().ravel()
        assert x.shape == (n,)
        counts, _ = np.histogram(x, bins=maxv - minv)
        assert counts.shape == (maxv - minv,) and counts.sum() == n
        assert np.abs(counts - mean).max() < 5 * std
    for dt in INTS:
        assert _sampler(tj.random.uniform, 0, 0, 0, dt)().shape == (10, 0)
        with pytest.raises(ValueError, match="Need minval < maxval, got 0 >= 0"):
            _sampler(tj.random.uniform, 1, 0, 0, dt)()
    with pytest.raises(ValueError, match="Need minval < maxval"):
        Generator.from_seed(1).uniform([1], 5, 2, dtype=jnp.int32)


def test_random_shapes():
    """RandomShapeTest.testTruncatedNormal, testRandomNormal, testRandomUniform (fully known shapes; TF's
    placeholders have no counterpart); the shape may be a list, a tuple or an integer Tensor."""
    for op in (tj.random.truncated_normal, tj.random.normal, tj.random.uniform):
        assert op([1, 2, 3]).shape == (1, 2, 3)
        assert op((1, 2, 3)).shape == (1, 2, 3)
        assert op(tj.constant([1, 2, 3])).shape == (1, 2, 3)
    g = Generator.from_seed(0)
    for op in (g.normal, g.uniform, g.truncated_normal, g.uniform_full_int):
        assert op([1, 2, 3]).shape == (1, 2, 3)
        assert op(tj.constant([1, 2, 3])).shape == (1, 2, 3)
        assert op(np.array([2], np.int64)).shape == (2,)
        assert op([]).shape == ()


# -- stateless_random_ops_test (on JAX keys) ---------------------------------------------------------------

def test_stateless_determinism():
    """StatelessOpsTest.testDeterminismFloat / testDeterminismMultinomial: values are equal iff the seeds
    (keys) are equal (int draws and TF's (seed, seed) pairs have no counterpart: keys are JAX's)."""
    seeds = [x * 5 + y for x in range(5) for y in range(5)] * 2
    logits = tj.constant([[0.1, 0.25, 0.5, 0.15]])
    cases = [lambda k: tj.random.uniform(k, (2, 5)), lambda k: tj.random.uniform(k, (2, 5), minval=2.2, maxval=7.1),
             lambda k: tj.random.normal(k, (2, 5)), lambda k: tj.random.categorical(k, logits, shape=(10, 1)),
             lambda k: tj.random.bernoulli(k, 0.5, (40,))]
    for op in cases:
        values = [(s, op(tj.random.key(s)).numpy()) for s in seeds]
        for s0, v0 in values:
            for s1, v1 in values:
                assert (s0 == s1) == bool(np.all(v0 == v1))


def test_stateless_split_and_fold_in():
    """StatelessOpsTest.testSplit and testFoldIn: new keys differ from each other and from the old one."""
    key = tj.random.key(1)
    new = tj.random.split(key, 3)
    assert new.shape == (3,)
    data = [jax.random.key_data(key)] + [jax.random.key_data(new[i]) for i in range(3)]
    assert len({tuple(np.asarray(d).tolist()) for d in data}) == 4
    seed = tj.random.fold_in(key, 3)
    seed2 = tj.random.fold_in(seed, 4)
    data = [jax.random.key_data(k) for k in (key, seed, seed2)]
    assert len({tuple(np.asarray(d).tolist()) for d in data}) == 3
    assert seed.shape == ()


# -- the brief's semantics: dtypes, arguments, gradients, steps --------------------------------------------

def test_arguments_dtypes_and_errors_as_tf():
    """Generator.normal/uniform's signatures and TF's argument rules (observed in TF 2.21)."""
    g = Generator.from_seed(3)
    assert g.normal([2], 1.0, 2.0, jnp.float16, name="n").dtype == jnp.float16  # positional as TF's
    assert g.uniform([2], 0, None, jnp.bfloat16, name="u").dtype == jnp.bfloat16
    assert g.normal([2], mean=1, dtype=jnp.float16).dtype == jnp.float16  # a Python number takes the dtype
    assert g.normal([2], mean=np.float32(1.0), dtype=jnp.float16).dtype == jnp.float16  # numpy: converted
    assert g.uniform([2], minval=np.float32(1.0), maxval=2, dtype=jnp.float16).dtype == jnp.float16
    with pytest.raises(ValueError, match="requested dtype float16 for Tensor with dtype float32"):
        g.normal([3], mean=tj.constant(1.0), dtype=jnp.float16)  # TF: ValueError
    with pytest.raises(ValueError):
        g.normal([3], stddev=tj.Variable(1.0), dtype=jnp.float16)  # TF: ValueError
    with pytest.raises(ValueError):
        g.uniform([3], minval=tj.constant(1.0), maxval=2.0, dtype=jnp.float16)  # TF: ValueError
    with pytest.raises(ValueError):
        tj.random.normal([2], mean=tj.constant(1.0), dtype=jnp.float16)  # TF: ValueError
    with pytest.raises(TypeError):  # TF: "Cannot convert 0.0 to EagerTensor of dtype int32"
        g.normal([2], dtype=jnp.int32)
    with pytest.raises(TypeError):  # TF: "Cannot convert 0 to EagerTensor of dtype bool"
        g.uniform([2], dtype=jnp.bool_)
    for bad in (5.5, 5.0):  # TF: "Cannot convert 5.5 to EagerTensor of dtype int32" (also 5.0)
        with pytest.raises(TypeError):
            g.uniform([2], 0, bad, dtype=jnp.int32)
    assert g.uniform([2], 0, np.float32(5), dtype=jnp.int32).dtype == jnp.int32  # (TF converts numpy's)
    # TF 2.21's InvalidArgumentError (ValueError here) for dtypes its kernels lack, and for a float split count
    # (tapejax drew bool/complex binomial counts, 8- and 16-bit integers, and split int(2.0) generators)
    for draw in (lambda: g.binomial([2], 3.0, 0.5, dtype=jnp.bool_),
                 lambda: g.binomial([2], 3.0, 0.5, dtype=jnp.complex64),
                 lambda: g.uniform_full_int([2], dtype=jnp.uint8), lambda: g.uniform([2], 0, 5, dtype=jnp.int16),
                 lambda: g.split(2.0)):
        with pytest.raises(ValueError):
            draw()
    assert g.uniform([2], 0, 5, dtype=jnp.uint32).dtype == jnp.uint32 and len(g.split(np.int32(2))) == 2
    assert g.normal([2], mean=True).dtype == jnp.float32  # (TF: True is 1.0)
    for bad in (lambda: g.normal([2], dtype=jnp.complex64), lambda: g.uniform([2], dtype=jnp.complex64)):
        with pytest.raises(ValueError):  # TF: InvalidArgumentError (dtype not in half, bfloat16, float, double)
            bad()
    with pytest.raises(ValueError):  # TF: a float draw cannot convert minval=None
        g.uniform([3], minval=None)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):  # TF: ValueError
        tj.random.uniform([2], 0, 5, dtype=jnp.uint32)
    with pytest.raises(ValueError, match="Must specify maxval"):  # tf.random.uniform has no full range
        tj.random.uniform([2], None, None, dtype=jnp.int32)
    # shapes: TF's InvalidArgumentError for a scalar, a float or a negative dimension (ValueError here)
    for bad in (3, [2.0], [-1]):
        with pytest.raises(ValueError):
            g.normal(bad)
    u = g.uniform([2, 3], minval=[0.0, 1.0, 2.0], maxval=5.0).numpy()  # float bounds broadcast (TF)
    assert u.shape == (2, 3) and np.all(u >= [0.0, 1.0, 2.0]) and np.all(u < 5.0)
    r = g.uniform([1000], minval=5.0, maxval=2.0).numpy()  # reversed float bounds: (2, 5], as TF's formula
    assert np.all(r > 2.0) and np.all(r <= 5.0)
    ints = g.uniform([1000], minval=tj.constant(3), maxval=tj.constant(6), dtype=jnp.int32).numpy()
    assert set(np.unique(ints)) == {3, 4, 5}


def test_seeds_of_any_size_give_distinct_streams():
    """StatefulRandomOpsTest.testCreateRNGStateIntSeed's seed (0xFFFF2222...8888, 128 bits: TF's seeds are up
    to 1024 bits) and negative seeds make generators; seeds that differ beyond 32 bits, or in sign, give
    different streams (JAX's key keeps 32 bits of a seed with x64 off: 2**32 would repeat seed 0)."""
    seeds = [0, 1, 2 ** 32, 2 ** 32 + 1, 2 ** 64, -1, 2 ** 32 - 1, 0xFFFF222233334444FFAA666677778888,
             -0xFFFF222233334444FFAA666677778888, 2 ** 1023]
    draws = [Generator.from_seed(s).normal([4]).numpy() for s in seeds]
    assert len({d.tobytes() for d in draws}) == len(seeds)
    g = Generator.from_seed(0)
    g.reset_from_seed(2 ** 100)
    np.testing.assert_array_equal(g.normal([4]).numpy(), Generator.from_seed(2 ** 100).normal([4]).numpy())
    np.testing.assert_array_equal(Generator.from_seed(np.int64(7)).normal([2]).numpy(),
                                  Generator.from_seed(7).normal([2]).numpy())
    # TF: "a 1024-bit unsigned integer represented either as a Python integer or a vector of integers"
    vec = [Generator.from_seed(v).normal([4]).numpy() for v in ([1, 2], [1, 3], [2, 1], np.array([1, 2]))]
    assert len({d.tobytes() for d in vec[:3] + draws}) == 3 + len(draws)
    np.testing.assert_array_equal(vec[0], vec[3])


def test_binomial():
    """Generator.binomial, TF's docstring examples: counts and probs broadcast with the shape's rightmost
    dimensions; int32 by default; mean n*p (TF, 10000 draws of (10, 0.3): mean 2.973, variance 2.133)."""
    rng = Generator.from_seed(234)
    b = rng.binomial(shape=[2], counts=[10.0, 20.0], probs=[0.8])
    assert b.shape == (2,) and b.dtype == jnp.int32
    assert 0 <= int(b.numpy()[0]) <= 10 and 0 <= int(b.numpy()[1]) <= 20
    shaped = Generator.from_seed(1717).binomial(shape=[3, 4, 3, 4, 2], counts=np.full((3, 1, 2), 5.0, np.float32),
                                                probs=np.full((1, 4, 2), 0.5, np.float32))
    assert shaped.shape == (3, 4, 3, 4, 2)
    many = Generator.from_seed(1).binomial([10000], counts=10.0, probs=0.3).numpy()
    assert abs(many.mean() - 3.0) < 0.1 and abs(many.var() - 2.1) < 0.2


def test_gradients_treat_draws_as_constants():
    """Random numbers are not differentiable (TF: no gradient w.r.t. the draw or the generator's state), but
    the ops TF builds around them are: z * stddev + mean, u * (maxval - minval) + minval (observed in TF:
    d/dmean = 4, d/dstddev = sum(z); d/dminval = sum(1 - u), d/dmaxval = sum(u))."""
    g, ref = Generator.from_seed(8), Generator.from_seed(8)
    w = tj.Variable([1.0, 2.0, 3.0])
    with tj.GradientTape(persistent=True) as t:
        z = g.normal([3])
        loss = tnp.sum(w * z)
    np.testing.assert_allclose(t.gradient(loss, w).numpy(), z.numpy())
    assert t.gradient(z, g.state) is None
    assert g.state.name == "StateVar:0" and not g.state.trainable  # TF's name and trainability
    assert [v is w for v in t.watched_variables()] == [True]  # the state is not trainable: never watched
    m, s = tj.Variable(0.5), tj.Variable(2.0)
    ref.normal([3])
    zs = [ref.normal([4]).numpy(), ref.uniform([4]).numpy(), ref.truncated_normal([4]).numpy()]
    with tj.GradientTape(persistent=True) as t:
        n = g.normal([4], mean=m, stddev=s)
        u = g.uniform([4], minval=m, maxval=s)
        tn = g.truncated_normal([4], mean=m, stddev=s)
    np.testing.assert_allclose([float(x) for x in t.gradient(n, [m, s])], [4.0, zs[0].sum()], rtol=1e-5)
    np.testing.assert_allclose([float(x) for x in t.gradient(u, [m, s])], [(1 - zs[1]).sum(), zs[1].sum()],
                               rtol=1e-5)
    np.testing.assert_allclose([float(x) for x in t.gradient(tn, [m, s])], [4.0, zs[2].sum()], rtol=1e-5)
    with tj.GradientTape() as t:
        i = g.uniform([3], 0, 5, dtype=jnp.int32)
        b = g.binomial([3], 5.0, 0.5)
    assert t.gradient([i, b], m, unconnected_gradients="none") is None


def test_a_training_step_draws_anew_eagerly_replayed_and_in_function(replay_now):
    """A training step with noise, run several times: eagerly (the tape's deferred and then replayed
    recording) and as a tj.function, each step draws new numbers, the same as an eager generator from the
    same seed draws one call after another; the updates use them."""
    def run(step_fn, steps):
        g, ref = Generator.from_seed(21), Generator.from_seed(21)
        w = tj.Variable([0.5, -0.5])
        opt = tj.optimizers.SGD(0.1)
        seen = []
        for _ in range(steps):
            before = w.numpy()
            noise = step_fn(g, w, opt)
            want = ref.normal([2]).numpy()
            np.testing.assert_allclose(noise, want, rtol=1e-6)
            np.testing.assert_allclose(w.numpy(), before - 0.1 * want, rtol=1e-5, atol=1e-6)
            seen.append(noise.tobytes())
        np.testing.assert_array_equal(g.state.numpy(), ref.state.numpy())
        assert len(set(seen)) == steps

    hows = []

    def eager_step(g, w, opt):
        with tj.GradientTape() as t:
            noise = g.normal([2])
            loss = tnp.sum(w * noise)
        opt.apply_gradients(zip(t.gradient(loss, [w]), [w]))
        replay.wait()
        hows.append(t.last_replay)
        return noise.numpy()

    run(eager_step, tj.config.replay_warmup + 3)
    assert all("replayed" in h for h in hows[tj.config.replay_warmup:]), hows
    step = tj.function(lambda g, w, opt: tj.stop_gradient(eager_step_traced(g, w, opt)))
    run(lambda g, w, opt: step(g, w, opt).numpy(), 4)


def eager_step_traced(g, w, opt):
    """The step of the test above, returning the noise as a Tensor (inside tj.function)."""
    with tj.GradientTape() as t:
        noise = g.normal([2])
        loss = tnp.sum(w * noise)
    opt.apply_gradients(zip(t.gradient(loss, [w]), [w]))
    return noise


def test_16_bit_normal_draws_have_tf_resolution():
    """16-bit normal and truncated normal draws are made in float32 and rounded, as TF's kernels: TF 2.21, 10000
    draws from seed 1 hold 6245 (float16 normal), 6080 (float16 truncated) and 1738 (bfloat16) distinct
    values; drawn directly in 16 bits (JAX) they would hold 1023, 1023 and 128, and RandomNormalTest.testDistinct
    (fewer than 10 equal places in two 10 x 1000 draws) would fail 3 times in 4."""
    g = Generator.from_seed(1)
    assert len(np.unique(g.normal([10000], dtype=jnp.float16).numpy())) > 5500
    assert len(np.unique(g.truncated_normal([10000], dtype=jnp.float16).numpy())) > 5500
    assert len(np.unique(_np(g.normal([10000], dtype=jnp.bfloat16)))) > 1500
    assert len(np.unique(tj.random.normal([10000], dtype=jnp.float16).numpy())) > 5500


def test_draws_in_a_recorded_function_call_and_under_an_accumulator():
    """A tj.function called under an outer tape is recorded as one op (as TF records a function call): each
    call still draws new numbers (also from a nested tj.function), the gradients use that call's numbers, and
    a ForwardAccumulator or a jacobian sees the draw as a constant, as TF."""
    g, ref = Generator.from_seed(4), Generator.from_seed(4)
    w = tj.Variable([1.0, 2.0])

    @tj.function
    def inner(x):
        return x * g.normal([2])

    @tj.function
    def outer(x):
        return inner(x) + g.uniform([2])
    for f in (inner, inner, outer, outer):
        with tj.GradientTape() as t:
            y = tnp.sum(f(w))
        np.testing.assert_allclose(t.gradient(y, w).numpy(), ref.normal([2]).numpy(), rtol=1e-6)
        if f is outer:
            ref.uniform([2])
    np.testing.assert_array_equal(g.state.numpy(), ref.state.numpy())
    with tj.ForwardAccumulator(w, tj.constant([1.0, 0.0])) as acc:
        y = w * g.normal([2])
    np.testing.assert_allclose(acc.jvp(y).numpy(), ref.normal([2]).numpy() * [1.0, 0.0], rtol=1e-6)
    with tj.GradientTape() as t:
        y = w * g.normal([2])
    np.testing.assert_allclose(t.jacobian(y, w).numpy(), np.diag(ref.normal([2]).numpy()), rtol=1e-6)


def test_gpu_equals_cpu():
    """StatefulRandomOpsTest.testGPUEqualsCPU: a generator gives the same integers on the default device (a
    GPU where there is one) as on the CPU, and the same floats up to rounding."""
    outs = []
    for dev in (jax.devices("cpu")[0], jax.devices()[0]):
        with jax.default_device(dev):
            g = Generator.from_seed(1234)
            outs.append([g.uniform_full_int(shape=[315, 49], dtype=dt).numpy() for dt in (jnp.int32, jnp.uint32)]
                        + [g.normal([1000]).numpy(), g.uniform([1000]).numpy()])
    for cpu, dev in zip(outs[0][:2], outs[1][:2]):
        np.testing.assert_array_equal(cpu, dev)
    for cpu, dev in zip(outs[0][2:], outs[1][2:]):
        np.testing.assert_allclose(cpu, dev, rtol=1e-5, atol=1e-6)


def test_graph_gradients_of_draws_inside_a_function():
    """The same rules under tj.gradients (tf.gradients) inside tj.function: mean/stddev and minval/maxval get
    the reparameterization gradients; categorical's logits get None (TF: NotDifferentiable Multinomial)."""
    g, ref = Generator.from_seed(4), Generator.from_seed(4)
    m, s = tj.Variable(0.5), tj.Variable(2.0)

    @tj.function
    def f():
        z = g.normal([3], mean=m, stddev=s)
        u = g.uniform([3], minval=m, maxval=s)
        c = tj.random.categorical(tj.random.key(0), tnp.stack([m, s]))
        return tj.gradients(z, [m, s]) + tj.gradients(u, [m, s]) + tj.gradients(c, [m])
    out = f()
    z, u = ref.normal([3]).numpy(), ref.uniform([3]).numpy()
    np.testing.assert_allclose([float(o) for o in out[:4]], [3.0, z.sum(), (1 - u).sum(), u.sum()], rtol=1e-5)
    assert out[4] is None
