"""tj.nn ported from more of TensorFlow's own tests: fused batch norm, softmax, softplus, conv gradients and
bias-add gradients, values compared with TF 2.21.

Sources: tensorflow/python/ops/nn_fused_batchnorm_test.py (training mode: ``tf.compat.v1.nn.fused_batch_norm(x,
scale, offset, epsilon=0.001, data_format=..., is_training=True)`` is ``tj.nn.batch_norm(x, scale, offset,
axis=-1)`` for NHWC and ``axis=1`` for NCHW), tensorflow/python/kernel_tests/nn_ops/softmax_op_test.py,
softplus_op_test.py, conv_ops_test.py (TF's NHWC/HWIO ``tf.nn.conv2d`` is ``tj.nn.conv`` with
``dimension_numbers=('NHWC', 'HWIO', 'NHWC')``; its ``conv2d_backprop_input``/``_filter`` cases are the tape
gradients of the convolution) and bias_op_base.py (``tf.nn.bias_add(x, b)`` is ``x + b``; NCHW adds ``b`` along
axis 1). TF's gradient checkers (full Jacobians against finite differences) become vector-Jacobian products with a
fixed upstream gradient, compared with TF's tape gradients. Expected values are TF's, run eagerly on the CPU and
hard-coded; where an array is large, the test compares ``D(sum, sum(a * cos(0.7 * arange(a.size))), sum(|a|))``
of TF's array. TensorFlow is not imported here.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tj
from conftest import D, batch_norm_grad_grad, close_to_tf as _close

tnp = tj.numpy


# -- fused batch norm (ops/nn_fused_batchnorm_test.py, training mode) -------------------------------------------
# x float16 or float32 with float32 scale and offset, drawn as TF's test draws them (np.random.seed(1); x, scale,
# offset, then the upstream gradients, by np.random.random_sample). "c" cases are TF's NCHW (channel axis 1).

_BN_CASES = {  # name: (x shape, channel axis)
    "T1": ([1, 1, 6, 1], 3), "T1c": ([1, 1, 6, 1], 1), "T2": ([1, 1, 6, 2], 3), "T3": ([1, 2, 1, 6], 1),
    "T4": ([27, 131, 127, 6], 3), "T4c": ([27, 131, 127, 6], 1),
    "G1": ([1, 1, 6, 1], 3), "G1c": ([1, 1, 6, 1], 1), "G2": ([1, 1, 6, 2], 3), "G3": ([1, 2, 1, 6], 1),
    "G4": ([5, 7, 11, 4], 3), "G4c": ([5, 7, 11, 4], 1),
    "C1": ([2, 3, 4, 5], 3), "C1c": ([2, 3, 4, 5], 1), "C2": ([2, 3, 2, 2], 3), "C2c": ([2, 3, 2, 2], 1),
}


def _bn_draw(name, dtype, n_upstream=0):
    """TF's draws: x, scale, offset, then ``n_upstream`` arrays of x's shape."""
    shape, axis = _BN_CASES[name]
    np.random.seed(1)
    x = np.random.random_sample(shape).astype(dtype)
    scale, offset = (np.random.random_sample([shape[axis]]).astype(np.float32) for _ in range(2))
    ups = [np.random.random_sample(shape).astype(dtype) for _ in range(n_upstream)]
    return axis, x, scale, offset, ups


def _bn_tol(dtype):
    return 2e-3 if dtype == "float16" else 1e-5  # TF's test: y_atol 2e-3 for float16


_BN_TRAIN = {  # (y, batch_mean, batch_var)
    ("T1", "float32"): ([0.45130336, 0.6850518, 0.130002, 0.3629148, 0.24301533, 0.20107713], [0.27981463],
        [0.06889321]),
    ("T1", "float16"): ([0.45141602, 0.6850586, 0.13000488, 0.36279297, 0.24304199, 0.2010498], [0.2797737],
        [0.068872355]),
    ("T1c", "float32"): ([0.45130336, 0.6850518, 0.130002, 0.3629148, 0.24301533, 0.20107713], [0.27981463],
        [0.06889321]),
    ("T1c", "float16"): ([0.45141602, 0.6850586, 0.13000488, 0.36279297, 0.24304199, 0.2010498], [0.2797737],
        [0.068872355]),
    ("T2", "float32"): ([0.22240005, 1.7370121, -0.29875806, 0.103375256, -0.115447864, -0.7173438, -0.06606524,
        0.27232373, 0.19708076, 1.0276258, 0.22511585, 1.5998114], [0.26101908, 0.44743213], [0.030900044,
        0.059377473]),
    ("T2", "float16"): ([0.22241211, 1.7373047, -0.29882812, 0.10333252, -0.115478516, -0.71728516, -0.06604004,
        0.2722168, 0.19702148, 1.0273438, 0.22509766, 1.5996094], [0.2610054, 0.4473165], [0.03089643, 0.05934942]),
    ("T3", "float32"): ([0.14345813, 0.4000368, -0.20922478, 0.046436645, -0.08517341, -0.13120772, -0.67236745,
        0.21020356, 0.4939037, 1.2808979, 0.6181561, 2.0920115], [0.27981463, 0.42863652], [0.06889321, 0.028945435]),
    ("T3", "float16"): ([0.14343262, 0.40014648, -0.20922852, 0.04638672, -0.08520508, -0.13122559, -0.6723633,
        0.20996094, 0.49414062, 1.2802734, 0.61865234, 2.0917969], [0.2797737, 0.4285482], [0.068872355,
        0.028920285]),
    ("T4", "float32"): (D(1119560.345, 617.9704593, 1456488.866), [0.5004371, 0.50010973, 0.49955574, 0.50050145,
        0.49913228, 0.49946496], [0.08335858, 0.08343879, 0.08337611, 0.08350121, 0.08330529, 0.08315447]),
    ("T4", "float16"): (D(1119557.37, 617.982018, 1456485.316), [0.5004375, 0.50011057, 0.4995565, 0.50050217,
        0.49913248, 0.4994659], [0.083360024, 0.08343711, 0.08337521, 0.08350315, 0.083303876, 0.08315553]),
    ("T4c", "float32"): (D(1377281.399, -174.313245, 1826387.207), D(65.48261639, 0.07571998566, 65.48261639),
        D(10.92005232, 0.02027606397, 10.92005232)),
    ("T4c", "float16"): (D(1377283.629, -173.8589303, 1826388.37), D(65.48258254, 0.07571847791, 65.48258254),
        D(10.92004766, 0.0202757174, 10.92004766)),
}
_BN_GRAD = {  # (x, scale, offset gradients)
    ("G1", "float32"): ([-0.0947425, 0.015969364, -0.07915976, 0.12709302, -0.24405843, 0.27489826], [-0.0076781004],
        [3.1225681]),
    ("G1", "float16"): ([-0.09466553, 0.015945435, -0.0791626, 0.1270752, -0.24401855, 0.27490234], [-0.008020997],
        [3.1219482]),
    ("G1c", "float32"): ([-0.0947425, 0.015969364, -0.07915976, 0.12709302, -0.24405843, 0.27489826], [-0.0076781004],
        [3.1225681]),
    ("G1c", "float16"): ([-0.09466553, 0.015945435, -0.0791626, 0.1270752, -0.24401855, 0.27490234], [-0.008020997],
        [3.1219482]),
    ("G2", "float32"): ([-0.082823895, 0.7035381, -0.2797294, -1.7822653, 0.49325585, 0.6869207, -0.13006529,
        0.2606298, 0.49830893, 1.5489371, -0.49894628, -1.4177614], [0.2810478, -0.88834476], [2.6332939, 3.351037]),
    ("G2", "float16"): ([-0.08288574, 0.7036133, -0.27978516, -1.7822266, 0.4934082, 0.6870117, -0.13000488,
        0.26098633, 0.49853516, 1.5488281, -0.49902344, -1.4179688], [0.28083518, -0.8886278], [2.6333618,
        3.3509521]),
    ("G3", "float32"): ([-0.075265214, 0.058624037, -0.3291589, -0.26610172, 0.23637687, 0.37552497, -1.4198772,
        0.99333096, 2.1140475, 2.4949749, -2.2260256, -1.9564514], [-0.08073226, -0.33834], [3.0834894, 2.9008417]),
    ("G3", "float16"): ([-0.07531738, 0.05859375, -0.32910156, -0.26611328, 0.2364502, 0.37548828, -1.4208984,
        0.99365234, 2.1152344, 2.4960938, -2.2265625, -1.9560547], [-0.08088386, -0.33906353], [3.083374, 2.90094]),
    ("G4", "float32"): (D(-5.5851051e-06, -5.680903854, 296.6972332), [-0.036019325, -1.4894944, 6.6206417,
        3.0471509], [190.1113, 189.84195, 194.71008, 197.76923]),
    ("G4", "float16"): (D(-0.001850247383, -5.677716406, 296.7142761), [-0.038904965, -1.4900136, 6.6166587,
        3.0463762], [190.11325, 189.84453, 194.71112, 197.76654]),
    ("G4c", "float32"): (D(-0.0002560969006, -14.23681419, 612.3723499), [1.229001, 3.2659364, 3.7029257, 2.8047116,
        3.5837939, 4.2627935, -2.663595], [106.54146, 109.17078, 110.826515, 114.53887, 104.91461, 114.280655,
        110.3971]),
    ("G4c", "float16"): (D(-0.004753351212, -14.23499797, 612.3807602), [1.2286124, 3.2647383, 3.7014198, 2.8040376,
        3.5821142, 4.261037, -2.6636171], [106.54355, 109.17087, 110.82803, 114.536385, 104.91287, 114.28278,
        110.39859]),
}
_BN_GRAD_GRAD = {  # for the x, scale and offset gradients in turn: their gradients w.r.t. grad_y, x, scale
    ("C1", "float32"): (D(3.717839718e-06, -2.85300187, 48.30213821), D(2.481043339e-06, 0.5918621329, 19.16867294),
        [0.04154485, 2.0825198, -0.3179185, 0.20149662, 2.308916], D(-5.982001312e-07, -4.730078997, 27.74248163),
        D(-8.86619091e-07, 4.969033637, 28.33928586), [0.0, 0.0, 0.0, 0.0, 0.0], D(67.22750437, 1.462009701,
        67.22750437), D(0, 0, 0), [0.0, 0.0, 0.0, 0.0, 0.0]),
    ("C1", "float16"): (D(-0.001178741455, -2.851772414, 48.29522324), D(-0.0001978874207, 0.5920143243, 19.16756487),
        [0.041778166, 2.0818968, -0.31817517, 0.20245707, 2.3076477], D(-0.0004034042358, -4.729217745, 27.74148273),
        D(-0.0002448558807, 4.966733156, 28.34197354), [0.0, 0.0, 0.0, 0.0, 0.0], D(67.22753906, 1.462047224,
        67.22753906), D(0, 0, 0), [0.0, 0.0, 0.0, 0.0, 0.0]),
    ("C1c", "float32"): (D(1.232791692e-05, 4.014390232, 54.1574945), D(-1.401640475e-06, -0.8655646427, 11.78058938),
        [2.244156, -0.9417974, -2.0239697], D(-2.469867468e-06, -3.431599936, 71.17122632), D(-7.688999176e-06,
        1.683560932, 77.0721361), [0.0, 0.0, 0.0], D(20.69406584, 0.711508625, 20.69406584), D(0, 0, 0), [0.0, 0.0,
        0.0]),
    ("C1c", "float16"): (D(-0.002117156982, 4.013418204, 54.15626907), D(-0.000156879425, -0.8660732241, 11.78091574),
        [2.2425468, -0.94244283, -2.0254574], D(-0.0007476806641, -3.433518914, 71.17112732), D(-0.001361846924,
        1.679874639, 77.07360458), [0.0, 0.0, 0.0], D(20.69213867, 0.7114365545, 20.69213867), D(0, 0, 0), [0.0, 0.0,
        0.0]),
    ("C2", "float32"): ([-0.2779051, -0.10645856, -0.17403942, -0.107412994, 0.03322698, -0.008003548, 0.07956909,
        0.20462, -0.43838227, 0.013338373, 0.37375253, -0.023390051, -0.63495064, -0.011062272, 0.075792804,
        0.030624917, 0.7094953, 0.09451335, 0.4725588, -0.03920366, -0.12391344, 0.10190572, -0.095204726,
        -0.1494713], [0.40031344, -0.08932398, -0.09275208, 0.14552468, -0.1988833, -0.053424418, -0.28333446,
        0.053501382, 0.5586474, 0.012451857, -0.12929264, 0.059474356, 0.5457218, -0.07990688, -0.298925,
        -0.047998056, -0.144604, -0.040950015, -0.40023735, -0.03672594, -0.28611788, 0.015176892, 0.32946393,
        0.062200144], [-0.36799487, 0.26688012], [0.55508983, 0.22192822, -1.2547153, -0.33651632, -0.6181413,
        -0.6170719, -0.44665214, -0.27876276, 0.4671645, -0.020569324, 0.56452084, 0.17502734, -0.3676801, 0.43274233,
        -1.1363217, 0.15531838, 0.55631757, 0.005981462, -0.645789, -0.47577086, 2.220838, 0.5531765, 0.105369404,
        0.18451719], [1.334909, 0.42625016, -0.9665878, -0.7275903, -0.99730957, 0.38801557, -1.4150505, -0.21604323,
        1.7437849, -0.061335146, 0.52803016, -0.34833324, 1.0886676, 0.35019475, -1.3305442, 0.23195678, 1.8223832,
        0.22642303, -0.4998138, 0.27202767, -3.0649142, -0.16415524, 1.756444, -0.37741035], [0.0, 0.0], [0.7508121,
        0.725998, 0.7508121, 0.725998, 0.7508121, 0.725998, 0.7508121, 0.725998, 0.7508121, 0.725998, 0.7508121,
        0.725998, 0.7508121, 0.725998, 0.7508121, 0.725998, 0.7508121, 0.725998, 0.7508121, 0.725998, 0.7508121,
        0.725998, 0.7508121, 0.725998], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0]),
    ("C2", "float16"): ([-0.27783203, -0.10644531, -0.17419434, -0.10736084, 0.03338623, -0.007980347, 0.07965088,
        0.20458984, -0.43847656, 0.013381958, 0.37353516, -0.0234375, -0.6347656, -0.010948181, 0.07556152,
        0.03048706, 0.70996094, 0.09448242, 0.4724121, -0.039215088, -0.1239624, 0.101989746, -0.09515381,
        -0.14953613], [0.40014648, -0.08935547, -0.09265137, 0.14562988, -0.19897461, -0.05343628, -0.28344727,
        0.053466797, 0.55859375, 0.012435913, -0.12927246, 0.059509277, 0.54541016, -0.07989502, -0.29858398,
        -0.04800415, -0.14489746, -0.040985107, -0.40014648, -0.036712646, -0.2861328, 0.015136719, 0.3293457,
        0.06222534], [-0.36756775, 0.26702097], [0.5551758, 0.22192383, -1.2548828, -0.33666992, -0.61816406,
        -0.6171875, -0.4465332, -0.2788086, 0.46704102, -0.02078247, 0.5644531, 0.17492676, -0.36767578, 0.4326172,
        -1.1367188, 0.15539551, 0.55615234, 0.005958557, -0.6459961, -0.47558594, 2.2207031, 0.55322266, 0.10559082,
        0.18469238], [1.3349609, 0.42626953, -0.9667969, -0.72753906, -0.9975586, 0.38793945, -1.4150391, -0.21594238,
        1.7441406, -0.06121826, 0.52783203, -0.34838867, 1.0888672, 0.35009766, -1.3310547, 0.23181152, 1.8222656,
        0.22631836, -0.49951172, 0.27197266, -3.0644531, -0.1640625, 1.7568359, -0.37719727], [0.0, 0.0], [0.75097656,
        0.7260742, 0.75097656, 0.7260742, 0.75097656, 0.7260742, 0.75097656, 0.7260742, 0.75097656, 0.7260742,
        0.75097656, 0.7260742, 0.75097656, 0.7260742, 0.75097656, 0.7260742, 0.75097656, 0.7260742, 0.75097656,
        0.7260742, 0.75097656, 0.7260742, 0.75097656, 0.7260742], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0]),
    ("C2c", "float32"): ([0.00042362465, -0.2949449, -0.07917735, -0.36484388, 0.07550216, 0.15787962, -0.32415035,
        -0.034740996, 0.011146344, -0.00617666, -0.04642066, 0.01347325, 0.081409626, 0.19553016, 0.27717668,
        0.18442583, 0.38713524, -0.2270356, -0.3016331, 0.26704314, 0.00757737, -0.0038859546, 0.027585972,
        -0.0032996428], [0.12579471, 0.2720373, 0.09343997, 0.20691724, 0.14839496, 0.3436268, 0.3607657, -0.20185934,
        0.025509544, -0.009871654, -0.04976701, 0.0062244684, 0.07524791, -0.2838123, -0.2792547, -0.21036974,
        -0.6130668, -0.50720525, 0.48761415, -0.018270373, -0.0061128065, 0.010928728, 0.03552621, -0.01243753],
        [0.27113613, 3.4153852, 0.13707726], [0.03532877, 0.7745877, -0.98082715, -0.24421117, -0.53138894,
        -0.78522515, -0.3471161, 0.39596093, -0.85447687, -0.26261055, -0.7610317, 0.34739512, -0.48278123, 1.1591866,
        -0.9143524, 0.65306795, 0.73062015, 1.3901281, -0.5610977, -0.291881, 0.8287449, 1.5267256, -1.2017373,
        0.37699103], [0.82791185, 0.1770314, -0.14517558, -0.9500662, -1.3305615, 2.177768, -1.8123322, -0.90489817,
        0.87134933, -0.27119792, -0.13801408, -0.5317228, 0.8523748, -0.33088493, -0.3704046, -0.060785055, 1.4740813,
        -0.17952895, -0.7906773, 1.3661482, -0.9062333, 1.2694228, 0.29801488, -0.59161925], [0.0, 0.0, 0.0],
        [0.6236722, 0.6236722, 0.6236722, 0.6236722, 0.7509424, 0.7509424, 0.7509424, 0.7509424, 0.34889835,
        0.34889835, 0.34889835, 0.34889835, 0.6236722, 0.6236722, 0.6236722, 0.6236722, 0.7509424, 0.7509424,
        0.7509424, 0.7509424, 0.34889835, 0.34889835, 0.34889835, 0.34889835], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    ("C2c", "float16"): ([0.0003709793, -0.29492188, -0.0791626, -0.36499023, 0.07550049, 0.15783691, -0.32421875,
        -0.03475952, 0.011138916, -0.0062026978, -0.046417236, 0.01348114, 0.08123779, 0.19543457, 0.27734375,
        0.18444824, 0.38720703, -0.22705078, -0.3017578, 0.26733398, 0.0075798035, -0.0038814545, 0.02760315,
        -0.0033073425], [0.12597656, 0.27197266, 0.093322754, 0.20690918, 0.1484375, 0.34375, 0.36083984, -0.20178223,
        0.025512695, -0.0099105835, -0.04977417, 0.0062217712, 0.07550049, -0.2836914, -0.27954102, -0.21044922,
        -0.61328125, -0.5073242, 0.48779297, -0.018539429, -0.006111145, 0.010932922, 0.03555298, -0.012435913],
        [0.27068356, 3.4152896, 0.13722922], [0.03540039, 0.77441406, -0.98095703, -0.24438477, -0.5317383,
        -0.78515625, -0.34692383, 0.39575195, -0.8544922, -0.26342773, -0.7607422, 0.34692383, -0.48266602, 1.1591797,
        -0.9145508, 0.6533203, 0.73046875, 1.390625, -0.56103516, -0.29174805, 0.82910156, 1.5263672, -1.2011719,
        0.3774414], [0.828125, 0.17700195, -0.14526367, -0.9501953, -1.3310547, 2.1777344, -1.8125, -0.9042969,
        0.87158203, -0.2722168, -0.13793945, -0.53271484, 0.85253906, -0.3310547, -0.37036133, -0.06109619, 1.4746094,
        -0.17993164, -0.79003906, 1.3652344, -0.90625, 1.2695312, 0.29858398, -0.5908203], [0.0, 0.0, 0.0],
        [0.62353516, 0.62353516, 0.62353516, 0.62353516, 0.75097656, 0.75097656, 0.75097656, 0.75097656, 0.34887695,
        0.34887695, 0.34887695, 0.34887695, 0.62353516, 0.62353516, 0.62353516, 0.62353516, 0.75097656, 0.75097656,
        0.75097656, 0.75097656, 0.34887695, 0.34887695, 0.34887695, 0.34887695], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", ["T1", "T1c", "T2", "T3", "T4", "T4c"])
def test_batch_norm_training_values(name, dtype):
    """BatchNormalizationTest.testTrainingShape1..4: y, batch_mean and the Bessel-corrected batch_var."""
    axis, x, scale, offset, _ = _bn_draw(name, dtype)
    y, mean, var = tj.nn.batch_norm(x, scale, offset, epsilon=0.001, axis=axis)
    assert (y.dtype, mean.dtype, var.dtype) == (np.dtype(dtype), np.float32, np.float32)
    want_y, want_mean, want_var = _BN_TRAIN[name, dtype]
    large = isinstance(want_y, D)  # 2.7M elements: float32 sums in another order (var within 5e-5)
    _close(y, want_y, 1e-4 if large else 1e-5, 0 if large else _bn_tol(dtype))
    _close(mean, want_mean, 1e-4 if large else 1e-5, 1e-6)
    _close(var, want_var, 1e-4 if large else 1e-5, 1e-6)


def test_batch_norm_empty_batch():
    """testTrainingShape5 and testBatchNormGradShape5 (a batch of 0, NHWC and NCHW): TF's CPU kernel gives NaN
    moments, an empty y and x gradient, and zero scale and offset gradients."""
    for shape, axis in (([0, 131, 127, 6], 3), ([0, 7, 11, 4], 3), ([0, 7, 11, 4], 1)):
        c = shape[axis]
        x, s, o = tj.constant(np.zeros(shape, np.float32)), tj.constant(np.ones(c, np.float32)), tj.constant(
            np.zeros(c, np.float32))
        with tj.GradientTape() as tape:
            tape.watch([x, s, o])
            y, mean, var = tj.nn.batch_norm(x, s, o, epsilon=0.001, axis=axis)
        assert y.shape == tuple(shape) and np.isnan(mean.numpy()).all() and np.isnan(var.numpy()).all()
        dx, ds, do = tape.gradient(y, [x, s, o])
        assert dx.shape == tuple(shape)
        np.testing.assert_array_equal(ds.numpy(), np.zeros(c))
        np.testing.assert_array_equal(do.numpy(), np.zeros(c))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", ["G1", "G1c", "G2", "G3", "G4", "G4c"])
def test_batch_norm_gradients(name, dtype):
    """testBatchNormGradShape1..4 (is_training=True): the x, scale and offset gradients of y, for an upstream
    gradient drawn after the inputs; float16 x keeps float16 gradients, scale and offset float32 ones."""
    axis, x, scale, offset, (gy,) = _bn_draw(name, dtype, 1)
    x, scale, offset = tj.constant(x), tj.constant(scale), tj.constant(offset)
    with tj.GradientTape() as tape:
        tape.watch([x, scale, offset])
        y, _, _ = tj.nn.batch_norm(x, scale, offset, epsilon=0.001, axis=axis)
    grads = tape.gradient(y, [x, scale, offset], output_gradients=gy)
    assert [g.dtype for g in grads] == [np.dtype(dtype), np.float32, np.float32]
    tol = 2e-3 if dtype == "float16" else 1e-4
    for g, want in zip(grads, _BN_GRAD[name, dtype]):
        _close(g, want, tol, 0 if isinstance(want, D) else tol)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", ["C1", "C1c", "C2", "C2c"])
def test_batch_norm_grad_grad(name, dtype):
    """testBatchNormGradGradConfig1..4 (_test_grad_grad, is_training=True): the gradients of the x, scale and
    offset gradients (taken with an upstream grad_y) with respect to grad_y, x and scale, by nested tapes. As TF's
    FusedBatchNormGrad gradient, those with no dependence are zeros, not None (the scale gradient's in scale, the
    offset gradient's in x and scale): they were None."""
    shape, axis = _BN_CASES[name]
    _, seconds = batch_norm_grad_grad(shape, axis, dtype)
    want = iter(_BN_GRAD_GRAD[name, dtype])
    tol = 2e-2 if dtype == "float16" else 1e-4
    for grads in seconds:
        for g in grads:
            assert g is not None
            w = next(want)
            _close(g, w, tol, 0 if isinstance(w, D) else tol)


def test_batch_norm_5d_training_and_gradient():
    """The 5-D (NDHWC) training and gradient cases: x [2, 3, 2, 2, 4], then scale, offset and an upstream gradient
    from np.random.seed(1), tf.compat.v1.nn.fused_batch_norm(..., data_format="NDHWC", is_training=True)."""
    np.random.seed(1)
    xv = np.random.random_sample([2, 3, 2, 2, 4]).astype(np.float32)
    sv, ov = (np.random.random_sample([4]).astype(np.float32) for _ in range(2))
    gy = np.random.random_sample([2, 3, 2, 2, 4]).astype(np.float32)
    x, s, o = tj.constant(xv), tj.constant(sv), tj.constant(ov)
    with tj.GradientTape() as tape:
        tape.watch([x, s, o])
        y, mean, var = tj.nn.batch_norm(x, s, o, epsilon=0.001)
    gx, gs, go = tape.gradient(y, [x, s, o], output_gradients=gy)
    _close(y, D(50.32595152, -7.479925421, 70.19464356), 1e-5)
    _close(mean, [0.48623008, 0.58528167, 0.39090046, 0.47470114], 1e-5)
    _close(var, [0.10643247, 0.066387348, 0.088652015, 0.076703750], 1e-5)
    _close(gx, D(-2.962886356e-06, -0.2175782887, 46.63837642), 1e-4)
    _close(gs, [-0.59860992, -0.057603195, 0.39648706, -1.9748683], 1e-4, 1e-5)
    _close(go, [11.997827, 10.204951, 9.7353992, 14.448812], 1e-5)


def test_batch_norm_parameter_shape_errors():
    """testEagerShapeErrors: a scale or offset whose size is not x's channel count, or not a vector, raises (TF:
    InvalidArgumentError "scale must have the same number of elements as the channels of x", "offset must ...",
    "scale must be 1-dimensional"); it was a TypeError from broadcasting inside the op."""
    x = tnp.ones((2, 2, 2, 2))
    for scale, offset, bad in (((3,), (2,), "scale"), ((2,), (3,), "offset"), ((2, 2), (2,), "scale")):
        with pytest.raises(ValueError, match=f"{bad} must be a vector with one element per channel"):
            tj.nn.batch_norm(x, tnp.ones(scale), tnp.ones(offset))

def test_batch_norm_second_order_connections():
    """_test_grad_grad's connections, reverse over reverse and forward over reverse (TF 2.21, float32, x and grad_y
    of shape [2, 3, 2, 2] from np.random.seed(1), scale [0.5, 1.5], offset [0.1, 0.2]): the gradients depend on x,
    scale and grad_y (zeros where the formula does not read them; they were None), never on offset (None)."""
    np.random.seed(1)
    xv, gyv = (np.random.random_sample([2, 3, 2, 2]).astype(np.float32) for _ in range(2))
    x, gy, s, o = tj.constant(xv), tj.constant(gyv), tj.constant([0.5, 1.5]), tj.constant([0.1, 0.2])
    with tj.GradientTape(persistent=True) as outer:
        outer.watch([x, gy, s, o])
        with tj.GradientTape() as inner:
            inner.watch([x, s, o])
            y, _, _ = tj.nn.batch_norm(x, s, o, epsilon=0.001)
        gx, gs, go = inner.gradient(y, [x, s, o], output_gradients=gy)
    d_gy, d_x, d_s, d_o = outer.gradient(gx, [gy, x, s, o])
    assert d_o is None
    for g in (d_gy, d_x, d_s):  # the sum of the x gradient is 0 whatever the inputs
        np.testing.assert_allclose(g.numpy(), 0.0, atol=1e-5)
    d_gy, d_x, d_s, d_o = outer.gradient(gs, [gy, x, s, o])
    assert d_o is None
    np.testing.assert_allclose(d_gy.numpy().ravel()[:3], [0.5984741, 0.63815415, -1.3527803], rtol=1e-5)
    np.testing.assert_allclose(d_x.numpy().ravel()[:3], [1.4392416, 1.2256818, -1.0421336], rtol=1e-5)
    np.testing.assert_array_equal(d_s.numpy(), [0.0, 0.0])
    d_gy, d_x, d_s, d_o = outer.gradient(go, [gy, x, s, o])
    assert d_o is None
    np.testing.assert_array_equal(d_gy.numpy(), np.ones([2, 3, 2, 2]))
    np.testing.assert_array_equal(d_x.numpy(), np.zeros([2, 3, 2, 2]))
    np.testing.assert_array_equal(d_s.numpy(), [0.0, 0.0])

    for primals, want in (([x, s, o], "connected"), ([o], None)):
        with tj.ForwardAccumulator(primals, [tnp.ones_like(p) for p in primals]) as acc:
            with tj.GradientTape() as inner:
                inner.watch([x, s, o])
                y, _, _ = tj.nn.batch_norm(x, s, o, epsilon=0.001)
            gx, gs, go = inner.gradient(y, [x, s, o], output_gradients=gyv)
        tangents = [acc.jvp(t) for t in (gx, gs, go)]
        if want is None:  # an offset tangent reaches none of them
            assert tangents == [None, None, None]
            continue
        np.testing.assert_allclose(tangents[0].numpy().ravel()[:3], [1.4392412, 1.22568, -1.0421331], rtol=1e-5)
        np.testing.assert_allclose(tangents[1].numpy(), [0.0, 0.0], atol=1e-4)  # TF: [2.8e-06, 3.2e-06]
        np.testing.assert_array_equal(tangents[2].numpy(), [0.0, 0.0])  # zeros, not None


# -- softmax, log_softmax (kernel_tests/nn_ops/softmax_op_test.py) --------------------------------------------
# testInvalidAxis/testDimTooLarge, _testOverflow and testSoftmaxDoubleGradientPreservesSmallComponent are in
# test_tf_nn_ops_port.py. float64 cases run in float32 (x64 is off); TF's float64 values are compared in float32.

_A = [[1., 1., 1., 1.], [1., 2., 3., 4.]]
_B3 = [[[1., 1., 1., 1.], [1., 2., 3., 4.]], [[2., 3., 4., 5.], [6., 7., 8., 9.]], [[5., 4., 3., 2.], [1., 2., 3., 4.]]]
_SOFTMAX_INPUTS = {  # name: (features, axis, dtype)
    "float": (_A, -1, "float32"), "half": (_A, -1, "float16"), "bf16": (_A, -1, "bfloat16"),
    "1d": ([3., 2., 3., 9.], -1, "float32"), "3d": (_B3, -1, "float32"), "dim0": (_B3, 0, "float32"),
    "dim1": (_B3, 1, "float32"), "dimm2": (_B3, -2, "float32"),
}
_SOFTMAX = {  # (softmax, log_softmax)
    "float": ([0.25, 0.25, 0.25, 0.25, 0.0320586, 0.087144315, 0.23688284, 0.6439142], [-1.3862944, -1.3862944,
        -1.3862944, -1.3862944, -3.4401896, -2.4401896, -1.4401897, -0.4401897]),
    "half": ([0.25, 0.25, 0.25, 0.25, 0.032043457, 0.0871582, 0.23693848, 0.64404297], [-1.3867188, -1.3867188,
        -1.3867188, -1.3867188, -3.4394531, -2.4394531, -1.4394531, -0.4399414]),
    "bf16": ([0.25, 0.25, 0.25, 0.25, 0.031982422, 0.08691406, 0.23730469, 0.64453125], [-1.3828125, -1.3828125,
        -1.3828125, -1.3828125, -3.4375, -2.4375, -1.4375, -0.44140625]),
    "1d": ([0.0024642884, 0.00090656104, 0.0024642884, 0.9941649], [-6.005852, -7.005852, -6.005852, -0.005852231]),
    "3d": ([0.25, 0.25, 0.25, 0.25, 0.0320586, 0.087144315, 0.23688284, 0.6439142, 0.0320586, 0.087144315, 0.23688284,
        0.6439142, 0.0320586, 0.087144315, 0.23688284, 0.6439142, 0.6439142, 0.23688284, 0.087144315, 0.0320586,
        0.0320586, 0.087144315, 0.23688284, 0.6439142], [-1.3862944, -1.3862944, -1.3862944, -1.3862944, -3.4401896,
        -2.4401896, -1.4401897, -0.4401897, -3.4401896, -2.4401896, -1.4401897, -0.4401897, -3.4401896, -2.4401896,
        -1.4401897, -0.4401897, -0.4401897, -1.4401897, -2.4401896, -3.4401896, -3.4401896, -2.4401896, -1.4401897,
        -0.4401897]),
    "dim0": ([0.017147824, 0.035119023, 0.035119023, 0.017147824, 0.0066483538, 0.0066483538, 0.0066483538,
        0.0066483538, 0.04661262, 0.25949648, 0.7053845, 0.93623954, 0.9867033, 0.9867033, 0.9867033, 0.9867033,
        0.93623954, 0.7053845, 0.25949648, 0.04661262, 0.0066483538, 0.0066483538, 0.0066483538, 0.0066483538],
        [-4.065884, -3.3490124, -3.3490121, -4.065884, -5.013386, -5.013386, -5.013386, -5.013386, -3.0658839,
        -1.3490123, -0.34901217, -0.06588391, -0.013385902, -0.013385902, -0.013385902, -0.013385902, -0.06588391,
        -0.34901226, -1.3490121, -3.0658839, -5.013386, -5.013386, -5.013386, -5.013386]),
    "dim1": ([0.5, 0.26894143, 0.11920291, 0.047425874, 0.5, 0.73105854, 0.880797, 0.95257413, 0.017986208,
        0.017986208, 0.017986208, 0.017986208, 0.98201376, 0.98201376, 0.98201376, 0.98201376, 0.98201376, 0.880797,
        0.5, 0.11920291, 0.017986208, 0.11920291, 0.5, 0.880797], [-0.6931472, -1.3132616, -2.126928, -3.0485873,
        -0.6931472, -0.31326163, -0.12692805, -0.04858733, -4.01815, -4.01815, -4.01815, -4.01815, -0.018149963,
        -0.018149963, -0.018149963, -0.018149963, -0.01814996, -0.12692805, -0.6931472, -2.126928, -4.01815,
        -2.126928, -0.6931472, -0.12692805]),
    "dimm2": ([0.5, 0.26894143, 0.11920291, 0.047425874, 0.5, 0.73105854, 0.880797, 0.95257413, 0.017986208,
        0.017986208, 0.017986208, 0.017986208, 0.98201376, 0.98201376, 0.98201376, 0.98201376, 0.98201376, 0.880797,
        0.5, 0.11920291, 0.017986208, 0.11920291, 0.5, 0.880797], [-0.6931472, -1.3132616, -2.126928, -3.0485873,
        -0.6931472, -0.31326163, -0.12692805, -0.04858733, -4.01815, -4.01815, -4.01815, -4.01815, -0.018149963,
        -0.018149963, -0.018149963, -0.018149963, -0.01814996, -0.12692805, -0.6931472, -2.126928, -4.01815,
        -2.126928, -0.6931472, -0.12692805]),
}
# assertAllCloseAccordingToType's tolerances
_RTOL = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}


