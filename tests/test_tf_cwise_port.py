"""TensorFlow's coefficient-wise op tests, ported: tensorflow/python/kernel_tests/math_ops/
cwise_ops_unary_test.py (UnaryOpTest), cwise_ops_binary_test.py (BinaryOpTest, ComparisonOpTest) and
cwise_ops_test.py (ComparisonOpTest, LogicalOpTest, SelectOpTest, MinMaxOpTest, MathOpsOverloadTest,
IsFiniteInfNanTest, RoundingTest, ComplexMakeRealImagTest, RealTest).

TF's tests compare the analytic Jacobian (``gradient_checker.compute_gradient``) with finite differences; here
the analytic Jacobians TF 2.21 computed for the same inputs (``gradient_checker_v2.compute_gradient``'s
theoretical Jacobian) are the expected values, in ``data/tf_cwise_port.json``, and tapejax's tape must give
them. The file stores them compactly: an elementwise op's Jacobian is diagonal, so its diagonal (``d``); for a
complex input, the gradients for the output gradients 1 and 1j (``g1``, ``gi``), which make up TF's 2x2 real
blocks; a broadcasting op's Jacobian has one entry per output (at that output's broadcast source), stored as
the output-shaped array of those entries (``px``/``py``). The generating script checked that TF's full
Jacobian is exactly the one rebuilt from the stored form. Forward values TF's tests check against NumPy
(and TF agreed with NumPy on every one of these inputs) are checked against NumPy here too.
"""
from __future__ import annotations

import ast
import json
import math
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import to_numpy

tnp = tj.numpy
DATA = json.loads((pathlib.Path(__file__).parent / "data" / "tf_cwise_port.json").read_text())
BF16 = jnp.bfloat16


def arr(v, dtype=None):
    """A stored value as a NumPy array (complex values are stored as ``{"re": ..., "im": ...}``)."""
    if isinstance(v, dict):
        a = np.asarray(v["re"]) + 1j * np.asarray(v["im"])
    else:
        a = np.asarray(v, dtype=np.float64)
    return a if dtype is None else a.astype(dtype)


TOL = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 2e-6, "complex64": 2e-6, "float64": 1e-12,
       "complex128": 1e-12}


def assert_close(got, want, dtype_name, what=""):
    tol = TOL[dtype_name]
    np.testing.assert_allclose(to_numpy(got, np.complex128 if np.iscomplexobj(want) else np.float64),
                               want, rtol=tol, atol=tol, err_msg=what)


def _np(tree):
    """Tensors in nested lists/tuples as NumPy arrays."""
    if isinstance(tree, (list, tuple)):
        return type(tree)(_np(t) for t in tree)
    return None if tree is None else to_numpy(tree)


class Batch:
    """Cases computed together as one compiled program (``tj.function``), then checked: the same ops and
    tapes as eager execution (one set of rules on every path), with one compile for a whole table of cases
    instead of one per op, shape and dtype (which would take minutes)."""

    def __init__(self):
        self.jobs = []

    def add(self, compute, check):
        self.jobs.append((compute, check))

    def run(self):
        outs = tj.function(lambda: [compute() for compute, _ in self.jobs])()
        for (_, check), out in zip(self.jobs, outs):
            check(_np(out))


def jac(f, *xs):
    """``(f(*xs), [d f / d x for x in xs])`` by a tape's ``jacobian``."""
    xs = [tj.constant(x) for x in xs]
    with tj.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return y, tape.jacobian(y, xs)


def as_matrix(j, y, x):
    """A Jacobian laid out as TF's gradient_checker_v2 (rows: outputs, columns: inputs)."""
    return np.asarray(j, np.float64).reshape(np.size(y), np.size(x))


def real_jacobian(f, *xs):
    """Eagerly: tapejax's Jacobians of ``f(*xs)`` with respect to each real input, as TF's matrices."""
    y, js = jac(f, *xs)
    return y, [as_matrix(to_numpy(j), y, x) for j, x in zip(js, xs)]


def cgrads(f, *xs):
    """``(f(*xs), gradients for the output gradient 1, for 1j)`` (the second None for a real output): with
    TF's convention these two give every 2x2 block of TF's real Jacobian of an elementwise op."""
    xs = [tj.constant(x) for x in xs]
    with tj.GradientTape(persistent=True) as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    ones = tnp.ones(y.shape, y.dtype)
    g1 = tape.gradient(y, xs, output_gradients=ones)
    gi = (tape.gradient(y, xs, output_gradients=ones * 1j) if np.issubdtype(np.dtype(y.dtype), np.complexfloating)
          else None)
    return y, g1, gi


UNARY = {
    "abs": tnp.abs, "negative": tnp.negative, "reciprocal": tnp.reciprocal, "square": tnp.square,
    "sqrt": tnp.sqrt, "rsqrt": tnp.rsqrt, "exp": tnp.exp, "expm1": tnp.expm1, "log": tnp.log,
    "log1p": tnp.log1p, "sinh": tnp.sinh, "cosh": tnp.cosh, "tanh": tnp.tanh, "arcsinh": tnp.arcsinh,
    "arccosh": tnp.arccosh, "arctanh": tnp.arctanh, "sigmoid": tnp.sigmoid, "log_sigmoid": tj.nn.log_sigmoid,
    "sign": tnp.sign, "sin": tnp.sin, "cos": tnp.cos, "arcsin": tnp.arcsin, "arccos": tnp.arccos,
    "arctan": tnp.arctan, "tan": tnp.tan, "erf": tnp.erf,
}
OPERATOR_FORMS = {"abs": abs, "negative": lambda x: -x}  # _ABS and _NEG of TF's tests


def unary_inputs(dtype, k, wadd=1.02):
    x = np.arange(-3, 3).reshape(1, 3, 2).astype(dtype)
    return {"x": x, "w": (x - x.min() + wadd).astype(dtype), "y": (x + 0.5).astype(dtype),
            "z": (x + 15.5).astype(dtype), "k": np.asarray(k, dtype)}


UNARY_CASES = {
    "float32": (np.float32, np.arange(-0.90, 0.90, 0.25), 1.02),
    "float16": (np.float16, np.arange(-0.90, 0.90, 0.05), 1.1),
}


def _unary_real_batch(table, inputs, dtype_name, forms=True):
    batch = Batch()
    for name, e in table.items():
        x = inputs[e["arg"]]
        for f in [UNARY[name]] + ([OPERATOR_FORMS[name]] if forms and name in OPERATOR_FORMS else []):
            def check(r, name=name, e=e, x=x):
                y, (j,) = r
                assert y.dtype == x.dtype, name
                assert_close(y, arr(e["y"]).reshape(x.shape), dtype_name, f"{name} value")
                assert_close(as_matrix(j, y, x), np.diag(arr(e["d"])), dtype_name, f"{name} Jacobian")
            batch.add(lambda f=f, x=x: jac(f, x), check)
    batch.run()


@pytest.mark.parametrize("dtype_name", sorted(UNARY_CASES))
def test_unary_real_values_and_jacobians(dtype_name):
    """UnaryOpTest.testFloatBasic / testHalfBasic: values and TF's analytic Jacobians (lgamma, erfc and the
    Bessel functions have no tj.numpy counterpart), functions and the operators -x, abs(x)."""
    dtype, k, wadd = UNARY_CASES[dtype_name]
    _unary_real_batch(DATA["unary_" + dtype_name], unary_inputs(dtype, k, wadd), dtype_name)


def test_unary_double_values_and_jacobians():
    """UnaryOpTest.testDoubleBasic (float64, with JAX's x64 on)."""
    with jax.enable_x64(True):
        inputs = unary_inputs(np.float64, np.arange(-0.90, 0.90, 0.35).reshape(1, 3, 2))
        _unary_real_batch(DATA["unary_float64"], inputs, "float64", forms=False)


def test_unary_bfloat16_values_and_jacobians():
    """UnaryOpTest.testBFloat16Basic."""
    inputs = {k: arr(v).astype(BF16) for k, v in DATA["bf16_inputs"].items()}
    _unary_real_batch(DATA["unary_bfloat16"], inputs, "bfloat16", forms=False)


