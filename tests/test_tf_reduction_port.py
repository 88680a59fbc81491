"""TensorFlow's reduction tests ported to tapejax, compared with TF 2.21.

Sources: tensorflow/python/kernel_tests/math_ops/reduction_ops_test.py (Sum/Mean/Prod/Min/Max/EuclideanNorm/
All/Any ReductionTest, ReductionInvalidKeepdims) and tensorflow/python/ops/math_ops_test.py (ReduceTest,
LogSumExpTest). ``tf.reduce_X(x, axis, keepdims)`` is ``tj.numpy.X(x, axis=..., keepdims=...)``,
``tf.math.reduce_euclidean_norm`` is ``tj.numpy.linalg.norm``, ``reduce_std``/``reduce_variance`` are
``tj.numpy.std``/``var`` and ``reduce_logsumexp`` is ``tj.nn.logsumexp``. TF's gradient tests compare the
theoretical Jacobian with finite differences; here tapejax's gradient (with the output gradient ``_og``) and
forward-mode tangent (along ``_tan``) are compared with the numbers TF 2.21 printed for the same inputs (eager,
float32 unless said; a (2, 3, 2) input where TF uses (2, 3, 4, 2), which the Min/Max tests keep). TensorFlow is
not imported. Not repeated here: tests/test_tf_math_ops_port.py (max/min at NaN, invalid axis as ValueError,
repeated axes), tests/test_tf_second_order_values_port.py (prod at zero, max/min of an empty axis).
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import tapejax as tj
from conftest import accumulator_jvp, tape_value_and_gradient

tnp = tj.numpy
f32 = np.float32
NAN, INF = np.nan, np.inf


def _og(shape):
    return ((1 + np.arange(int(np.prod(shape)))) / 4).reshape(shape).astype(f32)


def _tan(x):
    return np.cos(np.arange(x.size)).reshape(x.shape).astype(x.dtype)


# (the shared helpers under the names TF's test uses)
_grad = tape_value_and_gradient
_jvp = accumulator_jvp


def _close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    np.testing.assert_allclose(got.astype(np.complex128 if np.iscomplexobj(got) else np.float64).ravel(),
                               np.asarray(want).ravel(), rtol=rtol, atol=atol, equal_nan=True)


_OPS = {"sum": tnp.sum, "mean": tnp.mean, "prod": tnp.prod, "max": tnp.max, "min": tnp.min,
        "norm": tnp.linalg.norm, "std": tnp.std, "var": tnp.var, "lse": tj.nn.logsumexp}
_INC = np.arange(12.0).reshape(2, 3, 2)
# the inputs of each TF test (_makeIncremental, shifted as the TF test shifts it)
_INPUT = {"sum": _INC, "mean": _INC, "prod": _INC / 4, "max": _INC - 13, "min": _INC + 1, "norm": _INC + 1,
          "std": _INC * _INC / 10, "var": _INC * _INC / 10, "lse": _INC / 8}

# TF: shape, y = tf.reduce_X(x, axis, keepdims), tape.gradient(y, x, output_gradients=_og(y.shape)) and the
# ForwardAccumulator's jvp along _tan(x). Axes as BaseReductionTest._compareGradientAxes (rank 3), plus (-1, 0).
TF_GRAD = {
    ("sum", None, False): ([], [66.0], [0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25], [-0.41302204]),
    ("sum", (), False): ([2, 3, 2], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0], [1.0, 0.5403023, -0.41614684, -0.9899925, -0.6536436, 0.2836622, 0.96017027, 0.75390226, -0.14550003, -0.91113025, -0.8390715, 0.004425698]),
    ("sum", 0, False): ([3, 2], [6.0, 8.0, 10.0, 12.0, 14.0, 16.0], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5], [1.9601703, 1.2942045, -0.5616469, -1.9011228, -1.4927151, 0.2880879]),
    ("sum", (1,), False): ([2, 2], [6.0, 9.0, 24.0, 27.0], [0.25, 0.5, 0.25, 0.5, 0.25, 0.5, 0.75, 1.0, 0.75, 1.0, 0.75, 1.0], [-0.06979048, -0.16602802, -0.024401307, -0.15280229]),
    ("sum", (2,), False): ([2, 3], [1.0, 5.0, 9.0, 13.0, 17.0, 21.0], [0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1.0, 1.0, 1.25, 1.25, 1.5, 1.5], [1.5403023, -1.4061394, -0.3699814, 1.7140725, -1.0566303, -0.8346458]),
    ("sum", (1, 2), False): ([2], [15.0, 51.0], [0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [-0.2358185, -0.17720366]),
    ("sum", (0, 1, 2), False): ([], [66.0], [0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25], [-0.41302204]),
    ("sum", (-1, 0), False): ([3], [14.0, 22.0, 30.0], [0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75], [3.2543747, -2.4627695, -1.2046273]),
    ("sum", (-1, 0), True): ([1, 3, 1], [14.0, 22.0, 30.0], [0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75], [3.2543747, -2.4627695, -1.2046273]),
    ("mean", None, False): ([], [5.5], [0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334], [-0.03441851]),
    ("mean", (), False): ([2, 3, 2], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0], [1.0, 0.5403023, -0.41614684, -0.9899925, -0.6536436, 0.2836622, 0.96017027, 0.75390226, -0.14550003, -0.91113025, -0.8390715, 0.004425698]),
    ("mean", 0, False): ([3, 2], [3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75], [0.98008513, 0.64710224, -0.28082344, -0.9505614, -0.74635756, 0.14404395]),
    ("mean", (1,), False): ([2, 2], [2.0, 3.0, 8.0, 9.0], [0.083333336, 0.16666667, 0.083333336, 0.16666667, 0.083333336, 0.16666667, 0.25, 0.33333334, 0.25, 0.33333334, 0.25, 0.33333334], [-0.023263484, -0.055342674, -0.008133739, -0.050934117]),
    ("mean", (2,), False): ([2, 3], [0.5, 2.5, 4.5, 6.5, 8.5, 10.5], [0.125, 0.125, 0.25, 0.25, 0.375, 0.375, 0.5, 0.5, 0.625, 0.625, 0.75, 0.75], [0.77015114, -0.7030697, -0.1849907, 0.85703623, -0.5283151, -0.4173229]),
    ("mean", (1, 2), False): ([2], [2.5, 8.5], [0.041666668, 0.041666668, 0.041666668, 0.041666668, 0.041666668, 0.041666668, 0.083333336, 0.083333336, 0.083333336, 0.083333336, 0.083333336, 0.083333336], [-0.03930308, -0.029533943]),
    ("mean", (0, 1, 2), False): ([], [5.5], [0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334, 0.020833334], [-0.03441851]),
    ("mean", (-1, 0), False): ([3], [3.5, 5.5, 7.5], [0.0625, 0.0625, 0.125, 0.125, 0.1875, 0.1875, 0.0625, 0.0625, 0.125, 0.125, 0.1875, 0.1875], [0.8135937, -0.6156924, -0.30115682]),
    ("mean", (-1, 0), True): ([1, 3, 1], [3.5, 5.5, 7.5], [0.0625, 0.0625, 0.125, 0.125, 0.1875, 0.1875, 0.0625, 0.0625, 0.125, 0.125, 0.1875, 0.1875], [0.8135937, -0.6156924, -0.30115682]),
    ("prod", None, False): ([], [0.0], [2.3792267, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [9.516907]),
    ("prod", (), False): ([2, 3, 2], [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0], [1.0, 0.5403023, -0.41614684, -0.9899925, -0.6536436, 0.2836622, 0.96017027, 0.75390226, -0.14550003, -0.91113025, -0.8390715, 0.004425698]),
    ("prod", 0, False): ([3, 2], [0.0, 0.4375, 1.0, 1.6875, 2.5, 3.4375], [0.375, 0.875, 1.5, 2.25, 3.125, 4.125, 0.0, 0.125, 0.375, 0.75, 1.25, 1.875], [1.5, 1.1340046, -0.9050437, -2.9108307, -2.4731805, 0.78560317]),
    ("prod", (1,), False): ([2, 2], [0.0, 0.234375, 7.5, 10.828125], [0.125, 0.46875, 0.0, 0.15625, 0.0, 0.09375, 3.75, 6.1875, 2.8125, 4.8125, 2.25, 3.9375], [0.5, 0.25034738, 1.7380116, 0.29738206]),
    ("prod", (2,), False): ([2, 3], [0.0, 0.375, 1.25, 2.625, 4.5, 6.875], [0.0625, 0.0, 0.375, 0.25, 0.9375, 0.75, 1.75, 1.5, 2.8125, 2.5, 4.125, 3.75], [0.25, -0.8071064, -0.5333923, 2.8111515, -2.1496356, -2.2963824]),
    ("prod", (1, 2), False): ([2], [0.0, 81.21094], [0.029296875, 0.0, 0.0, 0.0, 0.0, 0.0, 27.070312, 23.203125, 20.302734, 18.046875, 16.242188, 14.765625], [0.1171875, 21.049772]),
    ("prod", (0, 1, 2), False): ([], [0.0], [2.3792267, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [9.516907]),
    ("prod", (-1, 0), False): ([3], [0.0, 1.6875, 8.59375], [0.1640625, 0.0, 1.6875, 1.125, 6.4453125, 5.15625, 0.0, 0.0, 0.421875, 0.375, 2.578125, 2.34375], [0.65625, -4.438092, -6.5375504]),
    ("prod", (-1, 0), True): ([1, 3, 1], [0.0, 1.6875, 8.59375], [0.1640625, 0.0, 1.6875, 1.125, 6.4453125, 5.15625, 0.0, 0.0, 0.421875, 0.375, 2.578125, 2.34375], [0.65625, -4.438092, -6.5375504]),
    ("max", None, False): ([], [-2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25], [0.004425698]),
    ("max", (), False): ([2, 3, 2], [-13.0, -12.0, -11.0, -10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0], [1.0, 0.5403023, -0.41614684, -0.9899925, -0.6536436, 0.2836622, 0.96017027, 0.75390226, -0.14550003, -0.91113025, -0.8390715, 0.004425698]),
    ("max", 0, False): ([3, 2], [-7.0, -6.0, -5.0, -4.0, -3.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5], [0.96017027, 0.75390226, -0.14550003, -0.91113025, -0.8390715, 0.004425698]),
    ("max", (1,), False): ([2, 2], [-9.0, -8.0, -3.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0], [-0.6536436, 0.2836622, -0.8390715, 0.004425698]),
    ("max", (2,), False): ([2, 3], [-12.0, -10.0, -8.0, -6.0, -4.0, -2.0], [0.0, 0.25, 0.0, 0.5, 0.0, 0.75, 0.0, 1.0, 0.0, 1.25, 0.0, 1.5], [0.5403023, -0.9899925, 0.2836622, 0.75390226, -0.91113025, 0.004425698]),
    ("max", (1, 2), False): ([2], [-8.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5], [0.2836622, 0.004425698]),
    ("max", (0, 1, 2), False): ([], [-2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25], [0.004425698]),
    ("max", (-1, 0), False): ([3], [-6.0, -4.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.5, 0.0, 0.75], [0.75390226, -0.91113025, 0.004425698]),
    ("max", (-1, 0), True): ([1, 3, 1], [-6.0, -4.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.5, 0.0, 0.75], [0.75390226, -0.91113025, 0.004425698]),
    ("min", None, False): ([], [1.0], [0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0]),
    ("min", (), False): ([2, 3, 2], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0], [1.0, 0.5403023, -0.41614684, -0.9899925, -0.6536436, 0.2836622, 0.96017027, 0.75390226, -0.14550003, -0.91113025, -0.8390715, 0.004425698]),
    ("min", 0, False): ([3, 2], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.5403023, -0.41614684, -0.9899925, -0.6536436, 0.2836622]),
    ("min", (1,), False): ([2, 2], [1.0, 2.0, 7.0, 8.0], [0.25, 0.5, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.5403023, 0.96017027, 0.75390226]),
    ("min", (2,), False): ([2, 3], [1.0, 3.0, 5.0, 7.0, 9.0, 11.0], [0.25, 0.0, 0.5, 0.0, 0.75, 0.0, 1.0, 0.0, 1.25, 0.0, 1.5, 0.0], [1.0, -0.41614684, -0.6536436, 0.96017027, -0.14550003, -0.8390715]),
    ("min", (1, 2), False): ([2], [1.0, 7.0], [0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.96017027]),
    ("min", (0, 1, 2), False): ([], [1.0], [0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0]),
    ("min", (-1, 0), False): ([3], [1.0, 3.0, 5.0], [0.25, 0.0, 0.5, 0.0, 0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, -0.41614684, -0.6536436]),
    ("min", (-1, 0), True): ([1, 3, 1], [1.0, 3.0, 5.0], [0.25, 0.0, 0.5, 0.0, 0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, -0.41614684, -0.6536436]),
    ("norm", None, False): ([], [25.495098], [0.009805807, 0.019611614, 0.02941742, 0.039223228, 0.049029034, 0.05883484, 0.06864065, 0.078446455, 0.08825226, 0.09805807, 0.10786387, 0.11766968], [-0.45260158]),
    ("norm", 0, False): ([3, 2], [7.071068, 8.246211, 9.486833, 10.770329, 12.083046, 13.416408], [0.03535534, 0.12126782, 0.23717085, 0.37139067, 0.51725364, 0.67082036, 0.24748737, 0.48507127, 0.7115125, 0.9284767, 1.137958, 1.3416407], [1.0919414, 0.8624352, -0.26963067, -1.2136372, -1.0343423, 0.13081606]),
    ("norm", (1,), False): ([2, 2], [5.91608, 7.483315, 15.842979, 17.549929], [0.04225771, 0.13363062, 0.12677313, 0.26726124, 0.21128856, 0.40089184, 0.33137706, 0.45584232, 0.42605624, 0.5698029, 0.5207354, 0.68376344], [-0.5944238, -0.15733564, -0.24099596, -0.17247799]),
    ("norm", (2,), False): ([2, 3], [2.236068, 5.0, 7.81025, 10.630146, 13.453624, 16.27882], [0.1118034, 0.2236068, 0.3, 0.4, 0.48013827, 0.5761659, 0.6585046, 0.7525767, 0.8362059, 0.9291177, 1.013587, 1.1057312], [0.9304746, -1.041682, -0.20053712, 1.1996459, -0.7745722, -0.56371886]),
    ("norm", (1, 2), False): ([2], [9.539392, 23.64318], [0.02620712, 0.05241424, 0.07862136, 0.10482848, 0.1310356, 0.15724272, 0.14803423, 0.16918197, 0.19032972, 0.21147747, 0.23262522, 0.25377297], [-0.49207026, -0.28951567]),
    ("norm", (-1, 0), False): ([3], [10.862781, 14.3527, 18.05547], [0.023014365, 0.04602873, 0.10450995, 0.1393466, 0.2076933, 0.24923196, 0.16110055, 0.18411492, 0.31352985, 0.3483665, 0.45692524, 0.49846393], [1.3654897, -1.0889388, -0.5949955]),
    ("norm", (-1, 0), True): ([1, 3, 1], [10.862781, 14.3527, 18.05547], [0.023014365, 0.04602873, 0.10450995, 0.1393466, 0.2076933, 0.24923196, 0.16110055, 0.18411492, 0.31352985, 0.3483665, 0.45692524, 0.49846393], [1.3654897, -1.0889388, -0.5949955]),
    ("std", None, False): ([], [3.9409885], [-0.022290656, -0.021762025, -0.020176128, -0.017532965, -0.013832543, -0.009074853, -0.0032598996, 0.0036123192, 0.0115418015, 0.020528551, 0.03057256, 0.041673835], [-0.192344]),
    ("std", (1,), False): ([2, 2], [0.6798693, 0.9977753, 2.6195843, 2.9454298], [-0.081715055, -0.17817415, -0.03268602, -0.044543542, 0.11440107, 0.2227177, -0.29266733, -0.39232156, -0.025449328, -0.030178571, 0.31811664, 0.4225001], [-0.5715616, 0.022012927, -0.72564024, -0.26640567]),
    ("std", (-1, 0), False): ([3], [2.15, 3.3589432, 4.571925], [-0.062499996, -0.059593022, -0.13211001, -0.113502964, -0.2030053, -0.16609524, 0.04215116, 0.079941854, 0.09117451, 0.15443845, 0.14148852, 0.227612], [0.024169585, 0.026729586, -0.04284465]),
    ("std", (-1, 0), True): ([1, 3, 1], [2.15, 3.3589432, 4.571925], [-0.062499996, -0.059593022, -0.13211001, -0.113502964, -0.2030053, -0.16609524, 0.04215116, 0.079941854, 0.09117451, 0.15443845, 0.14148852, 0.227612], [0.024169585, 0.026729586, -0.04284465]),
    ("var", None, False): ([], [15.53139], [-0.17569445, -0.17152779, -0.15902779, -0.13819444, -0.109027795, -0.07152779, -0.025694456, 0.02847222, 0.09097222, 0.16180557, 0.24097222, 0.32847226], [-1.5160509]),
    ("var", (1,), False): ([2, 2], [0.46222225, 0.9955556, 6.862222, 8.675556], [-0.11111111, -0.35555556, -0.044444446, -0.088888906, 0.15555556, 0.44444445, -1.5333334, -2.3111115, -0.13333328, -0.17777778, 1.6666666, 2.488889], [-0.77717435, 0.043927908, -3.8017516, -1.5693583]),
    ("var", (-1, 0), False): ([3], [4.6225004, 11.2825, 20.9025], [-0.26875, -0.25625002, -0.88750005, -0.76250005, -1.85625, -1.5187501, 0.18124999, 0.34375, 0.61249995, 1.0375, 1.2937499, 2.0812502], [0.10392922, 0.17956632, -0.39176506]),
    ("var", (-1, 0), True): ([1, 3, 1], [4.6225004, 11.2825, 20.9025], [-0.26875, -0.25625002, -0.88750005, -0.76250005, -1.85625, -1.5187501, 0.18124999, 0.34375, 0.61249995, 1.0375, 1.2937499, 2.0812502], [0.10392922, 0.17956632, -0.39176506]),
    ("lse", None, False): ([], [3.2638083], [0.009560622, 0.010833604, 0.012276081, 0.013910623, 0.0157628, 0.017861594, 0.020239837, 0.02293474, 0.025988465, 0.029448789, 0.03336985, 0.037812993], [-0.121694885]),
    ("lse", (1,), False): ([2, 2], [1.369338, 1.494338, 2.119338, 2.244338], [0.06356881, 0.12713762, 0.081623964, 0.16324793, 0.10480724, 0.20961449, 0.19070642, 0.25427523, 0.24487188, 0.32649586, 0.3144217, 0.41922897], [-0.15562133, -0.066923544, -0.15512072, -0.10392619]),
    ("lse", (-1, 0), False): ([3], [1.89447, 2.14447, 2.39447], [0.037599504, 0.04260582, 0.07519901, 0.08521164, 0.11279852, 0.12781747, 0.07959816, 0.09019653, 0.15919632, 0.18039306, 0.23879448, 0.2705896], [0.8201867, -0.6063548, -0.31552148]),
    ("lse", (-1, 0), True): ([1, 3, 1], [1.89447, 2.14447, 2.39447], [0.037599504, 0.04260582, 0.07519901, 0.08521164, 0.11279852, 0.12781747, 0.07959816, 0.09019653, 0.15919632, 0.18039306, 0.23879448, 0.2705896], [0.8201867, -0.6063548, -0.31552148]),
}

# TF: complex64 x = (_INC - 2j * _INC) / 10 (/ 4 more for prod); y, gradient with _og(y.shape) * (1 + 1j)
TF_COMPLEX = {
    ("sum", None): ([(6.599999904632568-13.199999809265137j)], [(0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j), (0.25+0.25j)]),
    ("sum", (1,)): ([(0.6000000238418579-1.2000000476837158j), (0.8999999761581421-1.7999999523162842j), (2.4000000953674316-4.800000190734863j), (2.700000047683716-5.400000095367432j)], [(0.25+0.25j), (0.5+0.5j), (0.25+0.25j), (0.5+0.5j), (0.25+0.25j), (0.5+0.5j), (0.75+0.75j), (1+1j), (0.75+0.75j), (1+1j), (0.75+0.75j), (1+1j)]),
    ("mean", None): ([(0.550000011920929-1.100000023841858j)], [(0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j), (0.02083333395421505+0.02083333395421505j)]),
    ("mean", (1,)): ([(0.20000000298023224-0.4000000059604645j), (0.29999998211860657-0.5999999642372131j), (0.800000011920929-1.600000023841858j), (0.9000000357627869-1.8000000715255737j)], [(0.0833333358168602+0.0833333358168602j), (0.1666666716337204+0.1666666716337204j), (0.0833333358168602+0.0833333358168602j), (0.1666666716337204+0.1666666716337204j), (0.0833333358168602+0.0833333358168602j), (0.1666666716337204+0.1666666716337204j), (0.25+0.25j), (0.3333333432674408+0.3333333432674408j), (0.25+0.25j), (0.3333333432674408+0.3333333432674408j), (0.25+0.25j), (0.3333333432674408+0.3333333432674408j)]),
    ("prod", None): ([0j], [(2.1677141148757073e-07+9.105301757017514e-08j), 0j, (-0+0j), 0j, 0j, 0j, 0j, (-0+0j), (-0+0j), 0j, 0j, 0j]),
    ("prod", (1,)): ([0j, (-0.002578125102445483+0.0004687500186264515j), (-0.08250000327825546+0.015000000596046448j), (-0.1191093772649765+0.021656248718500137j)], [(-0.008750000968575478+0.0012500002048909664j), (-0.03281250223517418+0.004687500186264515j), 0j, (-0.01093750074505806+0.0015624999068677425j), 0j, (-0.006562500260770321+0.000937500037252903j), (-0.26250001788139343+0.03750000149011612j), (-0.43312501907348633+0.06187500059604645j), (-0.19687500596046448+0.02812500298023224j), (-0.33687499165534973+0.048124998807907104j), (-0.1574999988079071+0.02250000089406967j), (-0.27562499046325684+0.039374999701976776j)]),
}

# TF: ProdReductionTest.testGradientWithZeros, x = _INC / 4 + 0.25 with x[:, pos, :] = 0 (or all 0): gradient with
# _og and jvp along _tan(x)
TF_PROD_ZEROS = {
    (0, None): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0]),
    (0, (1,)): ([0.234375, 0.75, 0.0, 0.0, 0.0, 0.0, 4.640625, 7.5, 0.0, 0.0, 0.0, 0.0], [0.9375, 0.8104534, 5.9410534, 5.654267]),
    (0, (1, 2)): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0]),
    (-1, None): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0]),
    (-1, (1,)): ([0.0, 0.0, 0.0, 0.0, 0.046875, 0.25, 0.0, 0.0, 0.0, 0.0, 2.953125, 5.0], [-0.12255818, 0.1418311, -3.303844, 0.022128489]),
    (-1, (1, 2)): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0]),
    (1, None): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0]),
    (1, (1,)): ([0.0, 0.0, 0.078125, 0.375, 0.0, 0.0, 0.0, 0.0, 3.609375, 6.0, 0.0, 0.0], [-0.13004589, -0.74249434, -0.7002189, -5.4667816]),
    (1, (1, 2)): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0]),
    ("all", None): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0]),
    ("all", (1,)): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]),
    ("all", (1, 2)): ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0]),
}

# TF: Min/MaxReductionTest.testGradient..testGradient4, x = arange(1, 49).reshape(2, 3, 4, 2) (- 50 for max):
# tape.gradient(tf.reduce_X(x, axis), x, output_gradients=_og(y.shape))
TF_MINMAX_4D = {
    ("max", (1, 2)): [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0],
    ("max", (1,)): [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0],
    ("max", (2,)): [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.25, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.75, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.25, 2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.75, 3.0],
    ("max", None): [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25],
    ("min", (1, 2)): [0.25, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ("min", (1,)): [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ("min", (2,)): [0.25, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.25, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.75, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.25, 2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.75, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ("min", None): [0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
}


def _call(name, x, axis, keepdims=False):
    if name == "norm" and axis is not None:
        axis = axis if isinstance(axis, tuple) else (axis,)
    return _OPS[name](x, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("key", list(TF_GRAD), ids=str)
def test_reduction_gradient_and_jvp(key):
    """Sum/Mean/Prod/EuclideanNorm ReductionTest.testGradient, Min/MaxReductionTest gradients,
    math_ops_test ReduceTest (var/std) and LogSumExpTest axes: value, gradient and tangent as TF's."""
    name, axis, keepdims = key
    shape, want_y, want_g, want_t = TF_GRAD[key]
    x = _INPUT[name].astype(f32)
    y, g = _grad(lambda v: _call(name, v, axis, keepdims), x, _og(shape))
    assert y.shape == tuple(shape) and y.dtype == np.float32 and g.dtype == np.float32
    _close(y, want_y)
    _close(g, want_g)
    _close(_jvp(lambda v: _call(name, v, axis, keepdims), x, _tan(x)), want_t, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("key", list(TF_COMPLEX), ids=str)
def test_reduction_complex_gradient(key):
    """Sum/MeanReductionTest.testGradient (complex64) and ProdReductionTest.testComplex64: TF's complex gradient
    convention, complex64 kept."""
    name, axis = key
    want_y, want_g = TF_COMPLEX[key]
    x = ((_INC - 2j * _INC) / 10 / (4 if name == "prod" else 1)).astype(np.complex64)
    out_shape = np.shape(np.sum(x, axis=axis))
    y, g = _grad(lambda v: _OPS[name](v, axis=axis), x, (_og(out_shape) * (1 + 1j)).astype(np.complex64))
    assert y.dtype == np.complex64 and g.dtype == np.complex64
    _close(y, want_y, rtol=1e-5, atol=1e-5)
    _close(g, want_g, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("key", list(TF_PROD_ZEROS), ids=str)
def test_prod_gradient_with_zeros(key):
    """ProdReductionTest.testGradientWithZeros: a zero at the start, the end, the middle, or everywhere."""
    pos, axis = key
    want_g, want_t = TF_PROD_ZEROS[key]
    x = (_INC / 4 + 0.25).astype(f32)
    if pos == "all":
        x[:] = 0
    else:
        x[:, pos, :] = 0
    y, g = _grad(lambda v: tnp.prod(v, axis=axis), x, _og(np.shape(np.prod(x, axis=axis))))
    _close(g, want_g)
    _close(_jvp(lambda v: tnp.prod(v, axis=axis), x, _tan(x)), want_t)


@pytest.mark.parametrize("key", list(TF_MINMAX_4D), ids=str)
def test_min_max_gradient_rank4(key):
    """Min/MaxReductionTest.testGradient, testGradient2, testGradient3, testGradient4."""
    name, axis = key
    x = np.arange(1.0, 49.0).reshape(2, 3, 4, 2).astype(f32) - (50 if name == "max" else 0)
    y, g = _grad(lambda v: _OPS[name](v, axis=axis), x, _og(np.shape(np.sum(x, axis=axis))))
    _close(g, TF_MINMAX_4D[key])


# -- infinities and ties -----------------------------------------------------------------------------------------

# TF: y = tf.reduce_X(x), tape.gradient(y, x) and the jvp along ones (Sum/Mean/Prod/EuclideanNorm ReductionTest.testInfinity,
# LogSumExpTest.testInfinity), float32
TF_INFINITY = {
    ((-INF, -INF), "sum"): (-INF, [1.0, 1.0], 2.0),
    ((-INF, -INF), "mean"): (-INF, [0.5, 0.5], 1.0),
    ((-INF, -INF), "prod"): (INF, [-INF, -INF], -INF),
    ((-INF, -INF), "norm"): (INF, [NAN, NAN], NAN),
    ((-INF, -INF), "lse"): (-INF, [NAN, NAN], NAN),
    ((-INF, -INF), "max"): (-INF, [0.5, 0.5], 1.0),
    ((-INF, -INF), "min"): (-INF, [0.5, 0.5], 1.0),
    ((-INF, INF), "sum"): (NAN, [1.0, 1.0], 2.0),
    ((-INF, INF), "mean"): (NAN, [0.5, 0.5], 1.0),
    ((-INF, INF), "prod"): (-INF, [INF, -INF], NAN),
    ((-INF, INF), "norm"): (INF, [NAN, NAN], NAN),
    ((-INF, INF), "lse"): (INF, [0.0, NAN], NAN),
    ((-INF, INF), "max"): (INF, [0.0, 1.0], 1.0),
    ((-INF, INF), "min"): (-INF, [1.0, 0.0], 1.0),
    ((INF, INF), "sum"): (INF, [1.0, 1.0], 2.0),
    ((INF, INF), "mean"): (INF, [0.5, 0.5], 1.0),
    ((INF, INF), "prod"): (INF, [INF, INF], INF),
    ((INF, INF), "norm"): (INF, [NAN, NAN], NAN),
    ((INF, INF), "lse"): (INF, [NAN, NAN], NAN),
    ((INF, INF), "max"): (INF, [0.5, 0.5], 1.0),
    ((INF, INF), "min"): (INF, [0.5, 0.5], 1.0),
}


@pytest.mark.parametrize("key", list(TF_INFINITY), ids=str)
def test_reduction_infinity(key):
    """*ReductionTest.testInfinity, differentiated: values, gradients and tangents at +-inf."""
    x, name = key
    want_y, want_g, want_t = TF_INFINITY[key]
    x = np.array(x, f32)
    y, g = _grad(lambda v: _OPS[name](v), x)
    _close(y, want_y)
    _close(g, want_g)
    _close(_jvp(lambda v: _OPS[name](v), x, np.ones(2, f32)), want_t)


# TF: tape.gradient(tf.reduce_X(x), x, output_gradients=3.) and the jvp along [1, 2, 4] (Min/MaxReductionTest.
# testSpecialValues' inputs): the tied extremes share the gradient equally, also at +-inf
TF_TIES = {
    ((1.0, 1.0, INF), "max"): (INF, [0.0, 0.0, 3.0], 4.0),
    ((1.0, 1.0, INF), "min"): (1.0, [1.5, 1.5, 0.0], 1.5),
    ((INF, INF, 1.0), "max"): (INF, [1.5, 1.5, 0.0], 1.5),
    ((INF, INF, 1.0), "min"): (1.0, [0.0, 0.0, 3.0], 4.0),
    ((-INF, -INF, -INF), "max"): (-INF, [1.0, 1.0, 1.0], 2.3333335),
    ((-INF, -INF, -INF), "min"): (-INF, [1.0, 1.0, 1.0], 2.3333335),
    ((1.0, 1.0, 1.0), "max"): (1.0, [1.0, 1.0, 1.0], 2.3333335),
    ((1.0, 1.0, 1.0), "min"): (1.0, [1.0, 1.0, 1.0], 2.3333335),
    ((INF, 1.0, INF), "max"): (INF, [1.5, 0.0, 1.5], 2.5),
    ((INF, 1.0, INF), "min"): (1.0, [0.0, 3.0, 0.0], 2.0),
    ((-INF, 1.0, -INF), "max"): (1.0, [0.0, 3.0, 0.0], 2.0),
    ((-INF, 1.0, -INF), "min"): (-INF, [1.5, 0.0, 1.5], 2.5),
}


def _tie_grad(name, x, path):
    f = _OPS[name]
    if path == "eager":
        return _grad(f, x, f32(3.0))[1]
    if path == "function":
        return tj.function(lambda v: _grad(f, v, f32(3.0))[1])(tj.constant(x))
    if path == "outer tape over function":
        return _grad(tj.function(f), x, f32(3.0))[1]
    if path == "tj.gradients":
        return tj.function(lambda v: tj.gradients(f(v) * 3.0, [v])[0])(tj.constant(x))
    return jax.jit(lambda v: 3.0 * jax.grad(lambda u: f(u).value)(v))(x)  # "jax.grad"


def _tie_jvp(name, x, path):
    f, t = _OPS[name], np.array([1.0, 2.0, 4.0], f32)
    if path == "eager":
        return _jvp(f, x, t)
    if path == "function":
        return tj.function(lambda v: _jvp(f, v, t))(tj.constant(x))
    if path == "outer tape over function":
        return _jvp(tj.function(f), x, t)
    if path == "tj.gradients":
        return tj.function(lambda v: _jvp(f, v, t))(tj.constant(x))
    return jax.jit(lambda v: jax.jvp(lambda u: f(u).value, (v,), (t,))[1])(x)


@pytest.mark.parametrize("path", ["eager", "function", "outer tape over function", "tj.gradients", "jax.grad"])
def test_max_min_ties_split_evenly_on_every_path(path):
    """Min/MaxReductionTest.testSpecialValues' inputs, differentiated: TF's _MinOrMaxGrad shares the gradient
    equally among tied extremes (inf included); forward mode uses the same weights."""
    for (x, name), (want_y, want_g, want_t) in TF_TIES.items():
        x = np.array(x, f32)
        _close(_OPS[name](x), want_y)
        _close(_tie_grad(name, x, path), want_g)
        _close(_tie_jvp(name, x, path), want_t)


# -- empty inputs -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float16, jax.numpy.bfloat16, np.float32])
def test_reduction_degenerate(dtype):
    """Sum/Mean/Prod/EuclideanNormReductionTest.testDegenerate: reducing a zero-size axis of a (0, 5) input. TF:
    sum zeros, mean NaN, prod ones, norm zeros, in the input's dtype."""
    x = np.zeros((0, 5), dtype)
    for name, want in [("sum", 0.0), ("mean", NAN), ("prod", 1.0), ("norm", 0.0)]:
        y = _call(name, x, 0)
        assert y.shape == (5,) and y.dtype == np.dtype(dtype), name
        _close(y.numpy().astype(f32), [want] * 5)
    z = np.zeros((0, 5), np.complex64)  # SumReductionTest.testDegenerate (complex64): TF sum 0, mean 0j (!), prod 1
    _close(tnp.sum(z, axis=0), [0j] * 5)
    _close(tnp.prod(z, axis=0), [1 + 0j] * 5)


def test_reduction_expand():
    """SumReductionTest.testExpand (and CountNonzero's): reducing the empty axis of a (5, 0) input gives 5 values.
    TF: sum 0, mean NaN, prod 1, euclidean norm 0."""
    x = np.zeros((5, 0), f32)
    for name, want in [("sum", 0.0), ("mean", NAN), ("prod", 1.0), ("norm", 0.0)]:
        for keepdims in (False, True):
            y = _call(name, x, 1, keepdims)
            assert y.shape == ((5, 1) if keepdims else (5,)), name
            _close(y, [want] * 5)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "norm"])