@pytest.mark.parametrize("name", list(_SOFTMAX_INPUTS))
def test_softmax_and_log_softmax_values(name):
    """SoftmaxTest.testFloat, testHalf, testBfloat16 (features cast to bfloat16), testDouble/test1DTensorAsInput
    (in float32), test3DTensorAsInput, testAlongFirstDimension, testAlongSecondDimension,
    testAlongNegativeDimension; the op takes a name, as TF's (name="arbitrary")."""
    features, axis, dtype = _SOFTMAX_INPUTS[name]
    x = tnp.astype(tj.constant(features), jnp.dtype(dtype))
    sm = tj.nn.softmax(x, axis=axis, name="arbitrary")
    lsm = tj.nn.log_softmax(x, axis=axis, name="arbitrary")
    assert sm.dtype == lsm.dtype == jnp.dtype(dtype) and sm.shape == np.shape(features)
    want_sm, want_lsm = _SOFTMAX[name]
    # TF's bfloat16 softmax is its float32 one rounded once (its log_softmax rounds every step): the same values
    # here (the softmax was an ulp off, computed in bfloat16 throughout)
    rtol, atol = (1e-6, 0.0) if dtype == "bfloat16" else (_RTOL[dtype], _RTOL[dtype])
    _close(tnp.astype(sm, jnp.float32), want_sm, rtol, atol)
    _close(tnp.astype(lsm, jnp.float32), want_lsm, rtol, atol)
    if dtype == "float32":  # the bonus check: softmaxes add to one along the axis
        np.testing.assert_allclose(np.sum(sm.numpy(), axis=axis), 1.0, rtol=1e-6)