def test_unary_eager_float32():
    """UnaryOpTest.testFloatBasic, a few ops op by op (eager tape, not compiled), and
    UnaryOpTest.testFloatTanhEdge: tanh saturates at +-40, its gradient is 0."""
    table = DATA["unary_float32"]
    inputs = unary_inputs(np.float32, np.arange(-0.90, 0.90, 0.25))
    for name in ("abs", "sqrt", "sign", "reciprocal"):
        e = table[name]
        x = inputs[e["arg"]]
        y, (j,) = real_jacobian(UNARY[name], x)
        assert_close(y, arr(e["y"]).reshape(x.shape), "float32", name)
        assert_close(j, np.diag(arr(e["d"])), "float32", name)
    for e, x in zip(DATA["tanh_edge"], (np.arange(40, 46), np.arange(-40, -34))):
        y, (j,) = real_jacobian(tnp.tanh, x.astype(np.float32))
        assert_close(y, arr(e["y"]), "float32")
        assert_close(j, np.diag(arr(e["d"])), "float32")


def test_unary_empty():
    """UnaryOpTest.testFloatEmpty: every op on a (2, 0, 5) float32 tensor, and its empty Jacobian."""
    x = np.empty((2, 0, 5), np.float32)
    batch = Batch()
    for name, f in UNARY.items():
        def check(r, name=name):
            y, (j,) = r
            assert y.shape == (2, 0, 5) and y.dtype == np.float32, name
            assert j.shape == (2, 0, 5, 2, 0, 5), name
        batch.add(lambda f=f: jac(f, x), check)
    batch.run()


def _check_unary_complex(dtype, dtype_name):
    table = DATA["unary_" + dtype_name]
    x = (1 + 1j) * np.arange(-3, 3).reshape(1, 3, 2).astype(dtype)
    inputs = {"x": x, "y": x + (0.5 + 0.5j)}
    batch = Batch()
    for name, e in table.items():
        for f in [UNARY[name]] + ([OPERATOR_FORMS[name]] if name in OPERATOR_FORMS else []):
            def check(r, name=name, e=e):
                y, (g1,), gi = r
                assert_close(y, arr(e["y"]), dtype_name, f"{name} value")
                assert_close(g1, arr(e["g1"]).reshape(x.shape), dtype_name, f"{name} gradient for 1")
                assert ("gi" in e) == (gi is not None), name
                if gi is not None:
                    assert_close(gi[0], arr(e["gi"]).reshape(x.shape), dtype_name, f"{name} gradient for 1j")
            batch.add(lambda f=f, a=inputs[e["arg"]]: cgrads(f, a), check)
    batch.run()


def test_unary_complex64():
    """UnaryOpTest.testComplex64Basic: values and TF's Jacobians (as the gradients for 1 and 1j)."""
    _check_unary_complex(np.complex64, "complex64")


def test_unary_complex128():
    """UnaryOpTest.testComplex128Basic."""
    with jax.enable_x64(True):
        _check_unary_complex(np.complex128, "complex128")


def test_unary_integers():
    """UnaryOpTest.testInt8Basic / testInt16Basic / testInt32Basic / testUInt8Basic / testUInt16Basic /
    testUInt32Basic: values, dtype kept."""
    for dtype_name, table in DATA["ints"].items():
        x = (np.arange(-6, 6, 2) if dtype_name.startswith("int") else np.arange(6)).reshape(1, 3, 2)
        x = x.astype(dtype_name)
        for name, want in table.items():
            for f in [UNARY[name]] + ([OPERATOR_FORMS[name]] if name in OPERATOR_FORMS else []):
                y = f(tj.constant(x))
                assert np.dtype(y.dtype) == x.dtype, (dtype_name, name)
                np.testing.assert_array_equal(to_numpy(y), np.asarray(want).reshape(x.shape))


GRADGRAD = {"reciprocal": tnp.reciprocal, "rsqrt": tnp.rsqrt, "sigmoid": tnp.sigmoid, "sqrt": tnp.sqrt,
            "tanh": tnp.tanh}


def _grad_grad(name, x, dy):
    """The first gradient ``g`` of the op at x for the output gradient dy, and an outer persistent tape
    that recorded it."""
    x, dy = tj.constant(x), tj.constant(dy)
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([x, dy])
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = GRADGRAD[name](x)
        g = inner.gradient(y, x, output_gradients=dy)
    return outer, g, x, dy


def _grad_grad_real(name, x, dy):
    outer, g, x, dy = _grad_grad(name, x, dy)
    return g, outer.jacobian(g, [x, dy])


def _grad_grad_complex(name, x, dy):
    """TF's real layout of the Jacobian of g: row 2i (real part of g_i) from the output gradient e_i, row
    2i + 1 (imaginary part) from 1j * e_i, each row the real view of the tape's gradients."""
    outer, g, x, dy = _grad_grad(name, x, dy)
    rows = []
    for i in range(5):
        for scale in (1.0, 1j):
            ct = np.zeros(5, np.complex64)
            ct[i] = scale
            rows.append(outer.gradient(g, [x, dy], output_gradients=ct))
    return g, rows


def test_unary_grad_grad():
    """UnaryOpTest.testGradGrad: TF checks the gradients of ReciprocalGrad, RsqrtGrad, SigmoidGrad, SqrtGrad
    and TanhGrad (raw ops) with respect to both their inputs; here the same kernels as a tape's first
    gradient ``g(x, dy)`` of the op, differentiated by an outer tape with respect to x and dy (TF's values
    come from the same nesting), float32 and complex64."""
    batch = Batch()
    for name in GRADGRAD:
        for dtype_name in ("float32", "complex64"):
            e = DATA["gradgrad"][f"{name}_{dtype_name}"]
            x, dy = arr(e["x"], dtype_name), arr(e["dy"], dtype_name)
            jx, jdy = arr(e["jx"]), arr(e["jdy"])

            def check(r, e=e, jx=jx, jdy=jdy, complex_=dtype_name == "complex64", what=f"{name} {dtype_name}"):
                g, rest = r
                assert_close(g, arr(e["g"]), "float32", what + " first gradient")
                if not complex_:
                    assert_close(rest[0], jx, "float32", what + " d/dx")
                    assert_close(rest[1], jdy, "float32", what + " d/d(dy)")
                    return
                for row, (gx, gdy) in enumerate(rest):
                    for got, want in ((gx, jx), (gdy, jdy)):
                        np.testing.assert_allclose(np.stack([got.real, got.imag], -1).ravel(), want[row],
                                                   rtol=5e-6, atol=5e-6, err_msg=f"{what} row {row}")
            compute = _grad_grad_complex if dtype_name == "complex64" else _grad_grad_real
            batch.add(lambda compute=compute, name=name, x=x, dy=dy: compute(name, x, dy), check)
    batch.run()


def test_complex_abs_grad_grad():
    """UnaryOpTest.testComplexAbsGradGrad: second derivative of abs(complex(cos(x), 1)) at 2.0 (the complex
    number built as cos(x) + 1j; tj.numpy has no ``complex``)."""
    e = DATA["complex_abs_gradgrad"]
    x = tj.constant(2.0)
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = tnp.abs(tnp.cos(x) + 1j)
        g = inner.gradient(y, x)
    assert_close(g, e["g"], "float32")
    assert_close(outer.gradient(g, x), arr(e["j"]).reshape(()), "float32")


# -- binary ops ------------------------------------------------------------------------------------------

BINARY = {"add": tnp.add, "subtract": tnp.subtract, "multiply": tnp.multiply, "divide": tnp.divide,
          "floor_divide": tnp.floor_divide, "arctan2": tnp.arctan2, "power": tnp.power, "maximum": tnp.maximum,
          "minimum": tnp.minimum, "mod": tnp.mod}
BINARY_OPERATORS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
                    "divide": lambda a, b: a / b, "floor_divide": lambda a, b: a // b, "power": lambda a, b: a ** b,
                    "mod": lambda a, b: a % b}