def test_reduction_empty_gradients(name):
    """Sum/Mean/Prod/Min/MaxReductionTest.testEmptyGradients: y = reduce(zeros([0, 3]), [1]) has shape (0,); TF's
    gradient is an empty (0, 3) array (Jacobian error 0)."""
    x = np.zeros((0, 3), f32)
    y, g = _grad(lambda v: _call(name, v, 1), x)
    assert y.shape == (0,) and g.shape == (0, 3) and g.dtype == np.float32
    j = _jvp(lambda v: _call(name, v, 1), x, x)
    assert j.shape == (0,)


@pytest.mark.parametrize("name,want", [("sum", 0.0), ("mean", 0.0), ("prod", 0.0), ("norm", 0.0), ("var", 0.0),
                                       ("std", 0.0)])
@pytest.mark.parametrize("path", ["eager", "function"])
def test_reduction_jvp_over_empty_axis(name, want, path):
    """testEmptyGradients in forward mode: reducing the empty axis of a (0, 3) input. The Jacobian has no columns,
    so TF's tangent is 0; tj.numpy.mean's tangent was sum(t) / 0 = NaN. std's is 0 too (TF: NaN, its sqrt's
    1 / (2 * 0) times the variance's 0): API.md's sqrt rule, 0 where the incoming tangent is 0, as tj.numpy.sqrt's."""
    x = np.zeros((0, 3), f32)

    def jvp(v):
        return _jvp(lambda u: _call(name, u, 0), v, np.zeros((0, 3), f32))
    t = jvp(x) if path == "eager" else tj.function(jvp)(tj.constant(x))
    _close(t, [want] * 3)
    _close(_grad(lambda v: _call(name, v, 0), x)[1], np.zeros((0, 3)))