@pytest.mark.parametrize("dims,want", [(129, D(129.0000006, 0.06808093329, 129.0000006)),
                                       (256, D(256.0000003, 0.09076408294, 256.0000003))])
def test_softmax_large_dims(dims, want):
    """testLargeDims (GitHub issue 4425): a [dims, dims] softmax of np.random.seed(dims) rand values."""
    np.random.seed(dims)
    x = np.random.rand(dims, dims).astype(np.float32)
    _close(tj.nn.softmax(tj.constant(x)), want, 1e-6)


def test_softmax_shape_inference_and_empty_input():
    """testShapeInference (a nested list) and testEmptyInput (a [0, 3] input along axis 0)."""
    assert tj.nn.softmax(_B3).shape == (3, 2, 4)
    out = tj.nn.softmax(tnp.ones([0, 3]), axis=0)
    assert out.shape == (0, 3) and out.dtype == np.float32


# -- softplus (kernel_tests/nn_ops/softplus_op_test.py) -----------------------------------------------------

_SOFTPLUS = {  # (of [[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]], of the log(eps) list)
    "float16": ([0.00012338161, 7.0, 0.006713867, 3.0488281, 0.31323242, 1.3134766, 0.048583984, 5.0078125,
        0.0009112358, 9.0], [0.0009775162, 0.00036001205, 0.0026550293, 5.9604645e-08, 3.1152344, 6.9296875,
        5.9335938, 7.9296875, 0.04537964, 16.9375]),
    "float32": ([0.00012340218, 7.0009117, 0.006715349, 3.048587, 0.3132617, 1.3132616, 0.048587356, 5.0067153,
        0.0009114665, 9.000123], [1.1920935e-07, 4.3854666e-08, 3.240446e-07, 5.4120957e-12, 0.0026223194, 15.942385,
        14.942385, 16.942385, 5.945007, 25.942385]),
    "bfloat16": ([0.00012302399, 7.0, 0.0067443848, 3.0, 0.3125, 1.3125, 0.049804688, 5.0, 0.00091171265, 9.0],
        [0.007873535, 0.00289917, 0.021118164, 3.46452e-07, 5.15625, 4.84375, 3.859375, 5.84375, 0.0057678223,
        14.875]),
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "bfloat16"])
def test_softplus_numbers(dtype):
    """SoftplusTest.testNumbers (float64 skipped: x64 is off), with TF's tolerances (half 5e-3, bfloat16 5e-2:
    TF's bfloat16 kernel returns x above -log(eps) - 2 and exp(x) below log(eps) + 2, which tj's does not)."""
    dt = jnp.dtype(dtype)
    x = np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]]).astype(dt)
    log_eps = np.log(2 ** (-(8 - 1))) if dtype == "bfloat16" else np.log(np.finfo(dt).eps)
    one, ten = dt.type(1), dt.type(10)
    eps_in = np.array([log_eps, log_eps - one, log_eps + one, log_eps - ten, log_eps + ten, -log_eps,
                       -log_eps - one, -log_eps + one, -log_eps - ten, -log_eps + ten]).astype(dt)
    tol = {"float16": 5e-3, "float32": 1e-6, "bfloat16": 5e-2}[dtype]
    for inp, want in zip((x, eps_in), _SOFTPLUS[dtype]):
        out = tj.nn.softplus(inp, name="softplus")
        assert out.dtype == dt and out.shape == inp.shape
        _close(tnp.astype(out, jnp.float32), want, tol, tol)
        assert np.all(out.numpy().astype(np.float32) > 0)


