"""Computes the expected values of tests/test_tf_cwise_port.py with TensorFlow (not a test; needs TF 2.21):
the values, and the analytic Jacobians of gradient_checker_v2.compute_gradient, of the cases of TF's
cwise_ops_unary_test.py, cwise_ops_binary_test.py and cwise_ops_test.py that the port checks, stored in
the compact forms the test's docstring describes (each checked here to rebuild TF's full Jacobian exactly).

    python tools/tf_cwise_port_data.py tests/data/tf_cwise_port.json
"""
import json
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gradient_checker_v2 as gc

tf.config.set_visible_devices([], "GPU")
OUT = {}
# ---- part 1 ------------------------------------------------------------------------------------------
def L(a):
    a = np.asarray(a)
    if np.iscomplexobj(a):
        return {"re": L(a.real), "im": L(a.imag)}
    return a.astype(np.float64).tolist()

def theo(f, xs):
    t, n = gc.compute_gradient(f, xs)
    return [np.asarray(j) for j in t]

def unary_entry(fn, x):
    x = np.asarray(x)
    y = fn(tf.constant(x)).numpy()
    e = {"y": L(y.astype(np.float64) if x.dtype.name == 'bfloat16' else y)}
    if x.dtype.kind in 'fc' or x.dtype.name == 'bfloat16':
        if x.size == 0:
            return e
        J = theo(lambda a: fn(a), [tf.constant(x)])[0]
        n = x.size
        if x.dtype.kind == 'c':
            # blocks
            # gradient_checker_v2's layout: J[output real-view index, input real-view index]
            m = J.shape[0] // n  # 2 for a complex output, 1 for a real one
            g1 = np.array([J[m*i, 2*i] + 1j*J[m*i, 2*i+1] for i in range(n)])
            R = np.zeros_like(J)
            for i in range(n):
                R[m*i:m*i+m, 2*i:2*i+2] = J[m*i:m*i+m, 2*i:2*i+2]
            assert np.array_equal(R, J)
            e["g1"] = L(g1)
            if m == 2:
                e["gi"] = L(np.array([J[2*i+1, 2*i] + 1j*J[2*i+1, 2*i+1] for i in range(n)]))
        else:
            d = np.diag(J).copy()
            assert np.array_equal(np.diag(d), J), fn
            e["d"] = L(d.astype(np.float64))
    return e

bf16 = tf.bfloat16.as_numpy_dtype
UN = {
 "abs": tf.math.abs, "negative": tf.math.negative, "reciprocal": tf.math.reciprocal, "square": tf.math.square,
 "sqrt": tf.math.sqrt, "rsqrt": tf.math.rsqrt, "exp": tf.math.exp, "expm1": tf.math.expm1, "log": tf.math.log,
 "log1p": tf.math.log1p, "sinh": tf.math.sinh, "cosh": tf.math.cosh, "tanh": tf.math.tanh, "arcsinh": tf.math.asinh,
 "arccosh": tf.math.acosh, "arctanh": tf.math.atanh, "sigmoid": tf.math.sigmoid, "log_sigmoid": tf.math.log_sigmoid,
 "sign": tf.math.sign, "sin": tf.math.sin, "cos": tf.math.cos, "arcsin": tf.math.asin, "arccos": tf.math.acos,
 "arctan": tf.math.atan, "tan": tf.math.tan, "erf": tf.math.erf,
}
def inputs(dt, kstep=0.25, wadd=1.02):
    x = np.arange(-3, 3).reshape(1, 3, 2).astype(dt)
    w = (x - x.min() + wadd).astype(dt); y = (x + 0.5).astype(dt); z = (x + 15.5).astype(dt)
    return x, w, y, z
ARG = {"reciprocal": "y", "sqrt": "z", "rsqrt": "z", "log": "z", "log1p": "z", "arccosh": "w", "arctanh": "k",
       "sign": "y", "arcsin": "k", "arccos": "k"}
