"""tj.op and tj.RegisterGradient."""
import importlib

import jax
import jax.numpy as jnp
import jax.lax as lax
import numpy as np
import pytest

import tapejax as tj
from conftest import unconnected_second_input_at_zero_base


def test_derived_kernels_match_jax():
    @tj.op
    def f(x, y):
        return jnp.sin(x) * y

    x, y = tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0])
    with tj.GradientTape() as t:
        t.watch([x, y])
        z = tj.numpy.sum(f(x, y))
    gx, gy = t.gradient(z, [x, y])
    ex, ey = jax.grad(lambda a, b: jnp.sum(jnp.sin(a) * b), argnums=(0, 1))(x.value, y.value)
    np.testing.assert_allclose(gx.numpy(), ex, rtol=1e-6)
    np.testing.assert_allclose(gy.numpy(), ey, rtol=1e-6)
    with tj.ForwardAccumulator(x, tj.constant([1.0, -1.0])) as acc:
        z = f(x, y)
    _, ej = jax.jvp(lambda a: jnp.sin(a) * y.value, (x.value,), (jnp.array([1.0, -1.0]),))
    np.testing.assert_allclose(acc.jvp(z).numpy(), ej, rtol=1e-6)


def test_custom_vjp_static_arg_and_transposed_jvp():
    @tj.op(vjp=lambda p, out, g: (g * 100.0, None), nondiff_argnums=(1,))
    def scale(x, k):
        return x * k

    x = tj.constant([1.0, 2.0])
    with tj.GradientTape() as t:
        t.watch(x)
        z = scale(x, 3.0)
    np.testing.assert_allclose(z.numpy(), [3.0, 6.0])
    np.testing.assert_allclose(t.gradient(z, x).numpy(), [100.0, 100.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 0.0])) as acc:
        z = scale(x, 3.0)
    np.testing.assert_allclose(acc.jvp(z).numpy(), [100.0, 0.0])