def test_softplus_gradient_to_third_order():
    """testGradient, testGradGrad and testGradGradGrad: TF's first, second and third derivatives of softplus
    (nested tapes, each summing the previous gradient)."""
    x = tj.constant([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]])
    with tj.GradientTape() as t3:
        t3.watch(x)
        with tj.GradientTape() as t2:
            t2.watch(x)
            with tj.GradientTape() as t1:
                t1.watch(x)
                y = tj.nn.softplus(x)
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    g3 = t3.gradient(g2, x)
    _close(g1, [0.2890505, 0.3318122, 0.37754068, 0.4255574, 0.4750208, 0.5249792, 0.57444245, 0.62245935,
                0.6681878, 0.7109495], 1e-6)
    _close(g2, [0.20550032, 0.22171286, 0.23500371, 0.24445832, 0.24937606, 0.24937604, 0.24445832, 0.23500371,
                0.22171286, 0.20550032], 1e-6)
    _close(g3, [0.08670039, 0.07457879, 0.05755679, 0.036396224, 0.012458431, -0.012458416, -0.03639615,
                -0.057556804, -0.0745788, -0.086700365], 1e-5)


# -- bias add as x + b (kernel_tests/nn_ops/bias_op_base.py) --------------------------------------------------
# tf.nn.bias_add(x, b) is x + b; data_format="NCHW" adds b along axis 1 (b reshaped to (C, 1, ...)). Inputs:
# x = 1, 2, 3, ...; b, the upstream gradient u (for x's and b's gradients) and v (for the gradient of b's gradient
# with respect to u, TF's "gradient of BiasAddGrad") from np.random.RandomState(3, 4, 5), rounded to 2 decimals.