def run_unary(tag, dt, ops, kvals, wadd=1.02, argover={}):
    x, w, y, z = inputs(dt, wadd=wadd)
    env = dict(x=x, w=w, y=y, z=z, k=kvals)
    res = {}
    for name in ops:
        a = argover.get(name, ARG.get(name, "x"))
        res[name] = dict(arg=a, **unary_entry(UN[name], env[a]))
    OUT[tag] = res
f32_ops = list(UN)
run_unary("unary_float32", np.float32, f32_ops, np.arange(-0.90, 0.90, 0.25).astype(np.float32))
run_unary("unary_float64", np.float64, [o for o in f32_ops if o != "log_sigmoid"], np.arange(-0.90, 0.90, 0.35).reshape(1,3,2).astype(np.float64),
          argover={"tan": "k"})
run_unary("unary_float16", np.float16, [o for o in f32_ops if o != "log_sigmoid"], np.arange(-0.90, 0.90, 0.05).astype(np.float16), wadd=1.1)
bfops = ["abs","negative","reciprocal","exp","expm1","log","log1p","sign","rsqrt","square","sin","cos","tan","sinh","cosh","tanh","arcsin","arccos","arctan","arcsinh","arccosh","arctanh","erf"]
xb = np.arange(-6, 6, 2).reshape(1, 3, 2).astype(bf16)
envb = dict(x=xb, w=(xb - xb.min() + 1.1).astype(bf16), y=(xb + 0.5).astype(bf16), z=(xb + 15.5).astype(bf16), k=np.arange(-0.90, 0.90, 0.05).astype(bf16))
OUT["unary_bfloat16"] = {n: dict(arg=ARG.get(n, "x"), **unary_entry(UN[n], envb[ARG.get(n, "x")])) for n in bfops}
OUT["bf16_inputs"] = {k: L(v.astype(np.float64)) for k, v in envb.items()}
# tanh edge
OUT["tanh_edge"] = [unary_entry(tf.math.tanh, np.arange(40, 46).astype(np.float32)), unary_entry(tf.math.tanh, np.arange(-40, -34).astype(np.float32))]
# complex
for dt, tag in ((np.complex64, "unary_complex64"), (np.complex128, "unary_complex128")):
    x = (1 + 1j) * np.arange(-3, 3).reshape(1, 3, 2).astype(dt); y = x + (0.5 + 0.5j)
    env = dict(x=x, y=y)
    carg = {"abs":"x","negative":"x","reciprocal":"y","square":"x","sqrt":"y","rsqrt":"y","exp":"x","expm1":"x","log":"y","log1p":"y",
            "sinh":"x","cosh":"x","tanh":"x","arcsin":"x","arctan":"x","arcsinh":"y","arccosh":"y","arctanh":"y","sigmoid":"x","sin":"x","cos":"x","sign":"y"}
    OUT[tag] = {n: dict(arg=a, **unary_entry(UN[n], env[a])) for n, a in carg.items()}
# ints
OUT["ints"] = {}
for dt in (np.int8, np.int16, np.int32):
    x = np.arange(-6, 6, 2).reshape(1, 3, 2).astype(dt)
    OUT["ints"][np.dtype(dt).name] = {n: L(UN[n](tf.constant(x)).numpy()) for n in ("abs", "negative", "sign", "square")}
for dt in (np.uint8, np.uint16, np.uint32):
    x = np.arange(6).reshape(1, 3, 2).astype(dt)
    OUT["ints"][np.dtype(dt).name] = {"square": L(tf.math.square(x).numpy())}

# GradGrad style
def gradgrad(fname, dt, lo, hi):
    rs = np.random.RandomState(7)
    def rand():
        v = rs.uniform(lo, hi, size=5).astype(dt)
        if np.dtype(dt).kind == 'c':
            v = v + 1j * rs.uniform(-2, 2, size=5).astype(dt)
        return v.astype(dt)
    x0, dy0 = rand(), rand()
    def g(x, dy):
        with tf.GradientTape() as t:
            t.watch(x); y = UN[fname](x)
        return t.gradient(y, x, output_gradients=dy)
    J = theo(g, [tf.constant(x0), tf.constant(dy0)])
    return dict(x=L(x0), dy=L(dy0), g=L(g(tf.constant(x0), tf.constant(dy0)).numpy()), jx=L(J[0]), jdy=L(J[1]))
