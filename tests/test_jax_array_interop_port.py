"""JAX's array interoperability and array API smoke tests, ported to tj.Tensor / tj.Variable and tj.numpy.

Sources (jax-ml/jax at tag jax-v0.10.2, the installed jax):
  * tests/array_interoperability_test.py (DLPack to and from NumPy/JAX/TF, the CUDA array interface, bfloat16);
  * tests/pytorch_interoperability_test.py (its PyTorch tests, split out of the file above before 0.10.2);
  * tests/array_api_test.py (the Array API namespace smoke test and ``__array_namespace_info__``).

How the JAX calls map to tapejax (API.md, "Interoperability": jnp.*(v), jax.jit(f)(v), np.asarray(t),
torch.from_dlpack(t), t.__dlpack__ ...):
  * a jax.Array producer (``jnp.array(np)``, ``jax.device_put``) becomes ``tj.constant(np)`` or ``tj.Variable(np)``;
    the consumers stay the same (``jax.dlpack.from_dlpack``, ``jnp.from_dlpack``, ``np.from_dlpack``,
    ``torch.utils.dlpack.from_dlpack``); the expected value is the NumPy input, the dtype jax.numpy's;
  * a jax consumer of NumPy/torch arrays (``jax.dlpack.from_dlpack(x)``, ``jnp.from_dlpack(x, device, copy)``)
    becomes ``tj.numpy.from_dlpack`` (jax.numpy's Array-API name) and ``tj.constant`` / ``tj.numpy.asarray`` /
    ``tj.Variable``, which must give what
    ``jnp.asarray`` gives (value, dtype; x64 off: int64 sources become int32);
  * ``jax.jit(lambda x: x + 1)`` on the imported array becomes ``tj.function`` of the same lambda, compared with the
    eager result and with jax.jit's on the NumPy value (JAX's _CompileAndCheck analogue);
  * ``ARRAY_API_NAMESPACE = jnp`` becomes tj.numpy; ``x.__array_namespace__()`` is asked of Tensors and Variables.
Sampled grids: JAX's shapes (scalar, non-empty, empty), its DLPack/torch dtypes without the x64 ones (x64 is off),
values from a seeded NumPy RNG.

Left out:
  * test_ensure_alignment: a self-test of the file's own alignment helper;
  * DLPackTest.testJaxRoundTrip (run_on_devices gpu), every CudaArrayInterfaceTest method but
    testCudaArrayInterfaceOnNonCudaFails (GPU buffers / CuPy only: testCudaArrayInterfaceOnShardedArrayFails,
    testCudaArrayInterfaceWorks, testCudaArrayInterfaceBfloat16Fails, testJaxToCuPy, testCuPyToJax, testCaiToJax),
    and the torch file's testPinnedTorchToJaxZeroCopy (CUDA pinned memory): GPU-only, and this task had no GPU;
  * testTensorFlowToJax, testJaxToTensorFlow, testTensorFlowToJaxInt64, testTensorFlowToJaxNondefaultLayout: they
    need TensorFlow in the test process. Checked here with TF 2.21 instead: ``tf.experimental.dlpack.from_dlpack(
    t.__dlpack__())`` of a tj Tensor/Variable gives its value and dtype; ``tj.constant`` of ``tf.ones((2, 3),
    tf.int64)`` is int32 (as jax.dlpack's) and of a transposed TF tensor is its value. The int64 and non-default
    layout facts are ported with NumPy and torch sources;
  * testTorchToJaxFailure calls jaxlib's private ``_jax.dlpack_managed_tensor_to_buffer``; ported through the public
    ``jnp.from_dlpack`` / ``tj.numpy.from_dlpack`` (RuntimeError for a non-compact strided torch tensor) and
    ``tj.constant`` (converts it by value, as ``jnp.asarray``);
  * ArrayAPIErrors.test_clip_complex: ported already (test_jax_lax_numpy_part1_port.py,
    test_clip_complex_input_error);
  * the buffer protocol (memoryview of a Tensor) and NumPy conversion of scalars are tested in
    test_tf_unported_tensor_port.py and test_interop*.py, so not repeated here.

Sanctioned differences (API.md: tj.numpy returns Tensors; a Tensor converted by jnp/jax/NumPy gives its value):
  * ``tj.numpy.arange(20)`` is a tj.Tensor, not a jax.Array (ArrayAPISmokeTest.test_array_namespace_method asserts
    ``isinstance(x, jax.Array)``); the test asserts a Tensor with jnp.arange's value instead;
  * ``jax.jit(lambda v: v + 1)(t)`` of a Tensor returns a Tensor (a Tensor is a pytree); values are compared.

Differences found and fixed in tapejax: tj.numpy had no ``from_dlpack`` and no ``__array_namespace_info__``; Tensors
and Variables had no ``__array_namespace__``; ``t.__cuda_array_interface__`` on a CPU buffer lost jax's "only defined
for GPU buffers" message; ``tj.Tensor.__dlpack__``'s signature was ``(self, *a, **kw)``, not jax.Array's keyword-only
``stream, max_version, dl_device, copy``.
"""
from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import tapejax as tj
from conftest import accumulator_jvp, tape_gradients