def _forms(name):
    return [BINARY[name]] + ([BINARY_OPERATORS[name]] if name in BINARY_OPERATORS else [])


def _check_binary_real(dtype, dtype_name):
    table = DATA["binary_" + dtype_name]
    x = np.linspace(-5, 20, 15).reshape(1, 3, 5).astype(dtype)
    y = np.linspace(20, -5, 15).reshape(1, 3, 5).astype(dtype)
    batch = Batch()
    for name, e in table.items():
        a, b = x, (y + 0.1 if name in ("divide", "floor_divide") else y)
        if name == "arctan2_random":
            a, b = arr(e["a"], dtype), arr(e["b"], dtype)
            name = "arctan2"
        for f in _forms(name):
            def compute(f=f, a=a, b=b, grad="x" in e):
                # the op takes precedence over a NumPy operand on either side
                values = [f(tj.constant(a), tj.constant(b)), f(a, tj.constant(b)), f(tj.constant(a), b)]
                return values, (jac(lambda p, q: 1.1 * f(p, q), a, b) if grad else None)

            def check(r, name=name, e=e, a=a, b=b):
                values, grads = r
                for v in values:
                    assert v.dtype == dtype, name
                    assert_close(v, arr(e["z"]), dtype_name, f"{name} value")
                if grads is not None:
                    z, (jx, jy) = grads
                    assert_close(as_matrix(jx, z, a), np.diag(arr(e["x"]["d"])), dtype_name, f"{name} d/dx")
                    assert_close(as_matrix(jy, z, b), np.diag(arr(e["y"]["d"])), dtype_name, f"{name} d/dy")
            batch.add(compute, check)
    batch.run()


def test_binary_float_values_and_jacobians():
    """BinaryOpTest.testFloatBasic: add, subtract, multiply, truediv, floordiv (values only, as TF: it has
    no gradient), their operators, atan2 (igamma, igammac, zeta, polygamma have no tj counterpart)."""
    _check_binary_real(np.float32, "float32")


def test_binary_double_values_and_jacobians():
    """BinaryOpTest.testDoubleBasic."""
    with jax.enable_x64(True):
        _check_binary_real(np.float64, "float64")


def test_binary_eager_float32():
    """BinaryOpTest.testFloatBasic, op by op (eager tape): multiply, truediv and atan2."""
    table = DATA["binary_float32"]
    x = np.linspace(-5, 20, 15).reshape(1, 3, 5).astype(np.float32)
    y = np.linspace(20, -5, 15).reshape(1, 3, 5).astype(np.float32)
    for name, b in (("multiply", y), ("divide", y + 0.1), ("arctan2", y)):
        e = table[name]
        z, (jx, jy) = real_jacobian(lambda p, q: 1.1 * BINARY[name](p, q), x, b)
        assert_close(BINARY[name](x, b), arr(e["z"]), "float32", name)
        assert_close(jx, np.diag(arr(e["x"]["d"])), "float32", name)
        assert_close(jy, np.diag(arr(e["y"]["d"])), "float32", name)


def _check_binary_complex(dtype, dtype_name):
    table = DATA["binary_" + dtype_name]
    x = (1 + 1j) * np.linspace(-10, 10, 6).reshape(1, 3, 2).astype(dtype)
    y = (1 + 1j) * np.linspace(20, -20, 6).reshape(1, 3, 2).astype(dtype)
    batch = Batch()
    for name, e in table.items():
        b = (y + 0.1).astype(dtype) if name == "divide" else y
        for f in _forms(name):
            def check(r, name=name, e=e):
                z, (g1x, g1y), (gix, giy) = r
                assert_close(z, arr(e["z"]), dtype_name, f"{name} value")
                for got, want in ((g1x, e["x"]["g1"]), (gix, e["x"]["gi"]), (g1y, e["y"]["g1"]),
                                  (giy, e["y"]["gi"])):
                    assert_close(got, arr(want).reshape(x.shape), dtype_name, name)
            batch.add(lambda f=f, b=b: cgrads(f, x, b), check)
    batch.run()


def test_binary_complex64():
    """BinaryOpTest.testComplex64Basic: values and TF's Jacobians of add, subtract, multiply, truediv."""
    _check_binary_complex(np.complex64, "complex64")


def test_binary_complex128():
    """BinaryOpTest.testComplex128Basic."""
    with jax.enable_x64(True):
        _check_binary_complex(np.complex128, "complex128")


def test_binary_bfloat16_values():
    """BinaryOpTest.testBfloat16Basic: values (TF checks no bfloat16 gradients here)."""
    e = DATA["binary_bfloat16"]
    x, y, y1 = (tj.constant(arr(e[k]).astype(BF16)) for k in ("x", "y", "y1"))
    for name in ("add", "subtract", "multiply", "maximum", "minimum", "divide", "floor_divide"):
        b = y1 if name in ("divide", "floor_divide") else y
        for f in _forms(name):
            z = f(x, b)
            assert np.dtype(z.dtype) == BF16, name
            np.testing.assert_allclose(to_numpy(z, np.float64), arr(e[name]).reshape(1, 3, 5), rtol=1e-2, err_msg=name)


def test_binary_integer_values():
    """BinaryOpTest.testUint8Basic / testInt8Basic / testInt16Basic / testUint16Basic / testInt32Basic /
    testUint32Basic: values. The dtype of an integer truediv follows JAX (float32 with x64 off; TF gives
    float64 for int32), as the README says."""
    for dtype_name, table in DATA["binary_ints"].items():
        x = np.arange(1, 13, 2).reshape(1, 3, 2).astype(dtype_name)
        y = np.arange(1, 7, 1).reshape(1, 3, 2).astype(dtype_name)
        for name, want in table.items():
            for f in _forms(name):
                z = f(tj.constant(x), tj.constant(y))
                if name != "divide":
                    assert np.dtype(z.dtype) == np.dtype(dtype_name), (dtype_name, name)
                np.testing.assert_allclose(to_numpy(z, np.float64), np.asarray(want).reshape(1, 3, 2), rtol=1e-6,
                                           err_msg=f"{dtype_name} {name}")


def _scalar_jacobian(f, y_value, dtype_name):
    """TF's gradient_checker_v2 Jacobian of a scalar function of a scalar: 1x1 for a real one, 2x2 for a
    complex one (rows: the output's real and imaginary parts, from the output gradients 1 and 1j)."""
    y = tj.constant(np.asarray(y_value, dtype_name))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch(y)
        z = f(y)
    if np.dtype(dtype_name).kind != "c":
        return to_numpy(tape.gradient(z, y), np.float64).reshape(1, 1)
    rows = [to_numpy(tape.gradient(z, y, output_gradients=np.asarray(s, dtype_name))) for s in (1.0, 1j)]
    return np.array([[r.real, r.imag] for r in rows])


def test_zero_pow_grad():
    """BinaryOpTest.testZeroPowGrad: d pow(0, y)/dy at y = 2 is 0 (TF's PowGrad masks log(0))."""
    for dtype_name in ("float16", "float32", "complex64", "float64", "complex128"):
        with jax.enable_x64(dtype_name in ("float64", "complex128")):
            zero = np.asarray(0.0, dtype_name)
            got = _scalar_jacobian(lambda y: tnp.power(zero, y), 2.0, dtype_name)
        np.testing.assert_array_equal(got, arr(DATA["zero_pow_grad"][dtype_name]), err_msg=dtype_name)


def test_complex_pow_grad():
    """BinaryOpTest.testComplexPowGrad: TF's Jacobian of pow(+-2, y) with respect to a complex y at 2."""
    for dtype_name in ("complex64", "complex128"):
        for base in (2.0, -2.0):
            with jax.enable_x64(dtype_name == "complex128"):
                b = np.asarray(base, dtype_name)
                got = _scalar_jacobian(lambda y: tnp.power(b, y), 2.0, dtype_name)
            np.testing.assert_allclose(got, arr(DATA["complex_pow_grad"][f"{dtype_name}_{base}"]), rtol=1e-5,
                                       atol=1e-5, err_msg=f"{dtype_name} base {base}")