OUT["gradgrad"] = {}
for fname, rng in (("reciprocal", (-2, 2)), ("rsqrt", (0.1, 3)), ("sigmoid", (-2, 2)), ("sqrt", (0.1, 3)), ("tanh", (-2, 2))):
    for dt in (np.float32, np.complex64):
        OUT["gradgrad"][f"{fname}_{np.dtype(dt).name}"] = gradgrad(fname, dt, *rng)
# complex abs gradgrad
def cabs_g(x):
    with tf.GradientTape() as t:
        t.watch(x); y = tf.math.abs(tf.complex(tf.math.cos(x), tf.constant(1.0)))
    return t.gradient(y, x)
OUT["complex_abs_gradgrad"] = dict(g=float(cabs_g(tf.constant(2.0)).numpy()), j=L(theo(cabs_g, [tf.constant(2.0)])[0]))


# ---- part 2 ------------------------------------------------------------------------------------------
def L(a):
    a = np.asarray(a)
    if np.iscomplexobj(a):
        return {"re": L(a.real), "im": L(a.imag)}
    return a.astype(np.float64).tolist()
def theo(f, xs):
    return [np.asarray(j) for j in gc.compute_gradient(f, [tf.constant(x) for x in xs])[0]]
def elementwise(J, n, kind):
    if kind != 'c':
        d = np.diag(J).copy(); assert np.array_equal(np.diag(d), J); return {"d": L(d)}
    m = J.shape[0] // n
    R = np.zeros_like(J)
    for i in range(n):
        R[m*i:m*i+m, 2*i:2*i+2] = J[m*i:m*i+m, 2*i:2*i+2]
    assert np.array_equal(R, J)
    e = {"g1": L(np.array([J[m*i, 2*i] + 1j*J[m*i, 2*i+1] for i in range(n)]))}
    if m == 2:
        e["gi"] = L(np.array([J[2*i+1, 2*i] + 1j*J[2*i+1, 2*i+1] for i in range(n)]))
    return e
BIN = {"add": tf.math.add, "subtract": tf.math.subtract, "multiply": tf.math.multiply, "divide": tf.math.truediv,
       "floor_divide": tf.math.floordiv, "arctan2": tf.math.atan2, "power": tf.math.pow, "maximum": tf.math.maximum,
       "minimum": tf.math.minimum, "mod": tf.math.floormod}
def binary(name, x, y, grad=True, scale=None):
    f = BIN[name]
    kind = np.dtype(x.dtype).kind
    if scale is None:
        scale = x.dtype in (np.float32, np.float64)
    z = f(tf.constant(x), tf.constant(y)).numpy()
    e = {"z": L(z)}
    if grad:
        g = (lambda a, b: 1.1 * f(a, b)) if scale else f
        Jx, Jy = theo(g, [x, y])
        e["x"] = elementwise(Jx, x.size, kind); e["y"] = elementwise(Jy, y.size, kind)
    return e
# same-shape float
for dt in (np.float32, np.float64):
    x = np.linspace(-5, 20, 15).reshape(1, 3, 5).astype(dt); y = np.linspace(20, -5, 15).reshape(1, 3, 5).astype(dt)
    r = {}
    for n in ("add", "subtract", "multiply", "arctan2"):
        r[n] = binary(n, x, y)
    r["divide"] = binary("divide", x, y + 0.1)
    r["floor_divide"] = binary("floor_divide", x, y + 0.1, grad=False)
    rs = np.random.RandomState(3)
    shape, tiny = ((5, 6), 0.05) if dt == np.float32 else ((7, 4), 0.5)
    x1 = rs.randn(*shape).astype(dt); x2 = rs.randn(*shape).astype(dt)
    x1[np.abs(x1) < tiny] = tiny * np.sign(x1[np.abs(x1) < tiny]); x2[np.abs(x2) < tiny] = tiny * np.sign(x2[np.abs(x2) < tiny])
    r["arctan2_random"] = dict(a=L(x1), b=L(x2), **binary("arctan2", x1, x2))
    OUT["binary_" + np.dtype(dt).name] = r