def test_custom_jvp_rule_used_in_forward_mode():
    @tj.op(jvp=lambda p, t: 5.0 * t[0])
    def ident(x):
        return x + 0.0

    x = tj.constant([1.0, 2.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as acc:
        z = ident(x)
    np.testing.assert_allclose(acc.jvp(z).numpy(), [5.0, 5.0])


def test_multi_output_op_and_second_order():
    @tj.op
    def two(x):
        return jnp.sin(x), jnp.cos(x)

    x = tj.constant(0.7)
    with tj.GradientTape() as t2:
        t2.watch(x)
        with tj.GradientTape() as t1:
            t1.watch(x)
            s, c = two(x)
            y = s * c
        g = t1.gradient(y, x)
    h = t2.gradient(g, x)
    f = lambda a: jnp.sin(a) * jnp.cos(a)
    np.testing.assert_allclose(g.numpy(), jax.grad(f)(0.7), rtol=1e-5)
    np.testing.assert_allclose(h.numpy(), jax.grad(jax.grad(f))(0.7), rtol=1e-5)


def test_only_one_output_used_gets_zero_for_the_other():
    @tj.op
    def two(x):
        return jnp.sin(x), jnp.cos(x)

    x = tj.constant(0.3)
    with tj.GradientTape() as t:
        t.watch(x)
        _, c = two(x)
    np.testing.assert_allclose(t.gradient(c, x).numpy(), -np.sin(0.3), rtol=1e-6)


def test_non_differentiable_function_raises_lookup_error_naming_op():
    @tj.op(name="my_loop")
    def loop(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x))[1]

    x = tj.constant([1.0, 2.0])
    with tj.GradientTape(persistent=True) as t:
        t.watch(x)
        z = loop(x)
        w = x * 2.0
    np.testing.assert_allclose(z.numpy(), [8.0, 16.0])
    with pytest.raises(LookupError, match="my_loop"):
        t.gradient(z, x)
    # the persistent tape stays usable
    np.testing.assert_allclose(t.gradient(w, x).numpy(), [2.0, 2.0])


def test_register_gradient_replaces_backward_kernel():
    @tj.op(name="softsign_for_register")
    def softsign(x):
        return x / (1 + jnp.abs(x))

    x = tj.constant([0.5, -2.0])

    @tj.RegisterGradient("softsign_for_register")
    def _grad(primals, out, ct):
        return (ct * 7.0,)

    with tj.GradientTape() as t:
        t.watch(x)
        z = softsign(x)
    np.testing.assert_allclose(t.gradient(z, x).numpy(), [7.0, 7.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as acc:
        z = softsign(x)
    np.testing.assert_allclose(acc.jvp(z).numpy(), [7.0, 7.0])


def test_register_gradient_unknown_op():
    with pytest.raises(LookupError, match="no_such_op"):
        tj.RegisterGradient("no_such_op")(lambda p, o, c: c)


def test_bad_argument_type_names_op():
    with pytest.raises(TypeError, match="multiply"):
        tj.numpy.multiply(tj.constant(1.0), object())


def test_more_jax_numpy_names_match_jax_numpy():
    tnp = tj.numpy
    # tj.numpy mirrors jax.numpy: each of these gives jnp's value (and is recorded: the gradient is jax's)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    b = rng.uniform(-1, 1, (4, 5)).astype(np.float32)
    sq = rng.uniform(-1, 1, (2, 3, 3)).astype(np.float32)
    cases = [
        lambda m: m.trace(a), lambda m: m.trace(sq, 1, 1, 2), lambda m: m.diagonal(a, 1),
        lambda m: m.diag(a[0], k=-1), lambda m: m.tril(a, -1), lambda m: m.triu(a),
        lambda m: m.roll(a, 2), lambda m: m.roll(a, (1, -1), axis=(0, 1)),
        lambda m: m.tensordot(a, b, axes=1), lambda m: m.vdot(a, a), lambda m: m.inner(a, a),
        lambda m: m.kron(a[:2, :2], a[:2, :3]), lambda m: m.diff(a, n=2), lambda m: m.diff(a, axis=0),
        lambda m: m.vstack([a[0], a[1]]), lambda m: m.hstack([a[0], a[1]]), lambda m: m.hstack([a, a]),
        lambda m: m.nansum(np.where(a > 0.5, np.nan, a), axis=1),
        lambda m: m.nanmean(np.where(a > 0.5, np.nan, a)), lambda m: m.logaddexp(a, a[0]),
        lambda m: m.arccosh(1.5 + a * a), lambda m: m.deg2rad(a), lambda m: m.rad2deg(a),
        lambda m: m.real(a), lambda m: m.imag(a), lambda m: m.angle(a - 0.1),
        lambda m: m.angle(a - 0.1, deg=True), lambda m: m.count_nonzero(a > 0),
        lambda m: m.isclose(a, a + 1e-9), lambda m: m.full_like(a, 2.5),
    ]
    for i, f in enumerate(cases):
        got, want = f(tnp), f(jnp)
        assert isinstance(got, tj.Tensor), i
        np.testing.assert_allclose(np.asarray(got.numpy()), np.asarray(want), rtol=2e-6, atol=1e-6, err_msg=str(i))
    x = tj.constant(a)
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.tril(x) * 2.0) + tnp.trace(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * np.tril(np.ones((3, 4))) + np.eye(3, 4), rtol=1e-6)


def test_kernel_helpers_are_not_public_names():
    # rules.conj/mul_no_nan... work on raw arrays: as tj.numpy names, a call on Tensors ran unrecorded and the
    # gradient came back None (tj.numpy.conj did); every public array function must be a recorded op
    for mod, names in [(tj.numpy, ("mul_no_nan", "cast_like", "unbroadcast", "tf_complex_vjp")),
                       (tj.numpy.linalg, ("mul_no_nan", "cast_like")), (tj.nn, ("tf_complex_bwd",))]:
        assert not [n for n in names if hasattr(mod, n)], mod.__name__


def test_a_vjp_giving_none_works_at_second_order_and_under_jax_transforms():
    """tj.op's vjp may give None for an argument (no gradient, as a TF gradient function). Nested tapes: the
    backward recorded as an op crashed at second order ('NoneType' object has no attribute 'dtype'); it now has
    only the gradients that are not None as outputs. Under jax.grad the None was zeros, so the backward of the op
    that made that argument ran on them: at a base of 0, pow's second derivative there is 0 * inf, NaN where the
    tape gives 0. It is a symbolic zero now, as a custom gradient's None."""
    mul = tj.op(lambda a, b: a * b, vjp=lambda primals, ct: (ct * primals[1], None))
    a, b = tj.constant([1.0, 2.0]), tj.constant([3.0, 4.0])
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([a, b])
        with tj.GradientTape() as inner:
            inner.watch([a, b])
            y = tj.numpy.sum(mul(a, b))
        ga, gb = inner.gradient(y, [a, b])
    assert gb is None
    np.testing.assert_array_equal(ga.numpy(), [3.0, 4.0])
    da, db = outer.gradient(ga, [a, b])
    assert da is None  # (ga = ct * b: not a function of a)
    np.testing.assert_array_equal(db.numpy(), [1.0, 1.0])

    tape, jax_grad = unconnected_second_input_at_zero_base(mul)
    np.testing.assert_allclose(tape, [0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(jax_grad, tape, atol=1e-6)


def test_static_parameters_key_kernels_by_exact_value():
    # 0.0 == -0.0 == 0 in Python, but a kernel traced with one pads with that value: each keys its own kernel
    # (ops/core.py static_key), in either order, deferred or not.
    x = tj.constant(np.ones(2, np.float32))
    for lazy in (True, False):
        with tj.config.override(lazy=lazy):
            neg = np.asarray(tj.numpy.pad(x, 1, constant_values=-0.0))
            pos = np.asarray(tj.numpy.pad(x, 1, constant_values=0.0))
            neg_again = np.asarray(tj.numpy.pad(x, 1, constant_values=-0.0))
        np.testing.assert_array_equal(np.signbit(neg), [True, False, False, True])
        np.testing.assert_array_equal(np.signbit(pos), [False, False, False, False])
        np.testing.assert_array_equal(np.signbit(neg_again), np.signbit(neg))


@pytest.mark.parametrize("module", ["tapejax.numpy", "tapejax.optimizers", "tapejax.nn", "tapejax.random",
                                    "tapejax.numpy.linalg", "tapejax.numpy.fft", "tapejax.debug", "tapejax.train"])
def test_star_import_gives_the_public_names_only(module):
    # A notebook's `from tapejax.numpy import *` must not bring the module's own imports (np, jax, re...) or
    # internals (apply, Tensor) into the user's namespace, and every name __all__ lists must exist.
    mod = importlib.import_module(module)
    names: dict = {}
    exec(f"from {module} import *", names)
    names.pop("__builtins__")
    assert set(names) == set(mod.__all__)
    assert not {"np", "jnp", "jax", "re", "inspect", "operator", "apply", "Tensor", "Any", "tape_set", "bool"} & set(names)


def test_star_import_of_tj_numpy_mirrors_jax_numpy():
    names: dict = {}
    exec("from tapejax.numpy import *", names)
    mirrored = {n for n in dir(jnp) if not n.startswith("_") and hasattr(tj.numpy, n)}
    # every jax.numpy name tj.numpy has, fft's, linalg's and index_tricks' included, but for the dtype ``bool``,
    # which a star import would put over Python's own bool in the importing namespace
    assert mirrored - set(names) == {"bool"} and tj.numpy.bool is tj.numpy.bool_ == jnp.bool
    assert {"sum", "linalg", "fft", "polyval", "r_", "float32", "add_n", "rsqrt", "getitem"} <= set(names)


def test_public_api_has_docstrings():
    # help(), Jupyter's `?` and IDEs show these: every public function of the public modules and every public
    # method and property of the classes users hold has one (typing aliases such as LearningRate excepted)
    import inspect
    missing = []
    modules = [tj, tj.numpy, tj.nn, tj.random, tj.debug, tj.train, tj.optimizers, tj.numpy.linalg, tj.numpy.fft]
    for mod in modules:
        for n in mod.__all__:
            o = getattr(mod, n)
            ours = (getattr(o, "__module__", None) or "").startswith("tapejax")  # (not jax.numpy's dtype helpers)
            if (inspect.isfunction(o) or inspect.isclass(o)) and ours and not (o.__doc__ or "").strip():
                missing.append(f"{mod.__name__}.{n}")
    classes = [tj.Tensor, tj.Variable, tj.GradientTape, tj.ForwardAccumulator, tj.Module, tj.optimizers.Optimizer,
               tj.optimizers.Adam, tj.train.Checkpoint, tj.train.CheckpointManager, tj.random.Generator, tj.TensorShape]
    for c in classes:
        for n, o in inspect.getmembers(c):
            if n.startswith("_"):
                continue
            static = inspect.getattr_static(c, n, None)
            if isinstance(static, property):
                doc = static.__doc__
            elif callable(o):
                doc = inspect.getdoc(o)
            else:
                continue
            if not (doc or "").strip():
                missing.append(f"{c.__name__}.{n}")
    assert not missing


def test_dir_of_tj_numpy_lists_its_public_names():
    # Tab completion (dir) offers tj.numpy's API, not the modules and helpers it imports
    names = set(dir(tj.numpy))
    assert set(tj.numpy.__all__) | {"bool", "__name__", "__doc__"} <= names
    assert not {"jax", "jnp", "np", "re", "apply", "Tensor", "tape_set"} & names


def test_static_arguments_reach_fn_as_given():
    """A dict, list or NumPy array given as a keyword or nondiff argument reached fn in its hashable form (a dict as a
    sorted tuple of pairs: "tuple indices must be integers or slices, not str"; an array as a tuple of Python
    numbers, its dtype lost). fn gets what it was given; the kernels are still cached by value and dtype."""
    x = tj.constant([1.0, 2.0])
    by_kw = tj.op(lambda a, *, cfg: a * cfg["scale"], name="scaled_by_cfg")
    np.testing.assert_allclose(by_kw(x, cfg={"scale": 2.0}).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(by_kw(x, cfg={"scale": 3.0}).numpy(), [3.0, 6.0])  # (another value: another kernel)
    seen = []

    def scaled(a, c):
        seen.append(type(c))
        return a * c["scale"]
    by_pos = tj.op(scaled, nondiff_argnums=(1,), vjp=lambda p, ct: (ct * p[1]["scale"], None), name="scaled_by_pos")
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = by_pos(x, {"scale": 2.0})
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 2.0])
    assert set(seen) == {dict}
    dtypes = []

    def by_array(a, *, m):
        dtypes.append(m.dtype)
        return a * m
    f = tj.op(by_array, name="times_array")
    np.testing.assert_allclose(f(x, m=np.array([2, 3], np.int8)).numpy(), [2.0, 6.0])
    np.testing.assert_allclose(f(x, m=np.array([2, 3], np.int32)).numpy(), [2.0, 6.0])
    assert dtypes == [np.int8, np.int32]  # (one kernel per dtype: the int8 array is not the int32 one)


def test_an_op_named_as_a_builtin_one_is_refused():
    """@tj.op def sin(...) took the registry entry of tj.numpy.sin: tj.RegisterGradient("sin") then changed only the
    user's op, and tj.numpy.sin kept its gradient, silently."""
    with pytest.raises(ValueError, match="'sin' is the name of one of tapejax's own ops.*name='my_sin'"):
        tj.op(jnp.sin, name="sin")
    with pytest.raises(ValueError, match="'tanh' is the name"):
        @tj.op
        def tanh(a):
            return jnp.tanh(a)
    mine = tj.op(jnp.sin, name="user_sin_once")
    again = tj.op(jnp.cos, name="user_sin_once")  # (a user's op defined again, as a rerun cell: it replaces the first)
    np.testing.assert_allclose(again(tj.constant(0.0)).numpy(), 1.0)
    del mine


def test_no_gradient_under_jax_grad_is_the_lookup_error_of_every_path():
    """Under jax.grad of a function of Tensors, an op JAX cannot reverse-differentiate raised a ValueError telling
    the user to fix shapes or dtypes; every tape path raises LookupError naming the op."""
    loop = tj.op(lambda a: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 2.0, c[1] + 1), (a, 0))[0],
                 name="doubling_while")
    with pytest.raises(LookupError, match="No gradient defined for op 'doubling_while'"):
        jax.grad(lambda u: jnp.sum(loop(u).value))(jnp.array([1.0, 2.0]))
    x = tj.constant([1.0, 2.0])
    with tj.ForwardAccumulator(x, tj.constant([1.0, 1.0])) as acc:  # (forward mode has a derivative)
        y = loop(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [8.0, 8.0])


def test_register_gradient_of_a_pytree_op_gets_what_its_vjp_gets():
    """tj.RegisterGradient of a tj.op taking a dict: the gradient function got the dict's leaves, flattened
    (primals (b, w, x) for (p, x): 'too many values to unpack'), and an op's nondiff_argnums values not at all
    (IndexError). It now gets what the op's vjp= gets, the positional arguments as given, and returns one gradient
    per argument in its structure. Expected (math, the rule being 10 times f's derivative for f = sum(w * x) + b):
    dw = 10 x = [30, 40], db = 10, dx = 10 w = [10, 20]; the JVP (its transpose) along w of [1, 1]: 10 sum(x) = 70;
    for x * k (k = 3 static): 10 k = 30."""
    def grad(primals, out, ct):
        p, x = primals
        assert isinstance(p, dict)
        return {"w": ct * x * 10, "b": ct * 10}, ct * p["w"] * 10

    @tj.op(name="pytree_op_for_register")
    def f(p, x):
        return jnp.sum(p["w"] * x) + p["b"]
    tj.RegisterGradient("pytree_op_for_register")(grad)
    p, x = {"w": tj.constant([1.0, 2.0]), "b": tj.constant(0.5)}, tj.constant([3.0, 4.0])
    with tj.GradientTape() as t:
        t.watch([p["w"], p["b"], x])
        y = f(p, x)
    gw, gb, gx = t.gradient(y, [p["w"], p["b"], x])
    np.testing.assert_allclose(gw.numpy(), [30, 40])
    np.testing.assert_allclose(gb.numpy(), 10)
    np.testing.assert_allclose(gx.numpy(), [10, 20])
    with tj.ForwardAccumulator(p["w"], tj.constant([1.0, 1.0])) as acc:
        y = f(p, x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), 70)

    @tj.op(name="nondiff_op_for_register", nondiff_argnums=(1,))
    def scale(a, k):
        return a * k
    tj.RegisterGradient("nondiff_op_for_register")(lambda primals, ct: (ct * primals[1] * 10, None))
    with tj.GradientTape() as t:
        t.watch(x)
        y = scale(x, 3.0)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [30, 30])