def test_float_different_shapes():
    """BinaryOpTest.testFloatDifferentShapes: atan2 of a (2, 1) and a (2, 2) tensor (values and TF's
    Jacobians), and the gradients of sum(x * y) with broadcasting."""
    e = DATA["atan2_different_shapes"]
    x = np.array([1, 2, 3, 4], np.float32).reshape(2, 2)
    y = np.array([1, 2], np.float32).reshape(2, 1)
    z, (ja, jb) = real_jacobian(lambda a, b: 1.1 * tnp.arctan2(a, b), y, x)
    assert_close(tnp.arctan2(y, x), arr(e["z"]), "float32")
    assert_close(ja, arr(e["ja"]), "float32")
    assert_close(jb, arr(e["jb"]), "float32")
    inx, iny = tj.constant(x), tj.constant(y)
    with tj.GradientTape() as tape:
        tape.watch([inx, iny])
        s = tnp.sum(inx * iny)
    gx, gy = tape.gradient(s, [inx, iny])
    np.testing.assert_array_equal(to_numpy(gx), np.array([[1, 1], [2, 2]], np.float32))
    np.testing.assert_array_equal(to_numpy(gy), np.array([[3], [7]], np.float32))

    @tj.function
    def both(a, b):
        return tj.gradients(tnp.sum(a * b), [a, b])
    gx, gy = both(inx, iny)
    np.testing.assert_array_equal(to_numpy(gx), np.array([[1, 1], [2, 2]], np.float32))
    np.testing.assert_array_equal(to_numpy(gy), np.array([[3], [7]], np.float32))


def test_float_variable_overload():
    """BinaryOpTest.testFloatVariableOverload: a Variable times a NumPy array on either side."""
    x = np.array([1, 2, 3, 4]).reshape(2, 2).astype(np.int32)
    y = np.array([1, 2]).reshape(2, 1).astype(np.int32)
    vx, vy = tj.Variable(x), tj.Variable(y)
    np.testing.assert_array_equal(to_numpy(vx * y), x * y)
    np.testing.assert_array_equal(to_numpy(x * vy), x * y)


def _bcast_inputs(xs, ys, dtype):
    def make(shape, end):
        return (1 + np.linspace(0, end, int(np.prod(shape)))).astype(dtype).reshape(shape)
    if np.dtype(dtype).kind == "c":
        return make(xs, 2 + 3j), make(ys, 2 - 2j)
    return make(xs, 5), make(ys, 5)


def _rebuild(p, in_shape, out_shape):
    """TF's Jacobian of a broadcasting elementwise op from its stored form: row o has the entry p[o] in the
    column of o's broadcast source."""
    n_out, n_in = int(np.prod(out_shape)), int(np.prod(in_shape))
    j = np.zeros((n_out, n_in))
    if n_out:
        src = np.broadcast_to(np.arange(n_in).reshape(in_shape), out_shape).ravel()
        j[np.arange(n_out), src] = np.asarray(p)
    return j


SHAPES = [tuple(map(tuple, s)) for s in DATA["bcast_shapes"]]
# every pair of TF's list would take a minute to trace here; the pairs below cover each kind of broadcast
# (a scalar-like operand, a trailing and a middle axis, both operands broadcast, an empty axis, a rank
# difference of three, a large leading axis) between them
BCAST_FLOATS = {"float32": (3, 8, 9, 15), "float16": (8,), "float64": (8,)}
BCAST_VALUE_PAIRS = {np.float32: (0, 2, 6, 8, 10, 13, 14), np.float16: (0, 8), np.int32: (0, 8),
                     np.complex64: (0, 8)}


@pytest.mark.parametrize("dtype_name", sorted(BCAST_FLOATS))
def test_bcast_jacobians(dtype_name):
    """BinaryOpTest.testBCast_0A ... testBCast_15D (gradients): add, subtract, pow, multiply and truediv
    (function and operator forms) on four broadcast pairs of TF's tests (a middle axis, both operands
    broadcast, an empty axis, a large leading axis), both ways round, in float32; float16 and float64 on
    one. TF scales the output by 1.1 except in float16."""
    scale = 1.0 if dtype_name == "float16" else 1.1
    with jax.enable_x64(dtype_name == "float64"):
        batch = Batch()
        for i in BCAST_FLOATS[dtype_name]:
            for swap in (0, 1):
                xs, ys = SHAPES[i][::-1] if swap else SHAPES[i]
                x, y = _bcast_inputs(xs, ys, dtype_name)
                out_shape = np.broadcast_shapes(xs, ys)
                for name in ("add", "subtract", "multiply", "power", "divide"):
                    e = DATA["bcast"][f"{dtype_name}|{i}|{swap}|{name}"]
                    f = _forms(name)[swap]  # the function one way round, the operator the other

                    def check(r, e=e, xs=xs, ys=ys, out_shape=out_shape, what=f"{xs} {ys} {name}"):
                        z, (jx, jy) = r
                        assert z.shape == out_shape and z.dtype == np.dtype(dtype_name), what
                        if z.size:
                            assert_close(as_matrix(jx, z, np.empty(xs)), _rebuild(e["px"], xs, out_shape),
                                         dtype_name, what + " d/dx")
                            assert_close(as_matrix(jy, z, np.empty(ys)), _rebuild(e["py"], ys, out_shape),
                                         dtype_name, what + " d/dy")
                        else:
                            assert jx.shape == out_shape + xs and jy.shape == out_shape + ys, what
                    batch.add(lambda f=f, x=x, y=y: jac(lambda a, b: scale * f(a, b), x, y), check)
        batch.run()


NP_BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "power": np.power,
             "divide": np.true_divide, "floor_divide": np.floor_divide}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.complex64], ids=str)
def test_bcast_values(dtype):
    """BinaryOpTest.testBCast_* (values): each op on broadcast pairs of TF's, both ways round, for float32
    (seven pairs), float16, int32 and complex64 (two) equals NumPy (as TF's does; floordiv skipped for
    complex, as TF)."""
    batch = Batch()
    for i in BCAST_VALUE_PAIRS[dtype]:
        xs, ys = SHAPES[i]
        for a_shape, b_shape in ((xs, ys), (ys, xs)):
            x, y = _bcast_inputs(a_shape, b_shape, dtype)
            for name, npf in NP_BINARY.items():
                if dtype == np.complex64 and name == "floor_divide":
                    continue

                def check(z, want=npf(x, y), what=f"{a_shape} {b_shape} {name}"):
                    assert z.shape == want.shape, what
                    tol = 1e-3 if dtype == np.float16 else 1e-6
                    np.testing.assert_allclose(z, want, rtol=tol, err_msg=what)
                batch.add(lambda f=BINARY[name], x=x, y=y: f(tj.constant(x), tj.constant(y)), check)
    batch.run()


def test_mismatched_dimensions():
    """BinaryOpTest.testMismatchedDimensions: ValueError (TF's eager InvalidArgumentError; its graph-mode
    ValueError), by function and operator."""
    a, b = tj.constant([10.0, 20.0, 30.0]), tj.constant([[40.0, 50.0], [60.0, 70.0]])
    for name in ("add", "subtract", "multiply", "divide", "floor_divide", "arctan2", "maximum", "minimum", "mod",
                 "power"):
        for f in _forms(name):
            with pytest.raises(ValueError):
                f(a, b)