torch = pytest.importorskip("torch")
import torch.utils.dlpack  # noqa: E402

tnp = tj.numpy

# JAX's shapes: a scalar, non-empty ones, empty ones (the torch file adds (2, 0, 1))
SHAPES = [(), (4,), (3, 4), (2, 3, 4), (3, 1), (1, 4), (2, 1, 4), (0,), (0, 4), (3, 0), (2, 0, 1)]
BF16 = np.dtype(ml_dtypes.bfloat16)
# jax.dlpack's SUPPORTED_DTYPES without the x64 ones (x64 is off)
DLPACK_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.float16, np.float32,
                 BF16, np.complex64]
NUMPY_DTYPES = [d for d in DLPACK_DTYPES if d is not BF16]  # (NumPy has no bfloat16 DLPack type)
# pytorch_interoperability_test's torch_dtypes without the x64 ones
TORCH_DTYPES = [np.int8, np.int16, np.int32, np.uint8, np.float16, np.float32, BF16, np.complex64]
MAKERS = [pytest.param(tj.constant, id="Tensor"), pytest.param(tj.Variable, id="Variable")]


def _rand(shape, dtype, seed=0):
    """Small values of ``dtype`` (as jtu.rand_default: a few units wide), from a seeded RNG."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.integer):
        return rng.integers(0 if np.issubdtype(dt, np.unsignedinteger) else -5, 6, shape).astype(dt)
    if np.issubdtype(dt, np.complexfloating):
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dt)
    return rng.uniform(-3, 3, shape).astype(dt)


def _bits(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def _identical(got, want, what):
    """The same dtype, shape and bits (a DLPack exchange copies nothing or copies exactly)."""
    got = np.asarray(got)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=what)


def _torch_to_numpy(y):
    if y.dtype == torch.bfloat16:  # (.numpy() refuses bfloat16: the bits, viewed as ml_dtypes' type)
        return y.cpu().view(torch.int16).numpy().view(BF16)
    return y.cpu().numpy()


def _to_torch(a):
    if a.dtype == BF16:
        return torch.tensor(a.view(np.int16)).view(torch.bfloat16)
    return torch.tensor(a)


# -- DLPack export of Tensors and Variables: to jax, NumPy and torch --------------------------------------------------

@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("dtype", DLPACK_DTYPES, ids=lambda d: np.dtype(d).name)
def test_tj_to_jax_dlpack_round_trip(dtype, make):
    # DLPackTest.testJaxArrayRoundTrip: jax.dlpack.from_dlpack of the producer gives its value on its device, and can
    # be called again (more than one array from one producer)
    for k, shape in enumerate(SHAPES):
        a = _rand(shape, dtype, k)
        t = make(a)
        assert t.dtype == jnp.asarray(a).dtype
        for consumer in (jax.dlpack.from_dlpack, jnp.from_dlpack, jax.dlpack.from_dlpack):
            y = consumer(t)
            assert isinstance(y, jax.Array)
            assert y.devices() == t.devices()
            _identical(y, a, f"{consumer.__module__}.from_dlpack {shape}")


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_tj_to_numpy_dlpack(dtype, make):
    # DLPackTest.testJaxToNumpy (CPU only in JAX: NumPy accepts CPU DLPack tensors); NumPy's view of a jax buffer is
    # read-only, as jax.Array's
    if jax.default_backend() != "cpu":
        pytest.skip("NumPy only accepts CPU DLPack tensors")
    for k, shape in enumerate(SHAPES):
        a = _rand(shape, dtype, k)
        t = make(a)
        y = np.from_dlpack(t)
        _identical(y, a, f"np.from_dlpack {shape}")
        assert y.flags.writeable == np.from_dlpack(jnp.asarray(a)).flags.writeable
        _identical(np.from_dlpack(t, copy=True), a, f"np.from_dlpack copy=True {shape}")


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=lambda d: np.dtype(d).name)
def test_tj_to_torch_dlpack(dtype, make):
    # testJaxToTorch / testJaxArrayToTorch: torch.utils.dlpack.from_dlpack of the producer (and of its capsule)
    for k, shape in enumerate(SHAPES):
        a = _rand(shape, dtype, k)
        t = make(a)
        for src in (t, t.__dlpack__()):
            y = torch.utils.dlpack.from_dlpack(src)
            assert tuple(y.shape) == shape
            _identical(_torch_to_numpy(y), a, f"torch {shape}")
    assert torch.from_dlpack(make(_rand((3, 4), dtype))).is_contiguous()


def test_exported_arrays_keep_a_variables_value_at_export():
    # jax arrays are immutable, so an exported buffer is the value at export; an assignment (eager, or in a
    # tj.function that donates the Variable's buffer) never changes or frees what NumPy/torch/jax hold
    a = np.arange(4, dtype=np.float32)
    v = tj.Variable(a)
    held = [torch.from_dlpack(v), np.from_dlpack(v), jax.dlpack.from_dlpack(v)]
    v.assign_add(np.ones(4, np.float32))
    w = tj.Variable(a)
    held_w = torch.from_dlpack(w)

    @tj.function(donate_variables=True)
    def scale():
        w.assign(w * 10.0)
        return w.read_value()

    scale()
    scale()
    for h in held + [held_w]:
        np.testing.assert_array_equal(h.numpy() if isinstance(h, torch.Tensor) else np.asarray(h), a)
    np.testing.assert_array_equal(v.numpy(), a + 1)
    np.testing.assert_array_equal(w.numpy(), a * 100)


def test_dlpack_device_and_keywords_as_jax_array():
    # the keywords NumPy and torch pass (stream, max_version, dl_device, copy) are jax.Array's; an unavailable
    # device raises jax's error class
    a = _rand((2, 3), np.float32)
    ref = jnp.asarray(a)
    for t in (tj.constant(a), tj.Variable(a)):
        assert t.__dlpack_device__() == ref.__dlpack_device__()
        cpu = ref.__dlpack_device__()
        for kw in ({"stream": None}, {"max_version": (1, 0)}, {"max_version": None}, {"copy": True},
                   {"copy": False}, {"dl_device": cpu}):
            _identical(np.from_dlpack(_Capsule(t.__dlpack__(**kw), cpu)), a, str(kw))
        if jax.default_backend() == "cpu":
            with pytest.raises(RuntimeError):
                ref.__dlpack__(dl_device=(2, 0))  # (kDLCUDA: no such backend here)
            with pytest.raises(RuntimeError):
                t.__dlpack__(dl_device=(2, 0))
        with pytest.raises(TypeError):
            ref.__dlpack__(None)  # (keyword-only, as the DLPack protocol says)
        with pytest.raises(TypeError):
            t.__dlpack__(None)


class _Capsule:
    """A DLPack producer handing out one given capsule (np.from_dlpack wants an object, not a capsule)."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kw):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def test_dlpack_method_shows_jax_arrays_parameters():
    want = inspect.signature(type(jnp.zeros(1)).__dlpack__).parameters
    for cls in (tj.Tensor, tj.Variable):
        got = inspect.signature(cls.__dlpack__).parameters
        assert [(n, p.kind) for n, p in got.items()] == [(n, p.kind) for n, p in want.items()]