# -- zero variance ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0])
def test_std_var_gradient_at_constant_input(axis):
    """math_ops_test ReduceTest.testReduceVar/testReduceStd's all-zero input, differentiated. TF: reduce_variance's
    gradient and tangent are 0; reduce_std = sqrt(variance) gives the gradient NaN (SqrtGrad's 0.5 / 0 times 0, the
    incoming gradient being 1), and given a zero gradient 0 (SqrtGrad's 0 where the gradient is 0). Its tangent
    is 0 (TF's forward mode: NaN): API.md's sqrt rule in forward mode, 0 where the incoming tangent (the
    variance's) is 0, as tj.numpy.sqrt's."""
    x, n = np.zeros((2, 3), f32), (1 if axis is None else 3)
    _close(_grad(lambda v: tnp.var(v, axis=axis), x)[1], np.zeros(6))
    _close(_jvp(lambda v: tnp.var(v, axis=axis), x, np.ones_like(x)), [0.0] * n)
    _close(_grad(lambda v: tnp.std(v, axis=axis), x)[1], [NAN] * 6)
    _close(_grad(lambda v: tnp.std(v, axis=axis), x, np.zeros(n, f32).reshape(() if axis is None else (3,)))[1],
           np.zeros(6))
    _close(_jvp(lambda v: tnp.std(v, axis=axis), x, np.ones_like(x)), [0.0] * n)