def test_complex_pow_with_zero_exponent():
    """BinaryOpTest.testComplexPowWithZeroExponent: z ** 0 == 1 for every complex z (zeros of any sign, nan,
    infinities), broadcast or not, empty too; 2 ** 1j and mixed exponents. The values are the test's own
    (NumPy's): TF 2.21 itself gives nan+nanj for 0 ** 0, nan ** 0 and inf ** 0 (fixed in TF after 2.21)."""
    bases = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 2j,
                      np.nan, complex(np.inf, 0.0), complex(0.0, np.inf)], np.complex64)
    ones = np.ones(8, np.complex64)
    np.testing.assert_array_equal(to_numpy(tnp.power(bases, np.zeros_like(bases))), ones)
    np.testing.assert_array_equal(to_numpy(tnp.power(bases, np.array(0, np.complex64))), ones)
    empty = np.array([], np.complex64)
    assert to_numpy(tnp.power(empty, empty)).shape == (0,)
    signed = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)], np.complex64)
    np.testing.assert_array_equal(to_numpy(tnp.power(np.zeros_like(signed), signed)), np.ones(4))
    got = to_numpy(tnp.power(np.array(2 + 0j, np.complex64), np.array(1j, np.complex64)))
    np.testing.assert_allclose(got, complex(DATA["cpow_imag"]), rtol=1e-6)  # TF 2.21's value
    assert got != 1 + 0j
    got = to_numpy(tnp.power(np.array([0j, 2 + 0j, 1 + 1j], np.complex64), np.array([0j, 2 + 0j, 0j], np.complex64)))
    np.testing.assert_allclose(got, [1, 4, 1], rtol=1e-6)
    assert complex(to_numpy(tnp.power(tj.constant(np.complex64(0j)), tj.constant(np.complex64(0j))))) == 1 + 0j
    got = to_numpy(tnp.power(bases.reshape(2, 4), np.zeros((1, 4), np.complex64)))
    np.testing.assert_array_equal(got, np.ones((2, 4)))


def test_atan2_special_values():
    """BinaryOpTest.testAtan2SpecialValues: signed zeros, infinities and NaN, as TF (float32)."""
    e = DATA["atan2_special"]
    a = np.array([float(v) for v in e["a"]], np.float32)
    b = np.array([float(v) for v in e["b"]], np.float32)
    z = to_numpy(tnp.arctan2(a, b))
    np.testing.assert_allclose(z, np.array([float(v) for v in e["z"]], np.float32), rtol=1e-6)
    np.testing.assert_array_equal(np.signbit(z), e["signbit"])


def test_pow_negative_exponent():
    """BinaryOpTest.testPowNegativeExponentCpu: an integer to a negative integer power raises (TF's
    InvalidArgumentError is tapejax's ValueError), elementwise or a Python int exponent."""
    for dtype in (np.int8, np.int16, np.int32):
        x = np.array([5, 2]).astype(dtype)
        for y in (np.array([-2, 3]).astype(dtype), np.array([2, -3]).astype(dtype), -3):
            with pytest.raises(ValueError, match="negative integer powers"):
                tnp.power(x, y)


def test_pow_negative_exponent_of_an_empty_integer_tensor_is_empty():
    """TF computes no element, so nothing raises: an empty result of the promoted dtype (jax refused the negative
    integer power even then, from inside its integer_pow)."""
    for base, exponent, dtype in ((tj.constant([], "int32"), -1, np.int32), (tj.constant([], "int8"), -2, np.int8),
                                  (np.zeros((0, 3), np.int16), np.array([-1, 2, -3], np.int16), np.int16)):
        r = tnp.power(base, exponent)
        assert r.dtype == dtype and r.shape == np.broadcast_shapes(np.shape(base), np.shape(exponent))
    assert (tj.constant([], "int32") ** -1).shape == (0,)


# -- comparison and logical ops (values) ------------------------------------------------------------------

CMP = {"less": (tnp.less, np.less), "less_equal": (tnp.less_equal, np.less_equal),
       "greater": (tnp.greater, np.greater), "greater_equal": (tnp.greater_equal, np.greater_equal),
       "equal": (tnp.equal, np.equal), "not_equal": (tnp.not_equal, np.not_equal)}
CMP_SHAPES = [([1, 3, 2], [1]), ([1, 3, 2], [2]), ([1, 3, 2], [3, 2]), ([1, 3, 2], [3, 1]), ([1, 3, 2], [1, 3, 2]),
              ([1, 3, 2], [2, 3, 1]), ([1, 3, 2], [2, 1, 1]), ([1, 3, 2], [1, 3, 1]), ([2, 1, 5], [2, 3, 1]),
              ([2, 0, 5], [2, 0, 1]), ([2, 3, 0], [2, 3, 1])]


def test_comparison_scalars_and_tensors():
    """ComparisonOpTest.testScalarCompareScalar / testTensorCompareTensor."""
    batch = Batch()
    for t in (np.float16, np.float32, np.int32):
        for x in (-1, 0, 1):
            for y in (-1, 0, 1):
                a, b = np.array([x]).astype(t), np.array([y]).astype(t)
                for name, (f, npf) in CMP.items():
                    def check(r, want=bool(npf(x, y)), what=(t, x, y, name)):
                        assert r.dtype == np.bool_ and bool(r[0]) == want, what
                    batch.add(lambda f=f, a=a, b=b: f(a, b), check)
    data = [-1, 0, 1, -1j, 1j, 1 + 1j, 1 - 1j]
    for x in data:
        for y in data:
            a, b = np.array([x], np.complex64), np.array([y], np.complex64)
            for f, want in ((tnp.equal, x == y), (tnp.not_equal, x != y)):
                def check(r, want=want, what=(x, y)):
                    assert bool(r[0]) == want, what
                batch.add(lambda f=f, a=a, b=b: f(a, b), check)
    x = np.linspace(-15, 15, 6).reshape(1, 3, 2)
    y = np.linspace(20, -10, 6).reshape(1, 3, 2)
    for t in (np.float16, np.float32, np.int32, np.complex64):
        xt, yt = x.astype(t), y.astype(t)
        if t == np.complex64:
            xt, yt = xt - 1j * xt, yt - 1j * yt
        for name, (f, npf) in CMP.items():
            if t == np.complex64 and name not in ("equal", "not_equal"):
                continue
            def check(r, want=npf(xt, yt)):
                assert r.dtype == np.bool_
                np.testing.assert_array_equal(r, want)
            batch.add(lambda f=f, a=xt, b=yt: f(tj.constant(a), tj.constant(b)), check)
    batch.run()


def test_comparison_bcast():
    """ComparisonOpTest.testBCastLess / LessEqual / Greater / GreaterEqual / Equal / NotEqual (float32
    and, for equality, complex64 on four of the pairs; the other dtypes in
    test_comparison_scalars_and_tensors)."""
    batch = Batch()
    for k, (xs, ys) in enumerate(CMP_SHAPES):
        for t in (np.float32, np.complex64) if k in (0, 3, 8, 9) else (np.float32,):
            x = np.linspace(-15, 15, int(np.prod(xs))).astype(t).reshape(xs)
            y = np.linspace(20, -10, int(np.prod(ys))).astype(t).reshape(ys)
            if t == np.complex64:
                x, y = x - 1j * x, y - 1j * y
            for name, (f, npf) in CMP.items():
                if t == np.complex64 and name not in ("equal", "not_equal"):
                    continue
                for a, b in ((x, y), (y, x)):
                    def check(r, want=npf(a, b)):
                        np.testing.assert_array_equal(r, want)
                    batch.add(lambda f=f, a=a, b=b: f(a, b), check)
    batch.run()


def test_comparison_shape_mismatch():
    """ComparisonOpTest.testShapeMismatch: incompatible shapes raise ValueError (TF: ValueError in a
    graph, InvalidArgumentError eagerly; tapejax raises ValueError for every op, as for add)."""
    x = np.arange(0, 10).reshape([2, 5])
    y = np.arange(0, 10).reshape([5, 2])
    for t in (np.float16, np.float32, np.int32):
        for name, (f, _) in CMP.items():
            with pytest.raises(ValueError):
                f(x.astype(t), y.astype(t))