def test_dlpack_export_of_a_traced_tensor_raises_as_jax():
    # inside a compiled function there is no buffer to share: jax's ConcretizationTypeError, as jax.jit's
    errors = []

    def probe(x):
        for export in (np.from_dlpack, lambda v: v.__dlpack__()):
            with pytest.raises(jax.errors.ConcretizationTypeError) as e:
                export(x)
            errors.append(type(e.value))
        return x + 1

    jax.jit(probe)(jnp.ones(2))
    np.testing.assert_array_equal(tj.function(probe)(tj.constant([1.0, 2.0])).numpy(), [2.0, 3.0])
    assert len(errors) >= 4


# -- torch and NumPy sources into tapejax -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in TORCH_DTYPES if d is not BF16], ids=lambda d: np.dtype(d).name)
def test_torch_to_tj(dtype):
    # testTorchToJax / testTorchToJaxArray: the imported value, then (jax.jit(lambda x: x + 1)) tj.function of it,
    # which must equal the eager op, jax.jit's result on the NumPy value and NumPy's x + dtype(1)
    for k, shape in enumerate([(), (2, 1, 4), (0, 4), (3, 0)]):
        a = _rand(shape, dtype, k)
        x = _to_torch(a)
        want = jnp.asarray(x)
        for convert in (tj.constant, tj.convert_to_tensor, tnp.asarray, tnp.array, tj.Variable):
            t = convert(x)
            assert t.dtype == want.dtype and t.shape == want.shape, convert.__name__
            _identical(np.asarray(t), np.asarray(want), f"{convert.__name__} {shape}")
    a = _rand((3, 4), dtype, 9)
    t = tj.constant(_to_torch(a))

    def add1(v):
        return v + 1

    ref = jax.jit(add1)(jnp.asarray(a))
    for got in (add1(t), tj.function(add1)(t)):
        assert isinstance(got, tj.Tensor) and got.dtype == ref.dtype
        np.testing.assert_array_equal(got.numpy(), np.asarray(ref))
        np.testing.assert_array_equal(got.numpy(), a + np.dtype(dtype).type(1))


