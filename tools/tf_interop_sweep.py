"""Reference values for tests/test_interop_sweep.py, from TensorFlow 2.21 (and NumPy where TF defers to it).

Run with the venv's TensorFlow: ``python tools/tf_interop_sweep.py``. It prints one line per case; the test file
hard-codes what it prints (the tests never import TensorFlow).
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

warnings.simplefilter("ignore")


def show(label, f):
    try:
        r = f()
        print(f"{label} -> {type(r).__name__} {r!r}")
    except Exception as e:  # the exception type and message are the reference
        print(f"{label} !! {type(e).__name__}: {str(e)[:200]!r}")


# -- names -----------------------------------------------------------------------------------------------------
show("constant.name", lambda: tf.constant(1.0, name="c").name)
show("convert_to_tensor.name", lambda: tf.convert_to_tensor([1.0], name="q").name)
show("Variable.name", lambda: tf.Variable(1.0, name="w").name)
show("Variable.name default", lambda: tf.Variable(1.0).name)
with tf.name_scope("outer"):
    show("Variable.name scoped", lambda: tf.Variable(1.0, name="w").name)
    show("Variable.name scoped default", lambda: tf.Variable(1.0).name)
v = tf.Variable([1.0, 2.0])
show("assign name=", lambda: v.assign([3.0, 4.0], use_locking=True, name="a").numpy())
show("assign_add name=", lambda: v.assign_add([1.0, 1.0], name="b").numpy())
show("assign_sub name=", lambda: v.assign_sub([1.0, 1.0], name="c", read_value=False))

# -- Python conversions ------------------------------------------------------------------------------------------
CASES = {
    "f32 scalar": lambda: tf.constant(1.5), "i32 scalar": lambda: tf.constant(3), "bool scalar": lambda: tf.constant(True),
    "c64 scalar": lambda: tf.constant(1 + 2j, tf.complex64), "f32 [1]": lambda: tf.constant([1.5]),
    "f32 [2]": lambda: tf.constant([1.5, 2.5]), "i32 [0]": lambda: tf.constant([], tf.int32),
    "var f32": lambda: tf.Variable(1.5), "var i32": lambda: tf.Variable(3), "var [2]": lambda: tf.Variable([1.5, 2.5]),
}
for name, make in CASES.items():
    x = make()
    for what, f in [("int", int), ("float", float), ("bool", bool), ("complex", complex), ("len", len),
                    ("iter", lambda a: [e.numpy() for e in a]), ("format ''", lambda a: format(a)),
                    ("format .3f", lambda a: format(a, ".3f")), ("format >6", lambda a: format(a, ">6")),
                    ("numpy", lambda a: a.numpy()), ("np.mean", np.mean), ("np.sum", np.sum), ("np.max", np.max),
                    ("np.asarray", np.asarray), ("index", lambda a: [10, 20, 30, 40][a])]:
        show(f"{name} {what}", lambda: f(x))
show("range(tensor)", lambda: list(range(tf.constant(3))))

# -- value text of str/repr ------------------------------------------------------------------------------------------
TEXTS = {
    "f32 scalar": tf.constant(0.1), "f32 vec": tf.constant([1.0, 2.5, -3.0]), "f32 2x2": tf.constant([[1.0, 2.0], [3.0, 4.5]]),
    "i32 vec": tf.constant([1, -2, 3]), "bool scalar": tf.constant(True), "bool vec": tf.constant([True, False]),
    "c64 vec": tf.constant([1 + 2j, 3 - 1j], tf.complex64), "empty f32": tf.constant([], tf.float32),
    "empty i32 2x0": tf.constant(np.zeros((2, 0), np.int32)), "large": tf.constant(np.arange(2000, dtype=np.float32)),
    "nan inf": tf.constant([float("nan"), float("inf"), -float("inf")]),
}
for name, t in TEXTS.items():
    s = str(t)
    print(f"text {name}: {s[len('tf.Tensor('):s.rindex(', shape=')]!r}")
for name in ["f32 scalar", "f32 vec", "f32 2x2", "bool vec", "c64 vec", "empty f32"]:
    print(f"variable repr {name}: {repr(tf.Variable(TEXTS[name], name='w'))!r}")

# -- indexing (TF's errors; NumPy's values and exception types where TF has no advanced indexing) ------------------
x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
xn = x.numpy()
for label, idx in [("3", 3), ("-4", -4), ("(0, 4)", (0, 4)), ("1.0", 1.0), ("(0, 1.0)", (0, 1.0)), ("0:1.5", slice(0, 1.5)),
                   ("tf float", tf.constant(1.0)), ("tf 5", tf.constant(5)), ("(0, 0, 0)", (0, 0, 0)), ("::0", slice(None, None, 0))]:
    show(f"tf x[{label}]", lambda: x[idx].numpy())
for label, idx in [("[0, 3]", [0, 3]), ("[[0], [-5]]", ([0], [-5])), ("mask", xn > 5), ("1.0", 1.0), ("(0, 0, 0)", (0, 0, 0))]:
    show(f"np x[{label}]", lambda: xn[idx])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = (tf.reduce_sum(x[::2, ::-2] * tf.constant([[1.0, 2.0]])) + tf.reduce_sum(x[..., -1] ** 2)
         + tf.reduce_sum(x[None, 1, :, None] * 3.0) + tf.reduce_sum(x[xn > 9] * 5.0))
show("gradient of basic/strided/newaxis/ellipsis/mask indexing", lambda: tape.gradient(y, x).numpy().tolist())

# -- convert_to_tensor's dtype_hint ------------------------------------------------------------------------------------
for label, f in [("1.5 hint int32", lambda: tf.convert_to_tensor(1.5, dtype_hint=tf.int32)),
                 ("[1, 2] hint float32", lambda: tf.convert_to_tensor([1, 2], dtype_hint=tf.float32)),
                 ("1 positional hint float32", lambda: tf.convert_to_tensor(1, None, tf.float32)),
                 ("True hint float32", lambda: tf.convert_to_tensor(True, dtype_hint=tf.float32)),
                 ("[1, 2.5] hint int32", lambda: tf.convert_to_tensor([1, 2.5], dtype_hint=tf.int32)),
                 ("[] hint int32", lambda: tf.convert_to_tensor([], dtype_hint=tf.int32)),
                 ("1 hint bool", lambda: tf.convert_to_tensor(1, dtype_hint=tf.bool)),
                 ("np.array([1.5]) hint int32", lambda: tf.convert_to_tensor(np.array([1.5]), dtype_hint=tf.int32)),
                 ("constant([1, 2]) hint float32", lambda: tf.convert_to_tensor(tf.constant([1, 2]), dtype_hint=tf.float32)),
                 ("Variable([1, 2]) hint float32", lambda: tf.convert_to_tensor(tf.Variable([1, 2]), dtype_hint=tf.float32)),
                 ("1.5 hint float16", lambda: tf.convert_to_tensor(1.5, dtype_hint=tf.float16))]:
    show(f"convert_to_tensor({label})", lambda: (f().dtype.name, f().numpy().tolist()))

# -- constants built from a watched value ------------------------------------------------------------------------------
v = tf.constant(2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(v)
    filled = tf.reduce_sum(tf.fill([3], v) * tf.constant([1.0, 2.0, 3.0]))
    spaced = tf.reduce_sum(tf.linspace(v, 4.0, 3) * tf.constant([1.0, 2.0, 3.0]))
show("gradient of sum(fill([3], v) * [1, 2, 3]) at v = 2", lambda: tape.gradient(filled, v).numpy())
show("gradient of sum(linspace(v, 4, 3) * [1, 2, 3]) at v = 2", lambda: tape.gradient(spaced, v).numpy())