def test_equal_dtypes():
    """BinaryOpTest/ComparisonOpTest.testEqualDType: equal and not_equal of equal tensors of every dtype."""
    x = np.asarray([0, 1, 2, 3, 4])
    batch = Batch()
    for t in (np.float16, np.float32, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.bool_,
              np.complex64):
        xt = x.astype(t)
        if t == np.complex64:
            xt = xt - 1j * xt
        batch.add(lambda xt=xt: (tnp.equal(xt, xt.copy()), tnp.not_equal(xt, xt.copy())),
                  lambda r, t=t: (np.testing.assert_array_equal(r[0], [True] * 5, err_msg=str(t)),
                                  np.testing.assert_array_equal(r[1], [False] * 5, err_msg=str(t))))
    batch.run()


LOGICAL = {"logical_and": (tnp.logical_and, np.logical_and), "logical_or": (tnp.logical_or, np.logical_or),
           "logical_xor": (tnp.logical_xor, np.logical_xor)}


def test_logical_ops():
    """LogicalOpTest.testScalar / testTensor / testBCast: logical_and/or/xor/not give bool, as NumPy."""
    rng = np.random.default_rng(1)
    batch = Batch()
    for v in (np.array([True]), np.array([False])):
        def check(r, want=np.logical_not(v)):
            assert r.dtype == np.bool_
            np.testing.assert_array_equal(r, want)
        batch.add(lambda v=v: tnp.logical_not(v), check)
    for xs, ys in [([1], [1]), ([1, 3, 2], [1, 3, 2])] + CMP_SHAPES:
        x = rng.integers(0, 2, int(np.prod(xs))).astype(np.bool_).reshape(xs)
        y = rng.integers(0, 2, int(np.prod(ys))).astype(np.bool_).reshape(ys)
        for name, (f, npf) in LOGICAL.items():
            def check(r, want=npf(x, y), what=f"{xs} {ys} {name}"):
                assert r.dtype == np.bool_, what
                np.testing.assert_array_equal(r, want, err_msg=what)
            batch.add(lambda f=f, x=x, y=y: f(tj.constant(x), tj.constant(y)), check)
    batch.run()


def test_logical_shape_mismatch():
    """LogicalOpTest.testShapeMismatch: ValueError."""
    x = np.ones((1, 3, 2), np.bool_)
    y = np.ones((3, 2, 1), np.bool_)
    for f, _ in LOGICAL.values():
        with pytest.raises(ValueError):
            f(x, y)


def test_overload_comparisons_and_logical_operators():
    """MathOpsOverloadTest.testOverloadComparisons: < <= > >= with a Python number on either side, & | ^
    and ~ on bools, equal / not_equal."""
    ov = DATA["overload"]
    ops = {"less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b, "greater": lambda a, b: a > b,
           "greater_equal": lambda a, b: a >= b}
    batch = Batch()
    for dtype_name in ("float16", "float32", "uint8", "uint16", "uint32", "int8", "int16", "int32"):
        for name, f in ops.items():
            def check(r, want=ov[f"{dtype_name}|{name}"][:2], what=f"{dtype_name} {name}"):
                assert [bool(v) for v in r] == want, what
            batch.add(lambda f=f, d=dtype_name: (f(tj.convert_to_tensor(10, dtype=d), 5),
                                                 f(10, tj.convert_to_tensor(5, dtype=d))), check)
    logical = {"and": (lambda a, b: a & b, np.logical_and), "or": (lambda a, b: a | b, np.logical_or),
               "xor": (lambda a, b: a ^ b, np.logical_xor), "equal": (tnp.equal, np.equal),
               "not_equal": (tnp.not_equal, np.not_equal)}
    for f, npf in logical.values():
        for x, y in ((True, False), (True, True), (False, False), (False, True),
                     ([True, True, False, False], [True, False, True, False])):
            def check(r, want=npf(x, y)):
                for got in r:
                    assert got.dtype == np.bool_
                    np.testing.assert_array_equal(got, want)
            batch.add(lambda f=f, x=x, y=y: (f(tj.convert_to_tensor(x, dtype="bool"), y),
                                             f(x, tj.convert_to_tensor(y, dtype="bool"))), check)
    for x in (True, False, [True, False]):
        batch.add(lambda x=x: ~tj.convert_to_tensor(x, dtype="bool"),
                  lambda r, x=x: np.testing.assert_array_equal(r, np.logical_not(x)))
    batch.run()


def test_overload_arithmetic():
    """MathOpsOverloadTest.testOverload: + - * ** / // % between a tensor of each dtype and a Python number
    on either side (10 op 3), values as TF's (float64, int64, uint64 and complex128 left out: x64; bfloat16
    is compared in float32)."""
    ov = DATA["overload"]
    ops = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
           "power": lambda a, b: a ** b, "divide": lambda a, b: a / b, "floor_divide": lambda a, b: a // b,
           "mod": lambda a, b: a % b}
    batch = Batch()
    for key, (left, right, tf_dtype) in ov.items():
        dtype_name, name = key.split("|")
        if name not in ops:
            continue
        f = ops[name]

        def check(r, key=key, left=left, right=right, tf_dtype=tf_dtype, name=name):
            rtol = 1e-2 if key.startswith(("float16", "bfloat16")) else 1e-6
            for got, want in zip(r, (left, right)):
                if name != "divide":  # an integer truediv's dtype follows JAX (README)
                    assert got.dtype == np.dtype(BF16 if tf_dtype == "bfloat16" else tf_dtype), key
                np.testing.assert_allclose(got.astype(np.complex128), arr(want), rtol=rtol, err_msg=key)
        batch.add(lambda f=f, d=dtype_name: (f(tj.convert_to_tensor(10, dtype=d), 3),
                                             f(10, tj.convert_to_tensor(3, dtype=d))), check)
    batch.run()


# -- select (where) --------------------------------------------------------------------------------------

def test_where_values():
    """SelectOpTest.testScalar / testScalarBroadcast / testBasic / testBasicBroadcast / testEmptyTensor:
    tf.where (v2, broadcasting) is tnp.where; values as np.where."""
    rng = np.random.default_rng(2)
    conds = [True, rng.integers(0, 2, 6).astype(np.bool_).reshape(1, 3, 2),
             rng.integers(0, 2, 2).astype(np.bool_).reshape(1, 1, 2),
             rng.integers(0, 2, 3).astype(np.bool_).reshape(1, 3, 1), np.array([[[True]]])]
    shapes = [(1, 3, 2), (1, 1, 1), (1, 3, 1), (1, 1, 2), (1, 1), (1,), (1, 2), (3, 2)]
    batch = Batch()
    for c in conds:
        for s in shapes:
            x, y = rng.random((1, 3, 2)) * 100, rng.random(s) * 100
            # every dtype on same-shape operands, float32 for the broadcasts
            for t in ((np.float16, np.float32, np.int32, np.complex64) if s == (1, 3, 2) else (np.float32,)):
                for a, b in ((x.astype(t), y.astype(t)), (y.astype(t), x.astype(t))):
                    def check(r, want=np.where(c, a, b)):
                        assert r.dtype == want.dtype
                        np.testing.assert_array_equal(r, want)
                    batch.add(lambda c=c, a=a, b=b: tnp.where(c, a, b), check)
    c = np.zeros((1, 3, 0), np.bool_)
    z = np.zeros((1, 3, 0), np.float32)
    batch.add(lambda: tnp.where(c, z, z), lambda r: np.testing.assert_array_equal(r, np.zeros((1, 3, 0))))
    batch.run()


def test_where_gradients():
    """SelectOpTest.testGradients: TF's Jacobians of where(c, x, y) (c's mask for x, its complement for y)
    in float16, float32, float64."""
    e = DATA["where_grad"]
    c = np.asarray(e["c"], np.bool_)
    for dtype_name in ("float16", "float32", "float64"):
        with jax.enable_x64(dtype_name == "float64"):
            x, y = arr(e["x"], dtype_name), arr(e["y"], dtype_name)
            _, (jx, jy) = real_jacobian(lambda a, b: tnp.where(c, a, b), x, y)
        assert_close(jx, np.diag(arr(e[dtype_name]["x"]["d"])), dtype_name)
        assert_close(jy, np.diag(arr(e[dtype_name]["y"]["d"])), dtype_name)