def test_reduce_var_and_std_values():
    """math_ops_test ReduceTest.testReduceVar and testReduceStd."""
    zeros = np.zeros((2, 3), f32)
    _close(tnp.var(zeros), 0.0)
    _close(tnp.var(zeros, axis=0), [0.0, 0.0, 0.0])
    _close(tnp.var(np.array([[0, 2, 1, 1], [1, 2, 0, 1]], f32)), 0.5)
    _close(tnp.std(zeros), 0.0)
    _close(tnp.std(zeros, axis=0), [0.0, 0.0, 0.0])
    _close(tnp.std(np.array([[1, 2, 1, 1], [1, 1, 0, 1]], f32)), 0.5)


# -- dtypes -------------------------------------------------------------------------------------------------------

# TF: tf.reduce_X(x, [1]) and tape.gradient of it for x = [[1, 2, 3], [4, 5, 6]] in float16 / bfloat16
TF_HALF = {
    ("float16", "sum"): ([6.0, 15.0], [1.0] * 6),
    ("float16", "mean"): ([2.0, 5.0], [0.33325195] * 6),
    ("float16", "prod"): ([6.0, 120.0], [6.0, 3.0, 2.0, 30.0, 24.0, 20.0]),
    ("float16", "max"): ([3.0, 6.0], [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
    ("float16", "min"): ([1.0, 4.0], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
    ("float16", "lse"): ([3.4082031, 6.40625], [0.090026855, 0.2446289, 0.66503906] * 2),
    ("float16", "std"): ([0.81640625, 0.81640625], [-0.40820312, 0.0, 0.40820312] * 2),
    ("float16", "var"): ([0.6665039, 0.6665039], [-0.6665039, 0.0, 0.6665039] * 2),
    ("bfloat16", "sum"): ([6.0, 15.0], [1.0] * 6),
    ("bfloat16", "mean"): ([2.0, 5.0], [0.33398438] * 6),
    ("bfloat16", "prod"): ([6.0, 120.0], [6.0, 3.0, 2.0, 30.0, 24.0, 20.0]),
    ("bfloat16", "max"): ([3.0, 6.0], [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
    ("bfloat16", "min"): ([1.0, 4.0], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
    ("bfloat16", "lse"): ([3.40625, 6.40625], [0.09082031, 0.24511719, 0.66796875] * 2),
    ("bfloat16", "std"): ([0.81640625, 0.81640625], [-0.40820312, 0.0, 0.40820312] * 2),
    ("bfloat16", "var"): ([0.66796875, 0.66796875], [-0.66796875, 0.0, 0.66796875] * 2),
}


@pytest.mark.parametrize("key", list(TF_HALF), ids=str)
def test_reduction_half_precision(key):
    """SumReductionTest.testFloat16/testBfloat16, MeanReductionTest.testBFloat16, ProdReductionTest.testBfloat16,
    MaxReductionTest.testBfloat16Reduce3D: the value and its gradient keep the 16-bit dtype."""
    dtype, name = key
    want_y, want_g = TF_HALF[key]
    x = (np.arange(6).reshape(2, 3) + 1).astype(jax.numpy.dtype(dtype))
    y, g = _grad(lambda v: _call(name, v, 1), x)
    assert y.dtype == x.dtype and g.dtype == x.dtype
    tol = 1e-2 if dtype == "bfloat16" else 2e-3
    _close(y.numpy().astype(f32), want_y, rtol=tol, atol=tol)
    _close(g.numpy().astype(f32), want_g, rtol=tol, atol=tol)


def test_integer_reductions_keep_int32():
    """SumReductionTest.testInt32, ProdReductionTest.testInt32, MaxReductionTest.testInt64Reduce3D (int32 here, x64
    off), ReduceTest.testReduceAllDims: integer sums, products, maxima stay int32, as TF."""
    x = np.arange(-31, -1).reshape(2, 3, 5).astype(np.int32)
    for name, want in [("sum", -495), ("max", -2), ("min", -31)]:
        y = _OPS[name](x)
        assert y.dtype == np.int32 and int(y) == want, name
    _close(tnp.max(x, axis=(0, 2)), [-12, -7, -2])
    p = tnp.prod(np.arange(8).reshape(2, 2, 2).astype(np.int32) % 5 + 1, axis=(1, 2))
    assert p.dtype == np.int32 and p.numpy().tolist() == [24, 30]
    assert int(tnp.sum(np.array([[1, 2, 3], [4, 5, 6]], np.int32))) == 21


# -- axes ---------------------------------------------------------------------------------------------------------

def test_reduce_explicit_axes():
    """math_ops_test ReduceTest.testReduceExplicitAxes. TF 2.21 raises InvalidArgumentError for the repeated axes
    (0, 0), (0, -2), (1, 1), (1, -1), (-2, -1, 0, 1) ("Axes contains duplicate dimension"); tapejax a ValueError."""
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    for axis in (0, -2, (0,), (-2,)):
        assert tnp.sum(x, axis=axis).numpy().tolist() == [5, 7, 9]
    for axis in (1, -1, (1,), (-1,)):
        assert tnp.sum(x, axis=axis).numpy().tolist() == [6, 15]
    for axis in (None, (0, 1), (-1, -2)):
        assert int(tnp.sum(x, axis=axis)) == 21
    for axis in ((0, 0), (0, -2), (1, 1), (1, -1), (-2, -1, 0, 1)):
        with pytest.raises(ValueError, match="duplicate"):
            tnp.sum(x, axis=axis)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "std", "var", "lse", "norm", "all", "any"])
def test_invalid_axis_names_the_axis(name):
    """SumReductionTest.testInvalidIndex, for every reduction: TF 2.21 eager raises InvalidArgumentError "Invalid
    reduction dimension (2 for input with 2 dimension(s)"; tapejax raises ValueError naming the axis."""
    x = np.arange(10.0).reshape(2, 5).astype(f32)
    f = _OPS.get(name) or getattr(tnp, name)
    if name in ("all", "any"):
        x = x > 3
    for axis, bad in ((-3, "-3"), (2, "2"), ((0, 2), "2")):
        with pytest.raises(ValueError, match=rf"axis {bad}\b"):
            f(x, axis=axis)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "all", "any"])
def test_axis_given_as_tensor(name):
    """*ReductionTest.testAxesType: the axis is a scalar integer tensor; reducing [0, 0] over it gives 0."""
    x = [True, True] if name in ("all", "any") else [0, 0]
    y = getattr(tnp, name)(x, axis=tj.constant(0))
    assert y.numpy() == (True if name in ("all", "any") else 0)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "norm", "all", "any", "lse"])