def test_torch_bfloat16_conversion_raises_type_error_as_jnp_asarray():
    # jnp.asarray goes through __array__, which torch refuses for bfloat16 (TypeError); tj's conversions agree (only
    # from_dlpack imports one: see below)
    x = _to_torch(_rand((2, 3), BF16))
    with pytest.raises(TypeError):
        jnp.asarray(x)
    for convert in (tj.constant, tnp.asarray, tj.Variable):
        with pytest.raises(TypeError, match="BFloat16"):
            convert(x)


def test_int64_sources_become_int32_with_x64_off():
    # testTorchToJaxInt64 (jax issue 11895) and testTensorFlowToJaxInt64 (checked with TF here): x64 off, an int64
    # source imports as int32
    for src in (torch.ones((2, 3), dtype=torch.int64), np.ones((2, 3), np.int64)):
        assert jax.dlpack.from_dlpack(src).dtype == jnp.int32
        for convert in (tj.constant, tnp.asarray, tj.Variable):
            t = convert(src)
            assert t.dtype == jnp.int32 and t.shape == (2, 3)
            np.testing.assert_array_equal(np.asarray(t), np.ones((2, 3), np.int32))


def test_non_default_layouts_convert_by_value():
    # testNumpyToJaxNondefaultLayout / testTorchToJaxNondefaultLayout: transposed sources; testTorchToJaxFailure's
    # sliced (non-compact) torch tensor, which jax's DLPack import refuses but jnp.asarray and tj convert by value
    sources = [np.arange(4).reshape(2, 2).T, torch.arange(4).reshape(2, 2).T,
               torch.arange(6.0).reshape(2, 3)[:, :2], np.arange(12.0, dtype=np.float32).reshape(3, 4)[:, ::2]]
    for src in sources:
        want = jnp.asarray(src)
        for convert in (tj.constant, tnp.asarray, tj.Variable):
            t = convert(src)
            assert t.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(t), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(sources[0])), [[0, 2], [1, 3]])
    with pytest.raises(RuntimeError, match="compact"):
        jax.dlpack.from_dlpack(sources[2])