def test_where_gradients_broadcast():
    """SelectOpTest.testGradientsBroadcast: the Jacobian with respect to the full-shape operand when the
    other one broadcasts."""
    e = DATA["where_grad"]
    c = np.asarray(e["c"], np.bool_)
    x = arr(e["x"], np.float32)
    rng = np.random.default_rng(3)
    for s, want in e["broadcast"].items():
        y = (rng.random(ast.literal_eval(s)) * 100).astype(np.float32)
        _, (jx,) = real_jacobian(lambda a: tnp.where(c, a, y), x)
        assert_close(jx, np.diag(arr(want["d"])), "float32", s)


def test_where_shape_mismatch():
    """SelectOpTest.testShapeMismatch: ValueError."""
    c = np.ones((1, 3, 2), np.bool_)
    for t in (np.float16, np.float32, np.int32, np.complex64):
        with pytest.raises(ValueError):
            tnp.where(c, np.ones((1, 3, 2), t), np.ones((2, 5, 3), t))


def test_where_nan():
    """SelectOpTest.testNan: NaN does not leak from the branch not taken."""
    for c, a, b, want in DATA["where_nan"]:
        got = float(to_numpy(tnp.where(c, float(a), float(b))))
        assert math.isnan(got) == math.isnan(float(want)), (c, a, b)


# -- maximum / minimum -----------------------------------------------------------------------------------

def test_min_max_values():
    """MinMaxOpTest.testBasic / testDifferentShapes / testScalar: values as NumPy, dtype kept."""
    rng = np.random.default_rng(4)
    x = rng.random((1, 3, 2)) * 100.0
    batch = Batch()
    for y in (rng.random((1, 3, 2)) * 100.0, rng.random(2) * 100.0):
        for t in (np.float16, np.float32, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32):
            a, b = x.astype(t), y.astype(t)
            for f, npf in ((tnp.maximum, np.maximum), (tnp.minimum, np.minimum)):
                def check(r, want=npf(a, b)):
                    assert r.dtype == want.dtype
                    np.testing.assert_array_equal(r, want)
                batch.add(lambda f=f, a=a, b=b: f(a, b), check)
    s = float(rng.random() * 100.0)
    for t in (np.float32, np.int32):
        a = x.astype(t)
        for f, npf in ((tnp.maximum, np.maximum), (tnp.minimum, np.minimum)):
            def check(r, want=npf(a, t(s))):
                np.testing.assert_array_equal(r, want)
            batch.add(lambda f=f, a=a, t=t: f(a, t(s)), check)
    batch.run()


def test_min_max_nan_propagation():
    """MinMaxOpTest.testNaNPropagation: NaN in either operand gives NaN."""
    e = DATA["minmax_nan"]
    x = np.array([1.0, np.nan, 1.0, np.nan])
    y = np.array([1.0, 1.0, np.nan, np.nan])
    for t in (np.float16, np.float32):
        for f, key in ((tnp.maximum, "max"), (tnp.minimum, "min")):
            got = to_numpy(f(x.astype(t), y.astype(t)), np.float64)
            np.testing.assert_array_equal(got, [float(v) for v in e[key]])


def test_min_max_gradients():
    """MinMaxOpTest.testGradients: TF's Jacobians of maximum and minimum with x != y."""
    e = DATA["minmax_grad"]
    x, y = arr(e["x"], np.float32), arr(e["y"], np.float32)
    for name in ("maximum", "minimum"):
        _, (jx, jy) = real_jacobian(BINARY[name], x, y)
        assert_close(jx, np.diag(arr(e[name]["x"]["d"])), "float32", name)
        assert_close(jy, np.diag(arr(e[name]["y"]["d"])), "float32", name)


# -- isfinite / isinf / isnan, rounding ------------------------------------------------------------------

def test_is_finite_inf_nan():
    """IsFiniteInfNanTest.testHalf / testFloat / testBfloat16 (testDouble under x64): as NumPy."""
    def check(dtype):
        if dtype == BF16:
            data = np.array([0, -1, 1, 0.01, -0.01, -3.3895e38, 3.3895e38, -np.inf, np.inf, np.nan]).astype(dtype)
        else:
            fi = np.finfo(dtype)
            data = np.array([0, -1, 1, fi.resolution, -fi.resolution, fi.min, fi.max, -np.inf, np.inf,
                             np.nan]).astype(dtype)
        ref = data.astype(np.float32) if dtype == BF16 else data
        for f, npf in ((tnp.isfinite, np.isfinite), (tnp.isinf, np.isinf), (tnp.isnan, np.isnan)):
            out = f(tj.constant(data))
            assert np.dtype(out.dtype) == np.bool_ and out.shape == data.shape
            np.testing.assert_array_equal(to_numpy(out), npf(ref))
    for dtype in (np.float16, np.float32, BF16):
        check(dtype)
    with jax.enable_x64(True):
        check(np.float64)


def test_sqrt_special_values():
    """IsFiniteInfNanTest.testSqrt: sqrt of negatives is NaN, of the rest as NumPy, at sizes that exercise
    vectorized kernels."""
    for dtype in (np.float16, np.float32):
        fi = np.finfo(dtype)
        for size in (1, 7, 8, 65):
            for value in (fi.min, -2, -1, 0, fi.tiny, 1, 2, 1000, fi.max / 100):
                x = np.full((size,), value, dtype=dtype)
                y = to_numpy(tnp.sqrt(x))
                if value < 0:
                    np.testing.assert_array_equal(np.isnan(y), np.isnan(np.sqrt(x)))
                else:
                    tol = 1e-3 if dtype == np.float16 else 1e-6
                    np.testing.assert_allclose(y, np.sqrt(x), rtol=tol)


def test_rounding():
    """RoundingTest.testTypes: floor and ceil (float16, float32, bfloat16) as NumPy, rint half to even."""
    for dtype in (np.float16, np.float32, BF16):
        data = (np.arange(-3, 3) / 4.0).reshape(1, 3, 2).astype(dtype)
        np.testing.assert_array_equal(to_numpy(tnp.floor(data)), np.floor(data))
        np.testing.assert_array_equal(to_numpy(tnp.ceil(data)), np.ceil(data))
        if dtype != np.float32:
            continue
        np.testing.assert_array_equal(to_numpy(tnp.rint(data)), np.rint(data))
    x0, x1 = DATA["rint"]
    np.testing.assert_array_equal(to_numpy(tnp.rint(np.array([0.5, 0.5000001], np.float32))), x0)
    got = to_numpy(tnp.rint(np.array([-1.7, -1.5, -0.2, 0.2, 1.5, 1.7, 2.0], np.float32)))
    np.testing.assert_array_equal(got, x1)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.array(x1)))


# -- complex parts ---------------------------------------------------------------------------------------

def test_real_imag_conj_angle():
    """ComplexMakeRealImagTest.testRealImagNumericType / testRealImag64 / testAngle / testConj64 /
    testConjReal, RealTest.test_real: values and dtypes as NumPy."""
    for v, re, im in DATA["real_imag_scalar"]:
        v = complex(v) if "j" in v else float(v)
        assert float(to_numpy(tnp.real(v))) == re and float(to_numpy(tnp.imag(v))) == im
    real = (np.arange(-3, 3) / 4.0).reshape([1, 3, 2]).astype(np.float32)
    imag = (np.arange(-3, 3) / 5.0).reshape([1, 3, 2]).astype(np.float32)
    cplx = real + 1j * imag
    tr, ti = tnp.real(cplx), tnp.imag(cplx)
    np.testing.assert_array_equal(to_numpy(tr), real)
    np.testing.assert_array_equal(to_numpy(ti), imag)
    np.testing.assert_array_equal(to_numpy(tnp.real(tr)), real)
    np.testing.assert_array_equal(to_numpy(tnp.imag(tr)), real * 0)
    np.testing.assert_array_equal(to_numpy(tnp.conj(cplx)), np.conj(cplx))
    for dtype in (np.int32, np.float16, np.float32):
        x = np.arange(3).astype(dtype)
        assert np.dtype(tnp.conj(x).dtype) == np.dtype(dtype)
        np.testing.assert_array_equal(to_numpy(tnp.conj(x)), x)
        assert np.dtype(tnp.real(x).dtype) == np.dtype(dtype)
    rng = np.random.default_rng(5)
    mag = rng.random(10).astype(np.float32)
    ang = (2 * np.pi * np.arange(10) / 10.0).astype(np.float32)
    c = np.append(mag * np.exp(1j * ang), [1.0, 1.0j, -1.0, -1.0j]).astype(np.complex64)
    np.testing.assert_allclose(to_numpy(tnp.angle(c)), np.angle(c), rtol=1e-5, atol=1e-6)
    r = (np.arange(-2, 2) / 2.0).astype(np.float32)
    np.testing.assert_allclose(to_numpy(tnp.angle(r)), np.angle(r))
    for dtype, values, want in ((np.complex64, [-2.25 + 4.75j, 3.25 + 5.75j], [-2.25, 3.25]),
                                (np.float32, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])):
        np.testing.assert_array_equal(to_numpy(tnp.real(np.asarray(values, dtype))), want)