def _bias_add(x, b, data_format="NHWC"):
    if data_format == "NCHW":
        return x + tnp.reshape(b, (-1,) + (1,) * (tnp.ndim(x) - 2))
    return x + b


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_bias_add_int_types(dtype):
    """BiasAddTestBase.testIntTypes (int64 is int32 with x64 off), NHWC and NCHW."""
    x, b = np.array([[10, 20, 30], [40, 50, 60]]).astype(dtype), np.array([1, 2, 3]).astype(dtype)
    out = _bias_add(tj.constant(x), tj.constant(b))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy().ravel(), [11, 22, 33, 41, 52, 63])
    out = _bias_add(tj.constant(np.transpose(x.reshape(1, 2, 3), (0, 2, 1))), tj.constant(b), "NCHW")
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy().ravel(), [11, 41, 22, 52, 33, 63])


_BIAS_CASES = {  # name: (x shape, channels, data_format)
    "2d": ((3, 2), 2, "NHWC"), "3d": ((1, 3, 2), 2, "NHWC"), "3dc": ((1, 2, 3), 2, "NCHW"),
    "4d": ((2, 3, 4, 2), 2, "NHWC"), "4dwide": ((2, 2, 2, 64), 64, "NHWC"), "5dc": ((1, 2, 2, 3, 4), 2, "NCHW"),
    "1x1c": ((4, 32, 1, 1), 32, "NCHW"),
}
_BIAS = {  # (y, x gradient, bias gradient, gradient of the bias gradient w.r.t. the upstream gradient)
    ("2d", "float32"): ([3.2, 4.83, 5.2, 6.83, 7.2, 8.83], [0.93, 0.09, 0.95, 0.43, 0.4, -0.57], [2.28, -0.050000012],
        [-0.56, 0.74, -0.56, 0.74, -0.56, 0.74]),
    ("2d", "float16"): ([3.1992188, 4.828125, 5.1992188, 6.828125, 7.1992188, 8.828125], [0.9301758, 0.090026855,
        0.9501953, 0.42993164, 0.39990234, -0.5698242], [2.28125, -0.049865723], [-0.5600586, 0.7402344, -0.5600586,
        0.7402344, -0.5600586, 0.7402344]),
    ("2d", "bfloat16"): ([3.203125, 4.8125, 5.1875, 6.8125, 7.1875, 8.8125], [0.9296875, 0.08984375, 0.94921875,
        0.4296875, 0.40039062, -0.5703125], [2.28125, -0.05078125], [-0.55859375, 0.73828125, -0.55859375, 0.73828125,
        -0.55859375, 0.73828125]),
    ("3d", "float32"): ([3.2, 4.83, 5.2, 6.83, 7.2, 8.83], [0.93, 0.09, 0.95, 0.43, 0.4, -0.57], [2.28, -0.050000012],
        [-0.56, 0.74, -0.56, 0.74, -0.56, 0.74]),
    ("3dc", "float32"): ([3.2, 4.2, 5.2, 6.83, 7.83, 8.83], [0.93, 0.09, 0.95, 0.43, 0.4, -0.57], [1.97, 0.26000005],
        [-0.56, -0.56, -0.56, 0.74, 0.74, 0.74]),
    ("4d", "float32"): (D(1296.720029, 70.73514999, 1296.720029), D(1.549999954, -3.869512801, 24.13000015),
        [1.6399995, -0.09000003], D(4.320000172, -0.2433264089, 31.20000029)),
    ("4dwide", "float32"): (D(132289.0399, -69.74860432, 132289.0399), D(23.83000005, -12.18149111, 250.1300001),
        D(23.82999923, -12.55926894, 84.16999971), D(4.00000155, -0.9561939228, 274.5599992)),
    ("5dc", "float32"): (D(1296.720041, 71.84308443, 1296.720041), D(1.549999954, -3.869512801, 24.13000015), [3.61,
        -2.06], D(4.320000172, 2.042891883, 31.20000029)),
    ("5dc", "float16"): (D(1297.027344, 71.8368653, 1297.027344), D(1.549888611, -3.869657068, 24.13069916),
        [3.609375, -2.0605469], D(4.32421875, 2.043481237, 31.20703125)),
    ("5dc", "bfloat16"): (D(1295.828125, 71.84044347, 1295.828125), D(1.541015625, -3.869855231, 24.13085938),
        [3.609375, -2.0625], D(4.3125, 2.038095719, 31.125)),
    ("1x1c", "float32"): (D(8496.24002, 182.0980657, 8496.24002), D(7.279999973, -7.060722327, 61.76000008),
        D(7.280000255, 2.170702879, 27.80000003), D(-16.23999991, 0.9723962901, 64.87999947)),
}


@pytest.mark.parametrize("name,dtype", [(n, "float32") for n in _BIAS_CASES] + [
    (n, dt) for n in ("2d", "5dc") for dt in ("float16", "bfloat16")])
def test_bias_add_gradients(name, dtype):
    """testGradientTensor2D, 3D, 4D, 5D and test1x1Image (NHWC and NCHW; float16 and bfloat16 against TF's values in
    those dtypes: TF's BiasAddGrad sums bfloat16 in another order, within TF's own tolerance)."""
    shape, c, fmt = _BIAS_CASES[name]
    dt = jnp.dtype(dtype)
    n = int(np.prod(shape))
    xv = np.arange(1.0, n + 1.0).reshape(shape)
    bv = np.round(np.random.RandomState(3).rand(c) * 4, 2)
    u = np.round(2 * np.random.RandomState(4).rand(*shape) - 1, 2)
    v = np.round(2 * np.random.RandomState(5).rand(c) - 1, 2)
    x, b = tj.constant(xv, dtype=dt), tj.constant(bv, dtype=dt)
    u, v = tj.constant(u, dtype=dt), tj.constant(v, dtype=dt)
    with tj.GradientTape() as outer:
        outer.watch(u)
        with tj.GradientTape() as tape:
            tape.watch([x, b])
            y = _bias_add(x, b, fmt)
        gx, gb = tape.gradient(y, [x, b], output_gradients=u)
    gg = outer.gradient(gb, u, output_gradients=v)
    assert y.dtype == gx.dtype == gb.dtype == gg.dtype == dt and gg.shape == shape
    tol = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}[dtype]
    for got, want in zip((y, gx, gb, gg), _BIAS[name, dtype]):
        _close(tnp.astype(got, jnp.float32), want, tol, tol)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0), (0, 2), (4, 3, 0), (4, 0, 3), (0, 4, 3)])
def test_bias_add_empty(shape):
    """testEmpty and testEmptyGradient: empty sums, a zero bias gradient."""
    x, b = tj.constant(np.zeros(shape, np.float32)), tj.constant(np.ones(shape[-1:], np.float32))
    with tj.GradientTape() as tape:
        tape.watch([x, b])
        y = _bias_add(x, b)
    gx, gb = tape.gradient(y, [x, b])
    assert y.shape == gx.shape == shape
    np.testing.assert_array_equal(gb.numpy(), np.zeros(shape[-1]))


# -- conv2d gradients (kernel_tests/nn_ops/conv_ops_test.py) -------------------------------------------------
# testConv2D2x2Depth3ValidBackpropInput/Filter, StrideTwoFilterOneSame and KernelSizeMatchesInputSize are in
# test_tf_nn_ops_port.py. TF's conv2d_backprop_input(filter=1, 2, 3, ..., out_backprop=1, 2, 3, ...) and
# conv2d_backprop_filter(input=1, 2, 3, ...) are the x and w gradients of conv2d(x=1, 2, .., w=1, 2, ...) for the
# upstream gradient 1, 2, 3, ...; the dilation cases take tf.gradients of the convolution (upstream ones).