for dt in (np.complex64, np.complex128):
    x = (1 + 1j) * np.linspace(-10, 10, 6).reshape(1, 3, 2).astype(dt); y = (1 + 1j) * np.linspace(20, -20, 6).reshape(1, 3, 2).astype(dt)
    OUT["binary_" + np.dtype(dt).name] = {"add": binary("add", x, y), "subtract": binary("subtract", x, y),
        "multiply": binary("multiply", x, y), "divide": binary("divide", x, (y + 0.1).astype(dt))}
bf = tf.bfloat16.as_numpy_dtype
x = np.linspace(-5, 20, 15).reshape(1, 3, 5).astype(bf); y = np.linspace(20, -5, 15).reshape(1, 3, 5).astype(bf)
y1 = bf(y + 0.1)
OUT["binary_bfloat16"] = {"x": L(x.astype(np.float64)), "y": L(y.astype(np.float64)), "y1": L(np.asarray(y1).astype(np.float64))}
for n in ("add", "subtract", "multiply", "maximum", "minimum"):
    OUT["binary_bfloat16"][n] = L(BIN[n](x, y).numpy().astype(np.float64))
for n in ("divide", "floor_divide"):
    OUT["binary_bfloat16"][n] = L(BIN[n](x, y1).numpy().astype(np.float64))
ints = {}
spec = {"uint8": ("add", "subtract"), "int8": ("subtract", "multiply", "divide", "floor_divide"), "int16": ("subtract", "multiply"),
        "uint16": ("subtract", "multiply", "divide", "floor_divide"), "int32": ("add", "subtract", "multiply", "divide", "floor_divide", "mod"),
        "uint32": ("add", "divide", "floor_divide")}
for dn, ops in spec.items():
    x = np.arange(1, 13, 2).reshape(1, 3, 2).astype(dn); y = np.arange(1, 7, 1).reshape(1, 3, 2).astype(dn)
    ints[dn] = {n: L(BIN[n](x, y).numpy()) for n in ops}
OUT["binary_ints"] = ints
# zero pow grad, complex pow grad
zp = {}
for dt in (np.float16, np.float32, np.float64, np.complex64, np.complex128):
    zp[np.dtype(dt).name] = L(theo(lambda b: tf.math.pow(tf.constant(0.0, dtype=dt), b), [np.array(2.0, dt)])[0])
OUT["zero_pow_grad"] = zp
cp = {}
for dt in (np.complex64, np.complex128):
    for base in (2.0, -2.0):
        cp[f"{np.dtype(dt).name}_{base}"] = L(theo(lambda b: tf.math.pow(tf.constant(base, dtype=dt), b), [np.array(2.0, dt)])[0])
OUT["complex_pow_grad"] = cp
# different shapes atan2
xd = np.array([1, 2, 3, 4]).reshape(2, 2).astype(np.float32); yd = np.array([1, 2]).reshape(2, 1).astype(np.float32)
Ja, Jb = theo(lambda a, b: 1.1 * tf.math.atan2(a, b), [yd, xd])
OUT["atan2_different_shapes"] = {"z": L(tf.math.atan2(yd, xd).numpy()), "ja": L(Ja), "jb": L(Jb)}
# broadcasting
SHAPES = [([1, 3, 2], [1]), ([1, 3, 2], [2]), ([1, 3, 2], [3, 2]), ([1, 3, 2], [3, 1]), ([1, 3, 2], [1, 3, 2]),
          ([1, 3, 2], [2, 3, 1]), ([1, 3, 2], [2, 1, 1]), ([1, 3, 2], [1, 3, 1]), ([2, 1, 5], [2, 3, 1]),
          ([2, 0, 5], [2, 0, 1]), ([2, 3, 0], [2, 3, 1]), ([1, 3, 2], [1, 3, 2]), ([1, 1, 1, 1, 3, 2], [1, 3, 2]),
          ([1, 3, 2, 1, 1], [1]), ([2, 3, 1, 1, 5], [1]), ([10, 3, 1, 2], [3, 1, 2])]