def _unaligned_float32(values):
    """A float32 NumPy array whose data pointer is 2-aligned but not 4-aligned (below jax's 64-byte alignment)."""
    buf = np.zeros(4 * len(values) + 8, np.int8)
    p = buf.ctypes.data
    off = next(o for o in range(1, 8) if (p + o) % 4 == 2)
    x = buf[off:off + 4 * len(values)].view(np.float32)
    x[:] = values
    return x


FROM_DLPACK_SOURCES = {
    "numpy": lambda: _rand((3, 4), np.float32),
    "numpy int8 empty": lambda: _rand((0, 4), np.int8),
    "numpy transposed": lambda: np.arange(4).reshape(2, 2).T,
    "numpy unaligned": lambda: _unaligned_float32([1.0, 2.0, 3.0, 4.0]),
    "torch": lambda: _to_torch(_rand((2, 3), np.complex64)),
    "torch bfloat16": lambda: _to_torch(_rand((2, 3), BF16)),
    "torch int64": lambda: torch.ones((2, 3), dtype=torch.int64),
    "Tensor": lambda: tj.constant(_rand((2, 3), np.uint8)),
    "Variable": lambda: tj.Variable(_rand((2, 3), np.float16)),
}


@pytest.mark.parametrize("copy", [None, True])
def test_tj_numpy_from_dlpack(copy):
    # testNumpyToJax (copy None/True), testTorchToJax(Array), testTorchToJaxInt64, testNumpyToJaxNondefaultLayout,
    # testJaxArrayRoundTrip: tj.numpy.from_dlpack gives a Tensor with jnp.from_dlpack's dtype and value
    for name, make in FROM_DLPACK_SOURCES.items():
        src = make()
        want = jnp.from_dlpack(src, copy=copy)
        got = tnp.from_dlpack(src, device=jax.devices()[0], copy=copy)
        assert isinstance(got, tj.Tensor), name
        _identical(got.value, np.asarray(want), name)
        np.testing.assert_array_equal(tj.function(lambda v: v + 1)(got).numpy(), np.asarray(want + 1))


def test_tj_numpy_from_dlpack_errors_as_jax():
    # testNumpyToJax's copy=False on an unaligned buffer (ValueError "... requires a copy"); testTorchToJaxFailure's
    # non-compact strided torch tensor (RuntimeError, jax's JaxRuntimeError)
    x = _unaligned_float32([1.0, 2.0, 3.0, 4.0])
    sliced = torch.arange(6).reshape(2, 3)[:, :2]
    with pytest.raises(ValueError, match="requires a copy"):
        jnp.from_dlpack(x, copy=False)
    with pytest.raises(RuntimeError, match="compact"):
        jnp.from_dlpack(sliced)
    with pytest.raises(ValueError, match="requires a copy"):
        tnp.from_dlpack(x, copy=False)
    with pytest.raises(RuntimeError):
        tnp.from_dlpack(sliced)


# -- CUDA array interface, bfloat16 -----------------------------------------------------------------------------

@pytest.mark.parametrize("make", MAKERS)
def test_cuda_array_interface_on_a_non_gpu_buffer_is_absent(make):
    # CudaArrayInterfaceTest.testCudaArrayInterfaceOnNonCudaFails: no attribute (hasattr False), AttributeError
    if jax.default_backend() == "gpu":
        pytest.skip("the buffer is a GPU buffer here")
    x = make(np.arange(5, dtype=np.int32))
    assert not hasattr(jnp.arange(5), "__cuda_array_interface__")
    assert not hasattr(x, "__cuda_array_interface__")
    with pytest.raises(AttributeError):
        _ = x.__cuda_array_interface__


@pytest.mark.parametrize("make", MAKERS)
def test_cuda_array_interface_on_a_non_gpu_buffer_says_why(make):
    if jax.default_backend() == "gpu":
        pytest.skip("the buffer is a GPU buffer here")
    with pytest.raises(AttributeError, match=r"__cuda_array_interface__ is only defined for .*GPU buffers"):
        _ = jnp.arange(5).__cuda_array_interface__
    with pytest.raises(AttributeError, match=r"__cuda_array_interface__ is only defined for .*GPU buffers"):
        _ = make(np.arange(5, dtype=np.int32)).__cuda_array_interface__