def test_invalid_keepdims_raises_truth_value_error(name):
    """ReductionInvalidKeepdims.testBasic (GitHub issue 46700): keepdims an array of two values raises ValueError
    ("The truth value ..."); tj.numpy.all/any raised TypeError (an unhashable keepdims) instead."""
    x = True if name in ("all", "any") else 1.0
    f = _OPS.get(name) or getattr(tnp, name)
    with pytest.raises(ValueError, match="truth value"):
        f(x, keepdims=np.array([63600, 1], dtype=np.float16))


# -- all / any ----------------------------------------------------------------------------------------------------

_BOOL = np.array([[[True, False, True], [True, True, True]], [[False, False, True], [True, True, False]]])
# TF: tf.reduce_all(_BOOL, axis) and tf.reduce_any(_BOOL, axis) (keepdims=False; keepdims=True only adds ones)
TF_ALL_ANY = {
    None: (False, True),
    (): (_BOOL.tolist(), _BOOL.tolist()),
    (0,): ([[False, False, True], [True, True, False]], [[True, False, True], [True, True, True]]),
    (1,): ([[True, False, True], [False, False, False]], [[True, True, True], [True, True, True]]),
    (2,): ([[False, True], [False, False]], [[True, True], [True, True]]),
    (0, 1): ([False, False, False], [True, True, True]),
    (1, 2): ([False, False], [True, True]),
    (0, 2): ([False, False], [True, True]),
    (0, 1, 2): (False, True),
}