_DN = ("NHWC", "HWIO", "NHWC")


def _conv(x, w, strides, padding, dilations=(1, 1), groups=1):
    padding = padding if isinstance(padding, str) else tuple(tuple(p) for p in padding)
    return tj.nn.conv(x, w, tuple(strides), padding, rhs_dilation=tuple(dilations), dimension_numbers=_DN,
                      feature_group_count=groups)


def _counting_from_1(shape):
    return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape)


_CONV_BACKPROP_CASES = {  # name: (x shape, w shape, strides, padding, dilations)  # TF tests (Backprop...)
    "Depth1Valid": ([1, 2, 3, 1], [2, 2, 1, 1], [1, 1], "VALID", [1, 1]),  # 2x2Depth1ValidBackpropInput/Filter
    "Empty": ([0, 2, 3, 1], [2, 2, 1, 1], [1, 1], "VALID", [1, 1]),  # EmptyBackpropInput, ...FilterWithEmptyInput
    "Depth3ValidStride1x2": ([1, 3, 6, 1], [2, 2, 1, 1], [1, 2], "VALID", [1, 1]),  # 2x2Depth3Valid...Stride1x2
    "Stride1x1Dilation2x1": ([1, 3, 6, 1], [2, 2, 1, 1], [1, 1], "VALID", [2, 1]),  # 2x2Depth3Valid...Dilation2x1
    "Depth1ValidDilation1x2": ([1, 2, 3, 1], [2, 2, 1, 1], [1, 1], "VALID", [1, 2]),  # 2x2Depth1Valid...Dilation1x2
    "EmptyInputDilation1x2": ([0, 2, 3, 1], [2, 2, 1, 1], [1, 1], "VALID", [1, 2]),  # EmptyBackpropInputDilation1x2
    "Depth3ValidFilterDilation2x2": ([1, 3, 4, 3], [2, 2, 3, 3], [1, 1], "VALID", [2, 2]),
    "KernelSizeMatchesInputSizeDilation2x2": ([1, 3, 3, 1], [2, 2, 1, 2], [1, 1], "VALID", [2, 2]),
    "Depth3ValidInputDilation2x1": ([1, 3, 2, 3], [2, 2, 3, 3], [1, 1], "VALID", [2, 1]),
    # explicit padding: testConv2D2x2Depth1Padding*BackpropInput / *BackpropFilter
    "Padding0x0_a": ([1, 2, 3, 1], [2, 2, 1, 1], [1, 1], [[0, 0], [0, 0]], [1, 1]),
    "Padding0x0_b": ([1, 3, 4, 2], [2, 2, 2, 3], [2, 2], [[0, 0], [0, 0]], [1, 1]),
    "Padding1x1_a": ([1, 2, 3, 1], [2, 2, 1, 2], [1, 1], [[1, 1], [1, 1]], [1, 1]),
    "Padding1x1_b": ([1, 2, 3, 2], [1, 1, 2, 1], [1, 2], [[1, 1], [1, 1]], [1, 1]),
    "Padding1x1_c": ([1, 4, 3, 1], [2, 2, 1, 1], [1, 2], [[1, 1], [1, 1]], [2, 2]),
    "Padding2x2_a": ([2, 3, 1, 1], [2, 1, 1, 1], [3, 1], [[2, 2], [2, 2]], [1, 1]),
    "Padding2x2_b": ([1, 3, 6, 1], [3, 2, 1, 1], [1, 2], [[2, 2], [2, 2]], [2, 3]),
    "Padding_1_8_4_1_a": ([1, 2, 3, 1], [2, 2, 1, 1], [1, 1], [[1, 8], [4, 2]], [1, 1]),
    "Padding_1_8_4_1_b": ([1, 5, 3, 1], [3, 2, 1, 1], [3, 1], [[1, 8], [4, 2]], [1, 1]),
    "Padding_5_0_2_2_a": ([1, 3, 3, 1], [2, 1, 1, 1], [1, 1], [[5, 0], [2, 2]], [1, 1]),
    "Padding_5_0_2_2_b": ([1, 4, 2, 1], [3, 3, 1, 1], [1, 2], [[5, 0], [2, 2]], [2, 1]),
}
_CONV_BACKPROP = {  # name: (output shape, x and w gradients for upstream 1, 2, 3, ..., then for ones)
    "Depth1Valid": ([1, 1, 2, 1], [1.0, 4.0, 4.0, 3.0, 10.0, 8.0], [5.0, 8.0, 14.0, 17.0], [1.0, 3.0, 2.0, 3.0, 7.0,
        4.0], [3.0, 5.0, 9.0, 11.0]),
    "Empty": ([0, 1, 2, 1], [], [0.0, 0.0, 0.0, 0.0], [], [0.0, 0.0, 0.0, 0.0]),
    "Depth3ValidStride1x2": ([1, 2, 3, 1], [1.0, 2.0, 2.0, 4.0, 3.0, 6.0, 7.0, 12.0, 11.0, 18.0, 15.0, 24.0, 12.0,
        16.0, 15.0, 20.0, 18.0, 24.0], [161.0, 182.0, 287.0, 308.0], [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 4.0, 6.0, 4.0,
        6.0, 4.0, 6.0, 3.0, 4.0, 3.0, 4.0, 3.0, 4.0], [36.0, 42.0, 72.0, 78.0]),
    "Stride1x1Dilation2x1": ([1, 1, 5, 1], [1.0, 4.0, 7.0, 10.0, 13.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 10.0,
        17.0, 24.0, 31.0, 20.0], [55.0, 70.0, 235.0, 250.0], [1.0, 3.0, 3.0, 3.0, 3.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 3.0, 7.0, 7.0, 7.0, 7.0, 4.0], [15.0, 20.0, 75.0, 80.0]),
    "Depth1ValidDilation1x2": ([1, 1, 1, 1], [1.0, 0.0, 2.0, 3.0, 0.0, 4.0], [1.0, 3.0, 4.0, 6.0], [1.0, 0.0, 2.0,
        3.0, 0.0, 4.0], [1.0, 3.0, 4.0, 6.0]),
    "EmptyInputDilation1x2": ([0, 1, 1, 1], [], [0.0, 0.0, 0.0, 0.0], [], [0.0, 0.0, 0.0, 0.0]),
    "Depth3ValidFilterDilation2x2": ([1, 1, 2, 3], [14.0, 32.0, 50.0, 32.0, 77.0, 122.0, 68.0, 86.0, 104.0, 167.0,
        212.0, 257.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 122.0, 140.0, 158.0, 302.0, 347.0,
        392.0, 176.0, 194.0, 212.0, 437.0, 482.0, 527.0], [17.0, 22.0, 27.0, 22.0, 29.0, 36.0, 27.0, 36.0, 45.0, 47.0,
        64.0, 81.0, 52.0, 71.0, 90.0, 57.0, 78.0, 99.0, 137.0, 190.0, 243.0, 142.0, 197.0, 252.0, 147.0, 204.0, 261.0,
        167.0, 232.0, 297.0, 172.0, 239.0, 306.0, 177.0, 246.0, 315.0], [6.0, 15.0, 24.0, 6.0, 15.0, 24.0, 33.0, 42.0,
        51.0, 33.0, 42.0, 51.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 60.0, 69.0, 78.0, 60.0,
        69.0, 78.0, 87.0, 96.0, 105.0, 87.0, 96.0, 105.0], [5.0, 5.0, 5.0, 7.0, 7.0, 7.0, 9.0, 9.0, 9.0, 17.0, 17.0,
        17.0, 19.0, 19.0, 19.0, 21.0, 21.0, 21.0, 53.0, 53.0, 53.0, 55.0, 55.0, 55.0, 57.0, 57.0, 57.0, 65.0, 65.0,
        65.0, 67.0, 67.0, 67.0, 69.0, 69.0, 69.0]),
    "KernelSizeMatchesInputSizeDilation2x2": ([1, 1, 1, 2], [5.0, 0.0, 11.0, 0.0, 0.0, 0.0, 17.0, 0.0, 23.0], [1.0,
        2.0, 3.0, 6.0, 7.0, 14.0, 9.0, 18.0], [3.0, 0.0, 7.0, 0.0, 0.0, 0.0, 11.0, 0.0, 15.0], [1.0, 1.0, 3.0, 3.0,
        7.0, 7.0, 9.0, 9.0]),
    "Depth3ValidInputDilation2x1": ([1, 1, 1, 3], [14.0, 32.0, 50.0, 68.0, 86.0, 104.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        122.0, 140.0, 158.0, 176.0, 194.0, 212.0], [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 3.0, 6.0, 9.0, 4.0, 8.0, 12.0, 5.0,
        10.0, 15.0, 6.0, 12.0, 18.0, 13.0, 26.0, 39.0, 14.0, 28.0, 42.0, 15.0, 30.0, 45.0, 16.0, 32.0, 48.0, 17.0,
        34.0, 51.0, 18.0, 36.0, 54.0], [6.0, 15.0, 24.0, 33.0, 42.0, 51.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 60.0, 69.0,
        78.0, 87.0, 96.0, 105.0], [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0, 5.0, 5.0, 5.0, 6.0,
        6.0, 6.0, 13.0, 13.0, 13.0, 14.0, 14.0, 14.0, 15.0, 15.0, 15.0, 16.0, 16.0, 16.0, 17.0, 17.0, 17.0, 18.0,
        18.0, 18.0]),
    "Padding0x0_a": ([1, 1, 2, 1], [1.0, 4.0, 4.0, 3.0, 10.0, 8.0], [5.0, 8.0, 14.0, 17.0], [1.0, 3.0, 2.0, 3.0, 7.0,
        4.0], [3.0, 5.0, 9.0, 11.0]),
    "Padding0x0_b": ([1, 1, 2, 3], [14.0, 32.0, 50.0, 68.0, 32.0, 77.0, 122.0, 167.0, 86.0, 104.0, 122.0, 140.0,
        212.0, 257.0, 302.0, 347.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [21.0, 27.0, 33.0, 26.0, 34.0, 42.0,
        31.0, 41.0, 51.0, 36.0, 48.0, 60.0, 61.0, 83.0, 105.0, 66.0, 90.0, 114.0, 71.0, 97.0, 123.0, 76.0, 104.0,
        132.0], [6.0, 15.0, 24.0, 33.0, 6.0, 15.0, 24.0, 33.0, 42.0, 51.0, 60.0, 69.0, 42.0, 51.0, 60.0, 69.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [6.0, 6.0, 6.0, 8.0, 8.0, 8.0, 10.0, 10.0, 10.0, 12.0, 12.0, 12.0, 22.0,
        22.0, 22.0, 24.0, 24.0, 24.0, 26.0, 26.0, 26.0, 28.0, 28.0, 28.0]),
    "Padding1x1_a": ([1, 3, 4, 2], [164.0, 236.0, 308.0, 452.0, 524.0, 596.0], [401.0, 422.0, 359.0, 380.0, 233.0,
        254.0, 191.0, 212.0], [36.0, 36.0, 36.0, 36.0, 36.0, 36.0], [21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0]),
    "Padding1x1_b": ([1, 4, 3, 1], [0.0, 0.0, 5.0, 10.0, 0.0, 0.0, 0.0, 0.0, 8.0, 16.0, 0.0, 0.0], [87.0, 100.0],
        [0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0], [12.0, 14.0]),
    "Padding1x1_c": ([1, 4, 2, 1], [0.0, 10.0, 0.0, 0.0, 26.0, 0.0, 0.0, 46.0, 0.0, 0.0, 38.0, 0.0], [102.0, 87.0,
        108.0, 84.0], [0.0, 3.0, 0.0, 0.0, 10.0, 0.0, 0.0, 10.0, 0.0, 0.0, 7.0, 0.0], [15.0, 15.0, 24.0, 24.0]),
    "Padding2x2_a": ([2, 2, 5, 1], [0.0, 8.0, 16.0, 0.0, 18.0, 36.0], [106.0, 132.0], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0],
        [7.0, 9.0]),
    "Padding2x2_b": ([1, 3, 4, 1], [16.0, 22.0, 20.0, 28.0, 24.0, 34.0, 18.0, 20.0, 21.0, 24.0, 24.0, 28.0, 40.0,
        42.0, 48.0, 52.0, 56.0, 62.0], [103.0, 124.0, 723.0, 696.0, 139.0, 100.0], [4.0, 6.0, 4.0, 6.0, 4.0, 6.0, 3.0,
        4.0, 3.0, 4.0, 3.0, 4.0, 8.0, 10.0, 8.0, 10.0, 8.0, 10.0], [9.0, 12.0, 81.0, 90.0, 45.0, 48.0]),
    "Padding_1_8_4_1_a": ([1, 10, 8, 1], [68.0, 78.0, 88.0, 148.0, 158.0, 168.0], [418.0, 397.0, 250.0, 229.0], [10.0,
        10.0, 10.0, 10.0, 10.0, 10.0], [21.0, 21.0, 21.0, 21.0]),
    "Padding_1_8_4_1_b": ([1, 4, 8, 1], [31.0, 38.0, 45.0, 49.0, 60.0, 71.0, 37.0, 40.0, 43.0, 87.0, 94.0, 101.0,
        137.0, 148.0, 159.0], [338.0, 314.0, 502.0, 463.0, 682.0, 625.0], [7.0, 7.0, 7.0, 11.0, 11.0, 11.0, 3.0, 3.0,
        3.0, 7.0, 7.0, 7.0, 11.0, 11.0, 11.0], [24.0, 24.0, 39.0, 39.0, 57.0, 57.0]),
    "Padding_5_0_2_2_a": ([1, 7, 7, 1], [100.0, 103.0, 106.0, 121.0, 124.0, 127.0, 90.0, 92.0, 94.0], [928.0, 1887.0],
        [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0], [21.0, 45.0]),
    "Padding_5_0_2_2_b": ([1, 5, 2, 1], [129.0, 72.0, 181.0, 98.0, 119.0, 64.0, 151.0, 80.0], [0.0, 0.0, 0.0, 38.0,
        56.0, 34.0, 132.0, 160.0, 116.0], [26.0, 13.0, 26.0, 13.0, 16.0, 8.0, 16.0, 8.0], [0.0, 0.0, 0.0, 4.0, 6.0,
        4.0, 16.0, 20.0, 16.0]),
}


@pytest.mark.parametrize("name", list(_CONV_BACKPROP_CASES))
def test_conv_backprop_input_and_filter(name):
    """Conv2DTest's backprop cases named in _CONV_BACKPROP_CASES (input and filter), with dilations and explicit
    paddings. TF's CPU kernels refuse dilations with explicit padding: those values are TF's gradients of
    conv2d(tf.pad(x), w, "VALID", dilations), the references TF's test builds. Empty batches: TF's output shape
    without oneDNN (oneDNN's kernel returns the input's shape)."""
    xs, ws, strides, padding, dilations = _CONV_BACKPROP_CASES[name]
    y_shape, want_dx, want_dw, want_dx1, want_dw1 = _CONV_BACKPROP[name]
    x, w = tj.constant(_counting_from_1(xs)), tj.constant(_counting_from_1(ws))
    with tj.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = _conv(x, w, strides, padding, dilations)
    assert y.shape == tuple(y_shape)
    for upstream, wants in ((_counting_from_1(y_shape), (want_dx, want_dw)), (None, (want_dx1, want_dw1))):
        dx, dw = tape.gradient(y, [x, w], output_gradients=upstream)
        assert dx.shape == tuple(xs) and dw.shape == tuple(ws)
        _close(dx, wants[0], 1e-6)
        _close(dw, wants[1], 1e-6)


def test_conv_backprop_degenerate_and_empty_filter():
    """testConv2DBackpropInputDegenerateBackpropInput (an output of width 0: a zero x gradient; TF's filter gradient
    there is uninitialized memory, not compared) and testConv2DEmptyBackpropFilter (an output depth of 0, TF
    without oneDNN: a zero x gradient, an empty filter gradient)."""
    for xs, ws, strides, y_shape in (([3, 1, 1, 2], [1, 3, 2, 3], [1, 2], (3, 1, 0, 3)),
                                     ([1, 2, 3, 1], [2, 2, 1, 0], [1, 1], (1, 1, 2, 0))):
        x, w = tj.constant(_counting_from_1(xs)), tj.constant(_counting_from_1(ws))
        with tj.GradientTape() as tape:
            tape.watch([x, w])
            y = _conv(x, w, strides, "VALID")
        assert y.shape == y_shape
        dx, dw = tape.gradient(y, [x, w])
        np.testing.assert_array_equal(dx.numpy(), np.zeros(xs, np.float32))
        assert dw.shape == tuple(ws)


# ConstructAndTestGradient: x = arange(n) / n, w = arange(m) / m (TF's input_data and filter_data); TF checks the
# Jacobians against finite differences in float32 and float16's against float32's; here the vector-Jacobian
# products for the upstream gradient cos(0.7 * arange) against TF's tape gradients, in both dtypes.
_CONV_GRADIENT_CASES = {  # name: (batch, rows, cols, filter rows, filter cols, in depth, out depth, strides, padding,
    # groups); the tests testInputGradient<name> and testFilterGradient<name> (_in/_f: only one of them)
    "ValidPaddingStrideOne_in": (2, 5, 4, 3, 3, 2, 3, (1, 1), "VALID", 1),
    "ValidPaddingStrideOne_f": (4, 6, 5, 2, 2, 2, 3, (1, 1), "VALID", 1),
    "ValidPaddingStrideTwo_in": (2, 4, 5, 3, 3, 2, 3, (2, 2), "VALID", 1),
    "ValidPaddingStrideTwo_f": (4, 6, 5, 2, 2, 2, 3, (2, 2), "VALID", 1),
    "ValidPaddingStrideThree_in": (2, 7, 6, 3, 3, 4, 5, (3, 3), "VALID", 1),
    "ValidPaddingStrideThree_f": (2, 8, 7, 4, 4, 2, 3, (3, 3), "VALID", 1),
    "SamePaddingStrideOne_in": (2, 7, 6, 3, 3, 2, 3, (1, 1), "SAME", 1),
    "SamePaddingStrideOne_f": (4, 6, 5, 2, 2, 2, 3, (1, 1), "SAME", 1),
    "SamePaddingStrideTwo_in": (2, 5, 4, 3, 3, 3, 3, (2, 2), "SAME", 1),
    "SamePaddingStrideTwo_f": (4, 6, 5, 2, 2, 2, 3, (2, 2), "SAME", 1),
    "SamePaddingStrideThree_in": (2, 7, 6, 3, 3, 4, 5, (3, 3), "SAME", 1),
    "SamePaddingStrideThree_f": (2, 8, 7, 4, 4, 2, 3, (3, 3), "SAME", 1),
    "SamePaddingStride2x1_f": (2, 8, 7, 4, 4, 2, 3, (2, 1), "SAME", 1),
    "KernelSizeMatchesInputSize": (2, 4, 3, 4, 3, 2, 3, (1, 1), "VALID", 1),
    "1x1PaddingStrideOne": (2, 5, 4, 3, 3, 2, 3, (1, 1), [[1, 1], [1, 1]], 1),
    "1x1PaddingStrideTwo": (2, 4, 5, 3, 3, 2, 3, (2, 2), [[1, 1], [1, 1]], 1),
    "2x2PaddingStrideOne": (2, 5, 4, 3, 3, 2, 3, (1, 1), [[2, 2], [2, 2]], 1),
    "1_2_3_4PaddingStride3x2": (2, 8, 5, 4, 2, 3, 2, (3, 2), [[1, 2], [3, 4]], 1),
    "4_3_2_1PaddingStride2x1": (3, 5, 7, 3, 2, 1, 2, (2, 1), [[4, 3], [2, 1]], 1),
    "0_0_0_5PaddingStride1x2": (2, 6, 7, 3, 4, 3, 2, (1, 2), [[0, 0], [0, 5]], 1),
    "GroupConv": (2, 5, 4, 3, 3, 4, 6, (1, 1), "VALID", 2),  # test{Input,Filter}GradientGroupConv
}
_CONV_GRADIENT = {  # (name, dtype): (y, x gradient, w gradient)
    ("ValidPaddingStrideOne_in", "float32"): (D(172.7249969, -1.813757395, 172.7249969), D(0.8283484913, -3.113685113,
        66.34167198), D(-4.071729027, -0.007824848979, 9.371160947)),
    ("ValidPaddingStrideOne_f", "float32"): (D(469.3333327, -5.159476447, 469.3333327), D(-3.509883035, 21.00097616,
        257.7359976), D(-10.47229055, 0.4260959537, 10.47229055)),
    ("ValidPaddingStrideTwo_in", "float32"): (D(52.15000117, 14.00097198, 52.15000117), D(16.76965454, -19.4857184,
        48.21214339), D(26.41060773, -0.06010917945, 26.41060773)),
    ("ValidPaddingStrideTwo_f", "float32"): (D(139.6499988, -0.9508220291, 139.6499988), D(0.7307850607,
        -0.5367900464, 151.5293989), D(-2.507972069, -0.4056498184, 6.801604636)),
    ("ValidPaddingStrideThree_in", "float32"): (D(355.6388865, 4.229967685, 355.6388865), D(23.27698517, 0.2439812619,
        270.4448627), D(7.880716074, -0.2991750845, 59.86996694)),
    ("ValidPaddingStrideThree_f", "float32"): (D(192.8392837, -15.97027323, 192.8392837), D(-8.100703017,
        -1.537819803, 175.4668562), D(-31.30053017, 0.5166786553, 31.34519086)),
    ("SamePaddingStrideOne_in", "float32"): (D(919.0211677, -47.05747109, 919.0211677), D(-85.70629872, 2.062183681,
        165.7284496), D(-92.79911531, -2.503308659, 124.9295557)),
    ("SamePaddingStrideOne_f", "float32"): (D(542.5208333, 11.97685636, 542.5208333), D(24.58366677, 4.637875225,
        182.5773119), D(15.35580014, -5.08087811, 21.52888517)),
    ("SamePaddingStrideTwo_in", "float32"): (D(148.7499987, 10.50699835, 148.7499987), D(29.26028943, -4.387341954,
        104.28931), D(4.260965731, 0.02922947396, 47.45348758)),
    ("SamePaddingStrideTwo_f", "float32"): (D(166.6624991, -13.33226298, 166.6624991), D(-21.61481408, -13.82213351,
        206.0893488), D(-20.03666272, 0.354488459, 38.6613149)),
    ("SamePaddingStrideThree_in", "float32"): (D(406.6501303, -17.15649224, 406.6501303), D(-3.662524506, 5.381447605,
        249.0908923), D(-38.19225257, -0.9436179895, 53.26913027)),
    ("SamePaddingStrideThree_f", "float32"): (D(267.1936353, -30.56991792, 267.1936353), D(-54.22385208, -1.201712279,
        232.3587391), D(-63.86429622, 0.8037966827, 97.74373045)),
    ("SamePaddingStride2x1_f", "float32"): (D(1016.960939, -4.301520798, 1016.960939), D(-6.54093188, 5.394696276,
        166.7845358), D(-9.449688549, 1.547782107, 13.15979716)),
    ("KernelSizeMatchesInputSize", "float32"): (D(40.74999928, -15.99529272, 40.74999928), D(-5.730350537,
        -5.589528373, 50.96748371), D(-31.18241742, -0.2833872924, 31.18241742)),
    ("1x1PaddingStrideOne", "float32"): (D(395.5638861, 3.535628542, 395.5638861), D(6.075936641, -3.536271932,
        44.31620656), D(7.218826029, 2.783267022, 8.830062597)),
    ("1x1PaddingStrideOne", "float16"): (D(395.5717773, 3.532437346, 395.5717773), D(6.056419373, -3.535856523,
        44.30905914), D(7.217769623, 2.788328984, 8.835300446)),
    ("1x1PaddingStrideTwo", "float32"): (D(118.3388882, -13.47468252, 118.3388882), D(-23.423006, -7.1022233,
        84.66593891), D(-24.80328139, -1.887789553, 33.65154358)),
    ("1x1PaddingStrideTwo", "float16"): (D(118.3374023, -13.47421155, 118.3374023), D(-23.43261719, -7.107793574,
        84.67285156), D(-24.80879211, -1.880958795, 33.65486145)),
    ("2x2PaddingStrideOne", "float32"): (D(523.750002, 1.550203334, 523.750002), D(4.03182476, -2.491063841,
        58.31465762), D(0.7215110064, -64.68368124, 169.6132513)),
    ("2x2PaddingStrideOne", "float16"): (D(523.7510223, 1.545820347, 523.7510223), D(4.035705566, -2.4842413,
        58.28149414), D(0.732421875, -64.68482341, 169.6132812)),
    ("1_2_3_4PaddingStride3x2", "float32"): (D(151.4730902, 10.16866516, 151.4730902), D(-0.7354248501, 2.492034939,
        164.1973159), D(25.47104118, 0.201182919, 30.42447742)),
    ("1_2_3_4PaddingStride3x2", "float16"): (D(151.4709473, 10.17427863, 151.4709473), D(-0.7297973633, 2.491744592,
        164.1980591), D(25.47595215, 0.1998156209, 30.4317627)),
    ("4_3_2_1PaddingStride2x1", "float32"): (D(152.5333368, -19.84544327, 152.5333368), D(-42.45564209, -0.7279672703,
        140.0627917), D(-38.86383671, -4.516119638, 46.1388889)),
    ("4_3_2_1PaddingStride2x1", "float16"): (D(152.5119019, -19.84247836, 152.5119019), D(-42.45910645, -0.7334133012,
        140.0640869), D(-38.85644531, -4.510048384, 46.13183594)),
    ("0_0_0_5PaddingStride1x2", "float32"): (D(443.3769855, 34.87286392, 443.3769855), D(-18.11985065, 0.3865238028,
        371.1936873), D(73.57559058, -0.02138342186, 81.66543332)),
    ("0_0_0_5PaddingStride1x2", "float16"): (D(443.3706055, 34.87814764, 443.3706055), D(-18.15731049, 0.394979345,
        371.1918564), D(73.56274414, -0.02453584728, 81.6550293)),
    ("GroupConv", "float32"): (D(350.4187495, -0.7957497808, 350.4187495), D(1.706749339, -4.809112281, 143.1620921),
        D(-2.679567695, 0.02518125952, 27.11828607)),
    ("GroupConv", "float16"): (D(350.4121094, -0.8018499593, 350.4121094), D(1.697570801, -4.805300469, 143.1542664),
        D(-2.680999756, 0.02645464067, 27.12051392)),
}


@pytest.mark.parametrize("name", list(_CONV_GRADIENT_CASES))
def test_conv_gradient(name):
    """Conv2DTest.ConstructAndTestGradient's cases (float32, and float16 for the cases with explicit padding and
    the group convolution): the output and the x and w gradients."""
    b, r, c, fr, fc, ind, outd, strides, padding, groups = _CONV_GRADIENT_CASES[name]
    xs, ws = (b, r, c, ind), (fr, fc, ind // groups, outd)
    n, m = int(np.prod(xs)), int(np.prod(ws))
    dtypes = ["float32"] + (["float16"] if not isinstance(padding, str) or groups > 1 else [])
    for dtype in dtypes:
        x = tj.constant(np.arange(n).reshape(xs) / n, dtype=dtype)
        w = tj.constant(np.arange(m).reshape(ws) / m, dtype=dtype)
        with tj.GradientTape() as tape:
            tape.watch([x, w])
            y = _conv(x, w, strides, padding, groups=groups)
        upstream = np.cos(np.arange(y.size) * 0.7).reshape(y.shape).astype(dtype)
        dx, dw = tape.gradient(y, [x, w], output_gradients=upstream)
        assert y.dtype == dx.dtype == dw.dtype == np.dtype(dtype)
        tol = 1e-3 if dtype == "float16" else 1e-5
        for got, want in zip((y, dx, dw), _CONV_GRADIENT[name, dtype]):
            _close(got, want, tol)


@pytest.mark.parametrize("name", ["SamePaddingStrideTwo_in", "1_2_3_4PaddingStride3x2", "GroupConv"])
def test_conv_gradient_nchw(name):
    """ConstructAndTestGradient's data_format="NCHW" configurations (TF runs them on GPUs): tj.nn.conv's default
    NCHW/OIHW layout, by transposes, gives TF's NHWC values."""
    b, r, c, fr, fc, ind, outd, strides, padding, groups = _CONV_GRADIENT_CASES[name]
    xs, ws = (b, r, c, ind), (fr, fc, ind // groups, outd)
    n, m = int(np.prod(xs)), int(np.prod(ws))
    x = tj.constant(np.arange(n).reshape(xs) / n, dtype="float32")
    w = tj.constant(np.arange(m).reshape(ws) / m, dtype="float32")
    with tj.GradientTape() as tape:
        tape.watch([x, w])
        y = tj.nn.conv(tnp.transpose(x, (0, 3, 1, 2)), tnp.transpose(w, (3, 2, 0, 1)), strides,
                       padding if isinstance(padding, str) else tuple(tuple(p) for p in padding),
                       feature_group_count=groups)
        y = tnp.transpose(y, (0, 2, 3, 1))
    upstream = np.cos(np.arange(y.size) * 0.7).reshape(y.shape).astype(np.float32)
    dx, dw = tape.gradient(y, [x, w], output_gradients=upstream)
    for got, want in zip((y, dx, dw), _CONV_GRADIENT[name, "float32"]):
        _close(got, want, 1e-5)