def test_bfloat16_is_the_type_jax_and_tf_share():
    # Bfloat16Test.testJaxAndTfHaveTheSameBfloat16Type: TF 2.21's tf.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    # (checked here), whose NumPy type number jnp.bfloat16 shares; tj.numpy's equals jax's, and a bfloat16 Tensor keeps it
    assert tnp.bfloat16 == jnp.bfloat16 and hash(tnp.bfloat16) == hash(jnp.bfloat16)
    assert np.dtype(tnp.bfloat16) == BF16 and np.dtype(tnp.bfloat16).num == BF16.num
    t = tj.constant(_rand((2, 2), BF16))
    assert t.dtype == BF16 and t.numpy().dtype == BF16
    assert torch.from_dlpack(t).dtype == torch.bfloat16


# -- The Array API namespace ------------------------------------------------------------------------------------

MAIN_NAMESPACE = {
    "abs", "acos", "acosh", "add", "all", "any", "arange", "argmax", "argmin", "argsort", "asarray", "asin", "asinh",
    "astype", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "bool", "broadcast_arrays", "broadcast_to", "can_cast", "ceil", "clip",
    "complex128", "complex64", "concat", "conj", "copysign", "cos", "cosh", "cumulative_sum", "divide", "e", "empty",
    "empty_like", "equal", "exp", "expand_dims", "expm1", "eye", "fft", "finfo", "flip", "float32", "float64",
    "floor", "floor_divide", "from_dlpack", "full", "full_like", "greater", "greater_equal", "hypot", "iinfo", "imag",
    "inf", "int16", "int32", "int64", "int8", "isdtype", "isfinite", "isinf", "isnan", "less", "less_equal", "linalg",
    "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or",
    "logical_xor", "matmul", "matrix_transpose", "max", "maximum", "mean", "meshgrid", "min", "minimum", "moveaxis",
    "multiply", "nan", "negative", "newaxis", "nonzero", "not_equal", "ones", "ones_like", "permute_dims", "pi",
    "positive", "pow", "prod", "real", "remainder", "repeat", "reshape", "result_type", "roll", "round",
    "searchsorted", "sign", "signbit", "sin", "sinh", "sort", "sqrt", "square", "squeeze", "stack", "std",
    "subtract", "sum", "take", "tan", "tanh", "tensordot", "tile", "tril", "triu", "trunc", "uint16", "uint32",
    "uint64", "uint8", "unique_all", "unique_counts", "unique_inverse", "unique_values", "unstack", "var", "vecdot",
    "where", "zeros", "zeros_like"}
LINALG_NAMESPACE = {
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
    "trace", "vecdot", "vector_norm"}
FFT_NAMESPACE = {
    "fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft", "irfft", "irfftn", "rfft",
    "rfftfreq", "rfftn"}


def _names(module):
    return {n for n in dir(module) if not n.startswith("_")}


def test_array_api_namespaces_hold_the_names_jax_numpy_does():
    # test_main_namespace (and from_dlpack, below), test_linalg_namespace, test_fft_namespace
    assert MAIN_NAMESPACE <= _names(jnp) and LINALG_NAMESPACE <= _names(jnp.linalg)
    assert not (MAIN_NAMESPACE - {"from_dlpack"}) - _names(tnp)
    assert not LINALG_NAMESPACE - _names(tnp.linalg)
    assert not FFT_NAMESPACE - _names(tnp.fft)
    # the constants and dtype functions are jax.numpy's own; the dtypes equal jax.numpy's (called, they give Tensors)
    for name in ("e", "inf", "pi", "newaxis", "finfo", "iinfo", "isdtype", "can_cast", "result_type"):
        assert getattr(tnp, name) is getattr(jnp, name), name
    for name in ("bool", "int8", "uint32", "float32", "complex64", "float64"):
        assert getattr(tnp, name) == getattr(jnp, name) and np.dtype(getattr(tnp, name)) == getattr(jnp, name), name
    assert np.isnan(tnp.nan)


def test_array_api_main_namespace_has_from_dlpack():
    assert "from_dlpack" in _names(tnp)