def test_all_any_3d():
    """AllReductionTest.testAll3D, AnyReductionTest.testAll3D (a fixed array for TF's random one), keepdims too."""
    for axis, wants in TF_ALL_ANY.items():
        for f, want in zip((tnp.all, tnp.any), wants):
            y = f(_BOOL, axis=axis)
            assert y.dtype == np.bool_ and y.numpy().tolist() == want, (f, axis)
            assert f(_BOOL, axis=axis, keepdims=True).shape == np.shape(np.all(_BOOL, axis=axis, keepdims=True))


def test_all_any_empty():
    """AllReductionTest.testEmpty, AnyReductionTest.testEmpty: TF reduce_all([], [0]) is True, reduce_any False."""
    assert bool(tnp.all(np.zeros(0, bool), axis=0)) is True
    assert bool(tnp.any(np.zeros(0, bool), axis=(0,))) is False


# -- logsumexp ----------------------------------------------------------------------------------------------------

_LSE_X = np.array([[0.07630829, 0.7799188, 0.43840924, 0.7234652, 0.9779895],
                   [0.5384959, 0.50112045, 0.07205113, 0.268439, 0.4998825],
                   [0.67923, 0.803739, 0.38094112, 0.06593635, 0.2881456],
                   [0.9095935, 0.21338536, 0.45212397, 0.93120605, 0.024899228],
                   [0.6005489, 0.9501295, 0.23030289, 0.5484899, 0.90912837]])
