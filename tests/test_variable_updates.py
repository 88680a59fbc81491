"""TF's partial Variable updates and reads: ``v[index].assign(value)``, ``scatter_nd_update/add/sub/max/min``,
``sparse_read`` and ``gather_nd``. Expected values are TF 2.21's for the same calls (run side by side); errors are
TF's cases, as Python exceptions naming the problem (IndexError out of bounds, as tapejax's indexing)."""
import jax
import numpy as np
import pytest

import tapejax as tj

tnp = tj.numpy


def test_slice_assign_writes_the_entries_the_slice_reads_and_returns_the_variable():
    v = tj.Variable([1.0, 2.0, 3.0, 4.0])
    assert v[1:3].assign([9.0, 8.0]) is v
    np.testing.assert_array_equal(v.numpy(), [1, 9, 8, 4])
    v[1:3].assign(5.0)  # a value broadcast to the slice
    np.testing.assert_array_equal(v.numpy(), [1, 5, 5, 4])
    v[1:3].assign([1, 2])  # Python ints into a float variable, as TF converts them
    np.testing.assert_array_equal(v.numpy(), [1, 1, 2, 4])
    m = tj.Variable(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    m[:, 1].assign([7.0, 7.0, 7.0])
    m[1].assign(tnp.zeros(4))
    m[::-1, 0].assign([1.0, 2.0, 3.0])
    m[..., 2].assign([5.0, 5.0, 5.0])
    np.testing.assert_array_equal(m.numpy(), [[3, 7, 5, 3], [2, 0, 5, 0], [1, 7, 5, 11]])
    m[None, 0].assign(tnp.ones((1, 4)))
    np.testing.assert_array_equal(m.numpy()[0], [1, 1, 1, 1])


def test_slice_assign_refuses_what_tf_refuses_and_leaves_the_variable():
    v = tj.Variable([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"shape \(3,\) does not broadcast to the slice's shape \(2,\)"):
        v[1:3].assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="more than once"):
        v[np.array([0, 0])].assign([1.0, 2.0])
    with pytest.raises(TypeError, match="without loss"):
        tj.Variable([1, 2])[0].assign(1.5)
    with pytest.raises(IndexError, match="out of bounds"):
        v[5].assign(1.0)
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3, 4])
    # only a slice of a Variable has assign: a Tensor stays immutable (hasattr is False, as TF's eager tensors)
    assert not hasattr(tj.constant([1.0]), "assign") and not hasattr(v + 1.0, "assign")
    assert hasattr(v[0], "assign")


def test_slice_assign_is_not_differentiable_and_works_inside_tj_function():
    v = tj.Variable([1.0, 1.0, 2.0, 4.0])
    x = tj.Variable(3.0)
    with tj.GradientTape() as tape:
        v[0].assign(x * 2)
        z = tnp.sum(v * x)
    assert float(tape.gradient(z, x)) == 13.0  # sum(v) after the assignment, as TF
    np.testing.assert_array_equal(v.numpy(), [6, 1, 2, 4])

    @tj.function
    def f(i):
        v[0:2].assign([0.5, 0.25])
        v[i].assign(7.0)  # a traced index
        return v.read_value()
    np.testing.assert_array_equal(f(tj.constant(3)).numpy(), [0.5, 0.25, 2, 7])
    np.testing.assert_array_equal(v.numpy(), [0.5, 0.25, 2, 7])


def test_scatter_nd_updates_as_tf():
    v = tj.Variable([1.0, 2.0, 3.0, 4.0])
    assert v.scatter_nd_update([[1], [3]], [10.0, 30.0]) is v
    np.testing.assert_array_equal(v.numpy(), [1, 10, 3, 30])
    v.scatter_nd_add([[1], [1]], [1.0, 1.0])  # a repeated index adds each update
    np.testing.assert_array_equal(v.numpy(), [1, 12, 3, 30])
    v.scatter_nd_sub([[0]], [1.0])
    v.scatter_nd_max([[0], [2]], [5.0, -1.0])
    np.testing.assert_array_equal(v.numpy(), [5, 12, 3, 30])
    v.scatter_nd_min([[0], [2]], [5.0, -1.0])
    np.testing.assert_array_equal(v.numpy(), [5, 12, -1, 30])
    m = tj.Variable(np.zeros((2, 3), np.float32))
    m.scatter_nd_update([[1]], [[1.0, 2.0, 3.0]])  # a row
    m.scatter_nd_update([[0, 2]], [9.0])  # an entry
    m.scatter_nd_add(tj.constant([[0, 2]]), [1.0])
    np.testing.assert_array_equal(m.numpy(), [[0, 0, 10], [1, 2, 3]])

    @tj.function
    def f(i):
        m.scatter_nd_update(tnp.stack([i, i])[None], [4.0])
        return m.read_value()
    np.testing.assert_array_equal(f(tj.constant(1)).numpy(), [[0, 0, 10], [1, 4, 3]])