def test_array_api_functions_no_other_test_calls_agree_with_jax_numpy():
    # names of MAIN_NAMESPACE that no other test here calls: values and dtypes as jax.numpy's, eager and inside
    # tj.function; gradients (real inputs) against jax.vjp on the tape and jax.jvp on an accumulator
    x = np.array([0.2, -0.5, 0.9, 0.0], np.float32)
    y = np.array([1.5, 2.0, 3.0, 1.25], np.float32)
    i = np.array([1, -2, 3, 0], np.int32)
    cases = [("asin", (x,)), ("acosh", (y,)), ("positive", (x,)), ("positive", (i,)),
             ("bitwise_left_shift", (i, np.int32(2))), ("bitwise_left_shift", (np.int8(3), 2))]
    for name, args in cases:
        want = getattr(jnp, name)(*args)
        for got in (getattr(tnp, name)(*args), tj.function(getattr(tnp, name))(*args)):
            assert isinstance(got, tj.Tensor) and got.dtype == want.dtype and got.shape == want.shape, name
            np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-6, err_msg=name)
    w = np.array([0.3, -1.0, 2.0, 0.5], np.float32)
    for name, a in (("asin", x), ("acosh", y), ("positive", x)):
        f = getattr(tnp, name)
        _, (g,) = tape_gradients(lambda v: f(v), [a], output_gradients=[w])
        primal, vjp = jax.vjp(getattr(jnp, name), a)
        np.testing.assert_allclose(g.numpy(), np.asarray(vjp(w)[0]), rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(accumulator_jvp(f, a, w).numpy(),
                                   np.asarray(jax.jvp(getattr(jnp, name), (a,), (w,))[1]), rtol=1e-5, err_msg=name)
    for a, b, want in ((tnp.int8, tnp.float32, True), (np.float32, np.int32, False)):
        assert tnp.can_cast(a, b) is jnp.can_cast(a, b) is want


def test_array_namespace_method_values():
    # test_array_namespace_method, the part that holds (a Tensor, not a jax.Array, by API.md)
    x = tnp.arange(20)
    assert isinstance(x, tj.Tensor)
    assert x.dtype == jnp.arange(20).dtype
    np.testing.assert_array_equal(x.numpy(), np.asarray(jnp.arange(20)))
    assert jnp.arange(20).__array_namespace__() is jnp


@pytest.mark.parametrize("make", [pytest.param(lambda: tnp.arange(20), id="Tensor"),
                                  pytest.param(lambda: tj.Variable(np.arange(20)), id="Variable")])
def test_array_namespace_method(make):
    assert make().__array_namespace__() is tnp


def test_array_namespace_info():
    # ArrayAPIInspectionUtilsTest: capabilities, default_device, devices, default_dtypes and dtypes(kind), with x64
    # off, as jax.numpy's (each also checked against the values the JAX test spells out)
    ref = jnp.__array_namespace_info__()
    info = tnp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == ref.capabilities()
    assert not caps["boolean indexing"] and not caps["data-dependent shapes"] and caps["max dimensions"] == 64
    assert info.default_device() is None
    devices = set(info.devices())
    assert None in devices and devices >= set(jax.devices())
    assert info.default_dtypes() == {"real floating": np.dtype("float32"), "complex floating": np.dtype("complex64"),
                                     "integral": np.dtype("int32"), "indexing": np.dtype("int32")}
    groups = {"bool": ["bool"], "signed integer": ["int8", "int16", "int32"],
              "unsigned integer": ["uint8", "uint16", "uint32"], "real floating": ["float32"],
              "complex floating": ["complex64"]}
    groups["integral"] = groups["signed integer"] + groups["unsigned integer"]
    groups["numeric"] = groups["integral"] + groups["real floating"] + groups["complex floating"]
    for kind in ["bool", "signed integer", "real floating", "complex floating", "integral", "numeric", None,
                 ("real floating", "complex floating"), ("integral", "signed integer"), ("integral", "bool")]:
        kinds = ["numeric", "bool"] if kind is None else list(kind) if isinstance(kind, tuple) else [kind]
        want = {n: np.dtype(n) for k in kinds for n in groups[k]}
        assert ref.dtypes(kind=kind) == want, kind
        assert info.dtypes(kind=kind) == want, kind