# TF: tf.reduce_logsumexp(x), (x, [0]) == (x, 0), (x, keepdims=True) in each dtype
TF_LSE = {
    "float16": (3.7792969, [2.2050781, 2.2929688, 1.9345703, 2.1640625, 2.2128906]),
    "float32": (3.7781534, [2.2051392, 2.2914886, 1.9343058, 2.1639953, 2.2136395]),
}


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_logsumexp(dtype):
    """LogSumExpTest.testReduceLogSumExp, testReductionIndices, testReductionIndices2, testKeepDims,
    testOverflow, testUnderflow (float16 and float32; float64 needs x64)."""
    x = _LSE_X.astype(dtype)
    want_all, want_0 = TF_LSE[dtype]
    tol = 2e-3 if dtype == "float16" else 1e-6
    y = tj.nn.logsumexp(x)
    assert y.dtype == np.dtype(dtype)
    _close(y.numpy().astype(f32), want_all, rtol=tol)
    for axis in ((0,), 0):
        _close(tj.nn.logsumexp(x, axis=axis).numpy().astype(f32), want_0, rtol=tol)
    k = tj.nn.logsumexp(x, keepdims=True)
    assert k.shape == (1, 1)
    _close(k.numpy().astype(f32), want_all, rtol=tol)
    # TF: 1003.5 / -999.5 in float16, 1003.4402 / -999.5598 in float32 (no overflow to inf, no log(0))
    big, small = (1003.5, -999.5) if dtype == "float16" else (1003.4402, -999.5598)
    _close(tj.nn.logsumexp(np.array([1000, 1001, 1002, 1003], dtype)).numpy().astype(f32), big, rtol=tol)
    _close(tj.nn.logsumexp(np.array([-1000, -1001, -1002, -1003], dtype)).numpy().astype(f32), small, rtol=tol)


def test_logsumexp_of_minus_infinity():
    """LogSumExpTest.testInfinity: TF's reduce_logsumexp(-inf) is -inf."""
    assert tj.nn.logsumexp(-np.inf).numpy() == -np.inf


# -- second order -------------------------------------------------------------------------------------------------