def _split_complex(x):
    re, im = tnp.split(x, 2, axis=1)
    return tnp.reshape(re, [-1]), tnp.reshape(im, [-1])


def test_complex_parts_gradient():
    """ComplexMakeRealImagTest.testGradient (_compareGradient): sum(real(conj(c))**2) + sum(imag(conj(c))**2)
    of c = complex(x[:, 0], x[:, 1]) (built as re + 1j * im), TF's Jacobian, float32 and float64."""
    data = np.arange(1, 2, 0.10).reshape([5, 2])

    def loss(x):
        re, im = _split_complex(x)
        c = tnp.conj(re + 1j * im)
        return tnp.sum(tnp.square(tnp.real(c))) + tnp.sum(tnp.square(tnp.imag(c)))
    for dtype_name in ("float32", "float64"):
        with jax.enable_x64(dtype_name == "float64"):
            batch = Batch()
            batch.add(lambda: jac(loss, data.astype(dtype_name)),
                      lambda r: assert_close(as_matrix(r[1][0], r[0], data), arr(DATA["complex_grad"][dtype_name]),
                                             dtype_name))
            batch.run()


def test_complex_broadcast_gradient():
    """ComplexMakeRealImagTest.testGradient (_compareBroadcastGradient): sum(abs(complex(x, 0.0))) and
    sum(abs(complex(0.0, x))), TF's Jacobians."""
    data = np.arange(1, 2, 0.10).reshape([5, 2]).astype(np.float32)
    for key, f in (("bcast_real", lambda x: x + 0j), ("bcast_imag", lambda x: 0.0 + 1j * x)):
        _, (j,) = real_jacobian(lambda x: tnp.sum(tnp.abs(f(x))), data)
        assert_close(j, arr(DATA["complex_grad"][key]), "float32", key)


def test_complex_mul_gradient():
    """ComplexMakeRealImagTest.testMulGradient: sum(real(x * y) + imag(x * y)) with x, y built from the
    columns of a float32 matrix; TF's Jacobian."""
    data = np.arange(1, 2, 0.125).reshape([2, 4]).astype(np.float32)

    def loss(inp):
        xr, xi, yr, yi = (tnp.reshape(t, [-1]) for t in tnp.split(inp, 4, axis=1))
        z = (xr + 1j * xi) * (yr + 1j * yi)
        return tnp.sum(tnp.real(z) + tnp.imag(z))
    _, (j,) = real_jacobian(loss, data)
    assert_close(j, arr(DATA["complex_grad"]["mul"]), "float32")


def test_python_scalar_keeps_its_precision_after_x64_is_turned_on():
    """Found porting BinaryOpTest.testDoubleBasic (which scales float64 outputs by 1.1): a Python float used
    with x64 off and then again with x64 on must not be reused as the float32 it was first made as. TF (and
    JAX) give 1.1 * x == 2.2 exactly for a float64 x == 2."""
    x32 = tj.constant(np.full(2, 2.0, np.float32))
    assert float(to_numpy(1.1 * x32)[0]) == float(np.float32(2.2))
    with jax.enable_x64(True):
        x = tj.constant(np.full(2, 2.0, np.float64))
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = 1.1 * x
        assert np.dtype(y.dtype) == np.float64
        np.testing.assert_array_equal(to_numpy(y), [2.2, 2.2])
        np.testing.assert_array_equal(to_numpy(tape.gradient(y, x)), [1.1, 1.1])
        np.testing.assert_array_equal(to_numpy(tnp.add(x, 0.1)), [2.1, 2.1])


def test_floor_mod_inf_denominator():
    """BinaryOpTest.testFloorModfInfDenominator (GPU-only in TF; TF's CPU kernel gives the same): x mod +-inf
    is x when the signs agree, +-inf when they differ (and x != 0), +0.0 for 0 mod -inf (NumPy: -0.0)."""
    want = np.array([4, 0, np.inf, -np.inf, 0, -1])
    for dtype in (np.float16, np.float32, BF16):
        x = np.array([4, 0, -1, 4, 0, -1], dtype=dtype)
        y = np.array([np.inf] * 3 + [-np.inf] * 3, dtype=dtype)
        for f in (tnp.mod, lambda a, b: tj.constant(a) % b):
            got = to_numpy(f(x, y), np.float64)
            np.testing.assert_array_equal(got, want, err_msg=str(dtype))
            assert not np.signbit(got[4]), dtype


def test_int64_values():
    """UnaryOpTest.testInt64Basic / testInt64Square and BinaryOpTest.testInt64Basic (x64 on): TF's values
    for abs, negative, sign, square, subtract, multiply, truediv, floordiv and mod of int64s beyond int32."""
    with jax.enable_x64(True):
        x = tj.constant(np.arange(-6 << 40, 6 << 40, 2 << 40).reshape(1, 3, 2).astype(np.int64))
        t = 2199023255552
        absolute, negated = [3 * t, 2 * t, t, 0, t, 2 * t], [3 * t, 2 * t, t, 0, -t, -2 * t]
        for f, want in ((tnp.abs, absolute), (abs, absolute), (tnp.negative, negated), (lambda v: -v, negated),
                        (tnp.sign, [-1, -1, -1, 0, 1, 1])):
            y = f(x)
            assert np.dtype(y.dtype) == np.int64
            np.testing.assert_array_equal(to_numpy(y).ravel(), want)
        sq = tnp.square(np.arange(-6 << 20, 6 << 20, 2 << 20).reshape(1, 3, 2).astype(np.int64))
        np.testing.assert_array_equal(to_numpy(sq).ravel(), [39582418599936, 17592186044416, 4398046511104, 0,
                                                             4398046511104, 17592186044416])
        a = np.arange(1 << 40, 13 << 40, 2 << 40).reshape(1, 3, 2).astype(np.int64)
        b = np.arange(1, 7, 1).reshape(1, 3, 2).astype(np.int64)
        cases = {
            "subtract": [1099511627775, 3298534883326, 5497558138877, 7696581394428, 9895604649979, 12094627905530],
            "multiply": [1099511627776, 6597069766656, 16492674416640, 30786325577728, 49478023249920,
                         72567767433216],
            "divide": [1099511627776.0, 1649267441664.0, 1832519379626.6667, 1924145348608.0, 1979120929996.8,
                       2015771317589.3333],
            "floor_divide": [1099511627776, 1649267441664, 1832519379626, 1924145348608, 1979120929996,
                             2015771317589],
            "mod": [0, 0, 2, 0, 4, 2],
        }
        for name, want in cases.items():
            for f in _forms(name):
                z = f(tj.constant(a), tj.constant(b))
                assert np.dtype(z.dtype) == (np.float64 if name == "divide" else np.int64), name
                if name == "divide":
                    np.testing.assert_allclose(to_numpy(z).ravel(), want, rtol=1e-15)
                else:
                    np.testing.assert_array_equal(to_numpy(z).ravel(), want, err_msg=name)