def bc_inputs(xs, ys, dt):
    x = (1 + np.linspace(0, 5, np.prod(xs))).astype(dt).reshape(xs); y = (1 + np.linspace(0, 5, np.prod(ys))).astype(dt).reshape(ys)
    return x, y
def partial(J, in_shape, out_shape):
    n_out = int(np.prod(out_shape)); n_in = int(np.prod(in_shape))
    if n_out == 0:
        assert J.size == 0; return []
    src = np.broadcast_to(np.arange(n_in).reshape(in_shape), out_shape).ravel()
    P = J.sum(axis=1)
    R = np.zeros((n_out, n_in), J.dtype); R[np.arange(n_out), src] = P
    assert np.array_equal(R, J), (in_shape, out_shape)
    return L(P)
bc = {}
for dt, pairs in ((np.float32, range(len(SHAPES))), (np.float16, (0, 3, 8)), (np.float64, (0, 3, 8))):
    for i in pairs:
        for swap in (False, True):
            xs, ys = SHAPES[i]
            if swap: xs, ys = ys, xs
            x, y = bc_inputs(xs, ys, dt)
            out_shape = np.broadcast_shapes(tuple(xs), tuple(ys))
            for n in ("add", "subtract", "multiply", "power", "divide"):
                f = BIN[n]
                g = (lambda a, b, f=f: 1.1 * f(a, b)) if dt != np.float16 else f
                Jx, Jy = theo(g, [x, y])
                bc[f"{np.dtype(dt).name}|{i}|{int(swap)}|{n}"] = {"px": partial(Jx, xs, out_shape), "py": partial(Jy, ys, out_shape)}