# TF: t2.jacobian(t1.gradient(f(x), x), x) reshaped (6, 6), x = [[0.5, -1, 2], [3, 0.25, 1.5]]
TF_HESSIAN = {
    "prod1": [[0.0, 2.0, -1.0, 0.0, 0.0, 0.0], [2.0, -0.0, 0.5, 0.0, 0.0, 0.0], [-1.0, 0.5, 0.0, 0.0, 0.0, 0.0], [0.0, -0.0, 0.0, 0.0, 1.5, 0.25], [0.0, -0.0, 0.0, 1.5, 0.0, 3.0], [0.0, -0.0, 0.0, 0.25, 3.0, 0.0]],
    "prod": [[0.0, 2.25, -1.125, -0.75, -9.0, -1.5], [2.25, -0.0, 0.5625, 0.375, 4.5, 0.75], [-1.125, 0.5625, 0.0, -0.1875, -2.25, -0.375], [-0.75, 0.375, -0.1875, 0.0, -1.5, -0.25], [-9.0, 4.5, -2.25, -1.5, 0.0, -3.0], [-1.5, 0.75, -0.375, -0.25, -3.0, 0.0]],
    "lse1": [[0.14456366, -0.0068560587, -0.13770762, 0.0, 0.0, 0.0], [-0.0068560583, 0.037582777, -0.030726722, 0.0, 0.0, 0.0], [-0.13770762, -0.030726722, 0.16843432, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.17329001, -0.038591694, -0.13469826], [0.0, 0.0, 0.0, -0.038591694, 0.04720267, -0.008610971], [0.0, 0.0, 0.0, -0.13469826, -0.008610971, 0.14330924]],
    "std0": [[-1.4901161e-08, 0.0, 0.0, 1.4901161e-08, 0.0, 0.0], [0.0, -2.9802322e-08, 0.0, 0.0, 2.9802322e-08, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.4901161e-08, 0.0, 0.0, -1.4901161e-08, 0.0, 0.0], [0.0, 2.9802322e-08, 0.0, 0.0, -2.9802322e-08, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    "var": [[0.2777778, -0.05555556, -0.05555556, -0.05555556, -0.05555556, -0.05555556], [-0.05555556, 0.2777778, -0.05555556, -0.05555556, -0.05555556, -0.05555556], [-0.05555556, -0.05555556, 0.2777778, -0.05555556, -0.05555556, -0.05555556], [-0.055555556, -0.055555556, -0.055555556, 0.2777778, -0.055555556, -0.055555556], [-0.05555556, -0.05555556, -0.05555556, -0.05555556, 0.2777778, -0.05555556], [-0.05555556, -0.05555556, -0.05555556, -0.05555556, -0.05555556, 0.2777778]],
    "norm1": [[0.4156531, 0.041565306, -0.08313061, 0.0, 0.0, 0.0], [0.041565306, 0.35330516, 0.16626123, 0.0, 0.0, 0.0], [-0.08313061, 0.16626123, 0.10391331, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.060777634, -0.019711668, -0.11827001], [0.0, 0.0, 0.0, -0.01971167, 0.295675, -0.009855835], [0.0, 0.0, 0.0, -0.11827001, -0.009855834, 0.23818265]],
    "mean0_sq": [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]],
    "max1_sq": [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
}

_HESS_F = {
    "prod1": lambda v: tnp.sum(tnp.prod(v, axis=1)),
    "prod": tnp.prod,
    "lse1": lambda v: tnp.sum(tj.nn.logsumexp(v, axis=1)),
    "std0": lambda v: tnp.sum(tnp.std(v, axis=0)),
    "var": tnp.var,
    "norm1": lambda v: tnp.sum(tnp.linalg.norm(v, axis=1)),
    "mean0_sq": lambda v: tnp.sum(tnp.mean(v * v, axis=0)),
    "max1_sq": lambda v: tnp.sum(tnp.max(v * v, axis=1)),
}


@pytest.mark.parametrize("name", list(TF_HESSIAN))
def test_reduction_second_order(name):
    """Second order of the reductions (nested tapes; TF's testGradient checks first order only): the Hessian
    as TF's, and forward-over-reverse along a unit vector gives its row."""
    x = tj.constant(np.array([[0.5, -1.0, 2.0], [3.0, 0.25, 1.5]], f32))
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = _HESS_F[name](x)
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    _close(h.numpy().reshape(6, 6), TF_HESSIAN[name], rtol=1e-5, atol=1e-6)
    e = np.zeros((2, 3), f32)
    e[1, 0] = 1.0
    with tj.ForwardAccumulator(x, tj.constant(e)) as acc:
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = _HESS_F[name](x)
        g = tape.gradient(y, x)
    _close(acc.jvp(g).numpy().ravel(), np.asarray(TF_HESSIAN[name])[:, 3], rtol=1e-5, atol=1e-6)


# -- count_nonzero ------------------------------------------------------------------------------------------------

_F4 = np.floor(np.arange(0.0, 210.0) / 100.0).reshape(2, 3, 5, 7).astype(f32)
# TF: tf.math.count_nonzero(_F4, axis) (int64 in TF; tj.numpy.count_nonzero follows jax.numpy: int32 with x64 off)
TF_COUNT_4D = {
    None: 110,
    (0, 1): [3] * 30 + [4] * 5,
    (1, 2): [0, 0, 1, 1, 1, 1, 1] + [15] * 7,
    (0, 1, 2): [15, 15, 16, 16, 16, 16, 16],
    (1, 2, 3): [5, 105],
    (0, 1, 2, 3): 110,
}


def test_count_nonzero():
    """CountNonzeroReductionTest.testBoolReduce1D, testFloatReduce1D, testFloatReduce4D, testExpand,
    testDegenerate (keepdims True and False)."""
    b = np.array([False, False, True, False, False, True])
    assert int(tnp.count_nonzero(b)) == 2 and int(tnp.count_nonzero(b, axis=0)) == 2
    assert tnp.count_nonzero(b, axis=0, keepdims=True).shape == (1,)
    assert int(tnp.count_nonzero(np.array([0.0, 1.0, -1.0, 0.0, 0.0, 3.0], f32), axis=0)) == 3
    for axis, want in TF_COUNT_4D.items():
        for keepdims in (False, True):
            y = tnp.count_nonzero(_F4, axis=axis, keepdims=keepdims)
            assert y.shape == np.shape(np.sum(_F4, axis=axis, keepdims=keepdims)), axis
            assert np.asarray(y.numpy()).ravel().tolist() == np.ravel(want).tolist(), axis
    assert int(tnp.sum(tnp.count_nonzero(_F4, axis=1))) == 110  # testFloatReduce4D, axis [1]: 110 in all
    assert tnp.count_nonzero(np.zeros((5, 0), f32), axis=1).numpy().tolist() == [0] * 5
    assert tnp.count_nonzero(np.zeros((0, 7), bool), axis=0).numpy().tolist() == [0] * 7


# TF: g = tape.gradient(f(x), x) and the Hessian t2.jacobian(g, x) (6, 6) at x = [[1, -1, 0.5], [2, 2, 2]], where
# the maxima/minima tie: _MinOrMaxGrad's weights are constants, so the shares stay even at second order
TF_TIE_SECOND = {
    "max": ([[2.0, -2.0, 0.0], [10.666667, 10.666667, 10.666667]],
            [[4.0, -2.0, 0.0, 0.0, 0.0, 0.0], [-2.0, 4.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 6,
             [0.0, 0.0, 0.0, 8.888889, 3.5555558, 3.5555558], [0.0, 0.0, 0.0, 3.5555558, 8.888889, 3.5555558],
             [0.0, 0.0, 0.0, 3.5555558, 3.5555558, 8.888889]]),
    "min": ([[0.0, 3.0, 0.0], [0.0, 0.0, 0.0]],
            [[0.0] * 6, [0.0, -6.0, 0.0, 0.0, 0.0, 0.0]] + [[0.0] * 6] * 4),
    "max_keepdims": ([[0.0, 0.0, 0.0], [-0.7568025, -0.7568025, -0.7568025]],
                     [[0.0] * 6] * 3 + [[0.0, 0.0, 0.0, -1.3072871, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -1.3072871, 0.0],
                                        [0.0, 0.0, 0.0, 0.0, 0.0, -1.3072871]]),
}
_TIE_SECOND_F = {
    "max": lambda v: tnp.sum(tnp.max(v * v, axis=1) ** 2),  # tf.reduce_sum(tf.reduce_max(v * v, 1) ** 2)
    "min": lambda v: tnp.min(v * v * v),  # tf.reduce_min(v * v * v)
    "max_keepdims": lambda v: tnp.sum(tnp.max(tnp.sin(v), axis=0, keepdims=True) ** 2),
}


@pytest.mark.parametrize("name", list(TF_TIE_SECOND))
def test_max_min_second_order_at_ties(name):
    """Min/MaxReductionTest gradients at tied inputs, to second order (nested tapes)."""
    x = tj.constant(np.array([[1.0, -1.0, 0.5], [2.0, 2.0, 2.0]], f32))
    with tj.GradientTape() as outer:
        outer.watch(x)
        with tj.GradientTape() as inner:
            inner.watch(x)
            y = _TIE_SECOND_F[name](x)
        g = inner.gradient(y, x)
    want_g, want_h = TF_TIE_SECOND[name]
    _close(g, want_g)
    _close(outer.jacobian(g, x).numpy().reshape(6, 6), want_h)


def test_logsumexp_axis_as_array_or_tensor():
    """LogSumExpTest.testReductionIndices with the axis given as TF code gives it to the other reductions (a
    numpy array, an int tensor): tj.nn.logsumexp raised TypeError where tj.numpy.sum accepts both. TF:
    tf.reduce_logsumexp(x, [0, 1]) of _LSE_X[:2, :2] is 1.8907881 (float32), over axis 1: [1.1819082, 1.21313]."""
    x = _LSE_X[:2, :2].astype(f32)
    for axis in (np.array([0, 1]), tj.constant([0, 1]), [0, 1]):
        _close(tj.nn.logsumexp(x, axis=axis), 1.8907881)
    for axis in (np.array([1]), tj.constant(1), np.int32(1)):
        _close(tj.nn.logsumexp(x, axis=axis), [1.1819082, 1.21313])


_Z = np.array([[1 + 2j, -0.5 + 1j, 3 - 1j], [0.25j, 2, -1 - 1j]], np.complex64)
# TF: y = f(z) (float32) and tape.gradient(y, z) (complex64, TF's convention)
TF_COMPLEX_REAL = {
    "var": (5.458334, [[-0.11111113 + 0.8888889j, -1.1111112 + 0.22222225j, 1.2222223 - 1.1111112j],
                       [-0.22222224 + 0.33333334j, 1.1111112 + 0.16666667j, -0.88888896 - 0.5j]]),
    "std": (4.3540735, [[0.24806947 + 0.43412155j, -0.46423835 + 0.18569534j, 0.5 + 0j],
                        [-0.24806947 - 0.43412155j, 0.46423835 - 0.18569534j, -0.5 + 0j]]),
    "norm": (6.4933434, [[0.24806947 + 0.49613893j, -0.12403473 + 0.24806947j, 0.7442084 - 0.24806947j],
                         [0.10153461j, 0.8122769 + 0j, -0.40613845 - 0.40613845j]]),
    "abs_prod": (5.59017, [[1.118034 + 2.2360678j, -2.236068 + 4.472136j, 1.6770511 - 0.559017j],
                           [22.36068j, 2.795085 + 0j, -2.795085 - 2.795085j]]),
    "abs_mean": (3.5467086, [[0.20306922 + 0.45690578j, 0.41602516 + 0.2773501j, 0.35355338 - 0.35355338j]] * 2),
}
_COMPLEX_REAL_F = {
    "var": lambda v: tnp.sum(tnp.var(v, axis=1)),  # tf.reduce_sum(tf.math.reduce_variance(v, 1))
    "std": lambda v: tnp.sum(tnp.std(v, axis=0)),  # tf.reduce_sum(tf.math.reduce_std(v, 0))
    "norm": lambda v: tnp.sum(tnp.linalg.norm(v, axis=1)),  # tf.math.reduce_euclidean_norm(v, 1) (complex64 in TF)
    "abs_prod": lambda v: tnp.abs(tnp.prod(v)),
    "abs_mean": lambda v: tnp.sum(tnp.abs(tnp.mean(v, axis=0))),
}


@pytest.mark.parametrize("name", list(TF_COMPLEX_REAL))
def test_complex_reduction_gradients(name):
    """Mean/ProdReductionTest.testComplex64, EuclideanNormReductionTest.testTypes (complex64) and reduce_std/
    reduce_variance of a complex input (a real result), differentiated: TF's complex gradient convention."""
    want_y, want_g = TF_COMPLEX_REAL[name]
    y, g = _grad(_COMPLEX_REAL_F[name], _Z)
    assert g.dtype == np.complex64
    _close(y, want_y)
    _close(g, want_g, rtol=1e-5, atol=1e-5)