def test_scatter_nd_refuses_bad_indices_and_updates_and_leaves_the_variable():
    v = tj.Variable([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(IndexError, match=r"index \[7\] is out of bounds"):
        v.scatter_nd_update([[7]], [1.0])
    with pytest.raises(IndexError, match=r"index \[-1\] is out of bounds"):  # TF takes no negative index
        v.scatter_nd_update([[-1]], [1.0])
    with pytest.raises(ValueError, match=r"updates must have shape .* = \(1,\)"):
        v.scatter_nd_update([[0]], [1.0, 2.0])
    with pytest.raises(TypeError, match="indices must be integers"):
        v.scatter_nd_add([[0.0]], [1.0])
    with pytest.raises(ValueError, match="rank"):
        v.scatter_nd_add([[0, 0]], [1.0])
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3, 4])


def test_sparse_read_and_gather_nd_with_their_gradients():
    x = tj.Variable([1.0, 2.0, 3.0])
    with tj.GradientTape() as t:
        y = tnp.sum(x.sparse_read([0, 0, 2]) * 2.0)
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [4, 0, 2])
    m = tj.Variable(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(m.gather_nd([[0, 2], [1, 1]]).numpy(), [2, 4])
    np.testing.assert_array_equal(m.gather_nd([[1]]).numpy(), [[3, 4, 5]])
    with tj.GradientTape() as t:
        y = tnp.sum(m.gather_nd([[0, 2], [1, 1]]))
    np.testing.assert_array_equal(t.gradient(y, m).numpy(), [[0, 0, 1], [0, 1, 0]])
    with pytest.raises(IndexError):
        x.sparse_read([9])
    with pytest.raises(IndexError, match="negative"):
        x.sparse_read([-1])
    with pytest.raises(IndexError, match="negative"):
        m.gather_nd([[0, -1]])


def test_a_scatter_watches_the_variable_as_an_access():
    x = tj.Variable([1.0, 2.0, 3.0])
    with tj.GradientTape() as t:
        x.scatter_nd_update([[0]], [5.0])
    assert t.watched_variables() == (x,)
    with tj.GradientTape() as t:
        x[0].assign(1.0)
    assert t.watched_variables() == (x,)


def test_slice_assign_scatter_nd_and_unary_plus_as_tf():
    """TF 2.21's values: ``v[i].assign`` takes a value with extra leading size-1 axes, as TF and NumPy drop them
    (tapejax raised ValueError; a value that does not fit still raises and changes nothing); scatter_nd_update
    with indices of shape (0,) or (n, 0) raises, as TF's (tapejax overwrote the whole variable); ``+v`` is the
    variable's value now, not the variable (which followed later assignments; TF's variables have no unary +)."""
    m = tj.Variable(np.zeros((2, 2), np.float32))
    m[0].assign([[1.0, 2.0]])
    m[:, 1].assign([[5.0, 6.0]])
    np.testing.assert_array_equal(m.numpy(), [[1.0, 5.0], [0.0, 6.0]])
    v = tj.Variable([0.0, 0.0, 0.0])
    v[1].assign([7.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 7.0, 0.0])
    with pytest.raises(ValueError, match="does not broadcast"):
        m[0].assign([[1.0], [2.0]])
    np.testing.assert_array_equal(m.numpy(), [[1.0, 5.0], [0.0, 6.0]])
    w = tj.Variable([1.0, 2.0, 3.0, 4.0])
    for idx, upd in ((np.zeros((0,), np.int32), [5.0] * 4), (np.zeros((2, 0), np.int32), [[5.0] * 4] * 2)):
        with pytest.raises(ValueError, match="name no entry"):
            w.scatter_nd_update(idx, upd)
    w.scatter_nd_update(np.zeros((0, 1), np.int32), np.zeros((0,), np.float32))  # (no update: as TF)
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0, 3.0, 4.0])
    p = +w
    w.assign([0.0, 0.0, 0.0, 0.0])
    assert type(p) is tj.Tensor and p.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