OUT["bcast"] = bc
OUT["bcast_shapes"] = SHAPES
# check TF forward equals numpy for bcast in all dtypes (report only)
bad = []
for i, (xs, ys) in enumerate(SHAPES):
    for dt in (np.float16, np.float32, np.int32, np.complex64):
        for swap in (False, True):
            a, b = (xs, ys) if not swap else (ys, xs)
            if dt == np.complex64:
                x = (1 + np.linspace(0, 2 + 3j, np.prod(a))).astype(dt).reshape(a); y = (1 + np.linspace(0, 2 - 2j, np.prod(b))).astype(dt).reshape(b)
            else:
                x, y = bc_inputs(a, b, dt)
            for n, nf in (("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("power", np.power), ("divide", np.true_divide), ("floor_divide", np.floor_divide)):
                if dt == np.complex64 and n == "floor_divide": continue
                try:
                    np.testing.assert_allclose(BIN[n](x, y).numpy(), nf(x, y), rtol=1e-3 if dt == np.float16 else 1e-6)
                except AssertionError as e:
                    bad.append((i, str(dt), n))
print("bcast forward mismatches vs numpy:", bad[:10], len(bad))
# min/max gradients
rs = np.random.RandomState(5)
x = (rs.rand(1, 3, 2) * 100.0).astype(np.float32)
y = (x + (rs.randint(2, size=x.shape) - 0.5) * 2).astype(np.float32)
mm = {"x": L(x), "y": L(y)}
for n in ("maximum", "minimum"):
    Jx, Jy = theo(BIN[n], [x, y])
    mm[n] = {"x": elementwise(Jx, 6, 'f'), "y": elementwise(Jy, 6, 'f')}
OUT["minmax_grad"] = mm
# where gradients
c = rs.randint(0, 2, 6).astype(np.bool_).reshape(1, 3, 2)
wx = rs.rand(1, 3, 2) * 100; wy = rs.rand(1, 3, 2) * 100
wg = {"c": c.astype(int).tolist(), "x": L(wx.astype(np.float32)), "y": L(wy.astype(np.float32))}
for dt in (np.float16, np.float32, np.float64):
    Jx, Jy = theo(lambda a, b: tf.where(c, a, b), [wx.astype(dt), wy.astype(dt)])
    wg[np.dtype(dt).name] = {"x": elementwise(Jx, 6, 'f'), "y": elementwise(Jy, 6, 'f')}
bshapes = [(1, 1, 1), (1, 3, 1), (1, 1, 2), (1, 1), (1,), (1, 2), (3, 2)]
wg["broadcast"] = {}
for s in bshapes:
    yb = (rs.rand(*s) * 100).astype(np.float32)
    Jx, = theo(lambda a: tf.where(c, a, yb), [wx.astype(np.float32)])
    wg["broadcast"][str(s)] = elementwise(Jx, 6, 'f')
OUT["where_grad"] = wg
# complex make/real/imag gradients
def cgrad(x):
    r, i = tf.split(x, 2, axis=1); r = tf.reshape(r, [-1]); i = tf.reshape(i, [-1])
    c = tf.math.conj(tf.complex(r, i))
    return tf.reduce_sum(tf.square(tf.math.real(c))) + tf.reduce_sum(tf.square(tf.math.imag(c)))
cg = {}
for dt in (np.float32, np.float64):
    d = np.arange(1, 2, 0.10).reshape([5, 2]).astype(dt)
    cg[np.dtype(dt).name] = L(theo(cgrad, [d])[0])
d = np.arange(1, 2, 0.10).reshape([5, 2]).astype(np.float32)
cg["bcast_real"] = L(theo(lambda a: tf.reduce_sum(tf.abs(tf.complex(a, 0.0))), [d])[0])
cg["bcast_imag"] = L(theo(lambda a: tf.reduce_sum(tf.abs(tf.complex(0.0, a))), [d])[0])
def mulloss(inp):
    xr, xi, yr, yi = [tf.reshape(t, [-1]) for t in tf.split(inp, 4, axis=1)]
    z = tf.complex(xr, xi) * tf.complex(yr, yi)
    return tf.reduce_sum(tf.math.real(z) + tf.math.imag(z))
cg["mul"] = L(theo(mulloss, [np.arange(1, 2, 0.125).reshape([2, 4]).astype(np.float32)])[0])
OUT["complex_grad"] = cg
# forward-value checks
OUT["atan2_special"] = None


# ---- part 3 ------------------------------------------------------------------------------------------
def L(a):
    a = np.asarray(a)
    if np.iscomplexobj(a):
        return {"re": L(a.real), "im": L(a.imag)}
    if a.dtype == bool: return a.tolist()
    return a.astype(np.float64).tolist()
ops = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b, "power": lambda a, b: a ** b,
       "divide": lambda a, b: a / b, "floor_divide": lambda a, b: a // b, "mod": lambda a, b: a % b}
ov = {}
for dn in ("float16", "float32", "bfloat16", "uint8", "uint16", "uint32", "int8", "int16", "int32", "complex64"):
    dt = tf.as_dtype(dn)
    for n, f in ops.items():
        if dn.startswith("complex") and n in ("floor_divide", "mod"): continue
        if dn.startswith("uint") and n == "power": continue
        l = f(tf.convert_to_tensor(10, dtype=dt), 3); r = f(10, tf.convert_to_tensor(3, dtype=dt))
        ov[f"{dn}|{n}"] = [L(l.numpy().astype(np.complex128 if dn.startswith("complex") else np.float64)), L(r.numpy().astype(np.complex128 if dn.startswith("complex") else np.float64)), l.dtype.name]
cmp = {"less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b, "greater": lambda a, b: a > b, "greater_equal": lambda a, b: a >= b}
for dn in ("float16", "float32", "uint8", "uint16", "uint32", "int8", "int16", "int32"):
    dt = tf.as_dtype(dn)
    for n, f in cmp.items():
        ov[f"{dn}|{n}"] = [bool(f(tf.convert_to_tensor(10, dtype=dt), 5).numpy()), bool(f(10, tf.convert_to_tensor(5, dtype=dt)).numpy()), "bool"]
OUT["overload"] = ov
x1l, x2l = zip((+0.0, +0.0), (+0.0, -0.0), (-0.0, +0.0), (-0.0, -0.0), (1.0, 0.0), (-1.0, 0.0), (1.0, -0.0), (-1.0, -0.0),
               (0.0, 1.0), (0.0, -1.0), (-0.0, 1.0), (-0.0, -1.0), (1.2345, float("inf")), (1.2345, -float("inf")),
               (-4.321, float("inf")), (-4.125, -float("inf")), (float("inf"), float("inf")), (float("inf"), -float("inf")),
               (-float("inf"), float("inf")), (-float("inf"), -float("inf")), (1.0, float("nan")), (float("nan"), 1.0), (float("nan"), float("nan")))
a = np.array(x1l, np.float32); b = np.array(x2l, np.float32)
z = tf.math.atan2(a, b).numpy()
OUT["atan2_special"] = {"a": [repr(v) for v in x1l], "b": [repr(v) for v in x2l], "z": [repr(float(v)) for v in z], "signbit": np.signbit(z).tolist()}
x = np.array([1.0, np.nan, 1.0, np.nan], np.float32); y = np.array([1.0, 1.0, np.nan, np.nan], np.float32)
OUT["minmax_nan"] = {"max": [repr(float(v)) for v in tf.maximum(x, y).numpy()], "min": [repr(float(v)) for v in tf.minimum(x, y).numpy()]}
bases = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 2j, np.nan, complex(np.inf, 0.0), complex(0.0, np.inf)], np.complex64)
r = tf.math.pow(bases, np.zeros_like(bases)).numpy()
OUT["cpow_zero"] = [repr(complex(v)) for v in r]
OUT["cpow_imag"] = repr(complex(tf.math.pow(np.array(2 + 0j, np.complex64), np.array(1j, np.complex64)).numpy()))
OUT["cpow_mixed"] = [repr(complex(v)) for v in tf.math.pow(np.array([0j, 2 + 0j, 1 + 1j], np.complex64), np.array([0j, 2 + 0j, 0j], np.complex64)).numpy()]
OUT["rint"] = [tf.math.rint(np.array([0.5, 0.5000001], np.float32)).numpy().tolist(), tf.math.rint(np.array([-1.7, -1.5, -0.2, 0.2, 1.5, 1.7, 2.0], np.float32)).numpy().tolist()]
OUT["where_nan"] = [[c, repr(a_), repr(b_), repr(float(tf.where(c, a_, b_).numpy()))] for c in (False, True) for a_ in (7.0, np.nan) for b_ in (5.0, np.nan)]
OUT["real_imag_scalar"] = [[repr(v), float(tf.math.real(v).numpy()), float(tf.math.imag(v).numpy())] for v in (1.0, 1j, 1.0 + 1j)]
# mismatched dims error types
errs = {}
for n, f in (("add", tf.math.add), ("less", tf.math.less), ("equal", tf.math.equal), ("logical_and", tf.math.logical_and)):
    try:
        if n == "logical_and":
            f(np.ones((1, 3, 2), bool), np.ones((3, 2, 1), bool))
        else:
            f(tf.constant([10.0, 20.0, 30.0]), tf.constant([[40.0, 50.0], [60.0, 70.0]]))
        errs[n] = None
    except Exception as e:
        errs[n] = [type(e).__name__, [c.__name__ for c in type(e).__mro__]]
try:
    tf.where(np.ones((1,3,2),bool), np.ones((1,3,2),np.float32), np.ones((2,5,3),np.float32))
except Exception as e:
    errs["where"] = [type(e).__name__, [c.__name__ for c in type(e).__mro__]]
OUT["errors"] = errs


# ---- float32 values rounded to 9 significant digits (float64 ones kept whole) -----------------------------
def rnd(o, full):
    if isinstance(o, float):
        return o if full else float(f"{o:.9g}")
    if isinstance(o, list):
        return [rnd(v, full) for v in o]
    if isinstance(o, dict):
        return {k: rnd(v, full or "64" in k or "128" in k) for k, v in o.items()}
    return o



if __name__ == "__main__":
    data = rnd(OUT, False)
    with open(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_cwise_port.json", "w") as fh:
        fh.write(json.dumps(data, separators=(",", ":")))
