"""An MLP and a small CNN written as tj.Modules, trained with a tj.optimizers.Adam step compiled by
tj.function.

The layers build themselves on their first call, from the input's shape (as Keras layers): the first
call of the compiled train step traces it twice, as TF's (the first trace creates the Variables and the
optimizer's state), and later calls run the compiled program.

    python examples/models.py [--steps 100]
"""
from __future__ import annotations

import argparse

import numpy as np

import tapejax as tj
import tapejax.numpy as tnp


class Dense(tj.Module):
    def __init__(self, units: int, activation=None, seed: int = 0, name=None):
        super().__init__(name=name)
        self.units, self.activation, self.seed = units, activation, seed
        self.kernel = self.bias = None

    def __call__(self, x):
        if self.kernel is None:  # lazy build: the first call knows the input width
            n_in = x.shape[-1]
            with self.name_scope:
                init = tj.nn.initializers.he_normal()(tj.random.key(self.seed), (n_in, self.units), np.float32)
                self.kernel = tj.Variable(init, name="kernel")
                self.bias = tj.Variable(np.zeros(self.units, np.float32), name="bias")
        y = x @ self.kernel + self.bias
        return self.activation(y) if self.activation else y


class Conv2D(tj.Module):
    """3x3 'SAME' convolution on NHWC images (kernel HWIO)."""

    def __init__(self, filters: int, seed: int = 0, name=None):
        super().__init__(name=name)
        self.filters, self.seed = filters, seed
        self.kernel = self.bias = None

    def __call__(self, x):
        if self.kernel is None:
            c_in = x.shape[-1]
            with self.name_scope:
                init = tj.nn.initializers.he_normal()(tj.random.key(self.seed), (3, 3, c_in, self.filters), np.float32)
                self.kernel = tj.Variable(init, name="kernel")
                self.bias = tj.Variable(np.zeros(self.filters, np.float32), name="bias")
        y = tj.nn.conv(x, self.kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return tj.nn.relu(y + self.bias)


class MLP(tj.Module):
    def __init__(self, hidden=(32, 32), classes: int = 3, name=None):
        super().__init__(name=name)
        self.layers = [Dense(h, tj.nn.relu, seed=i) for i, h in enumerate(hidden)]
        self.layers.append(Dense(classes, seed=len(hidden)))

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class CNN(tj.Module):
    def __init__(self, classes: int = 3, name=None):
        super().__init__(name=name)
        self.conv1, self.conv2 = Conv2D(8, seed=10), Conv2D(16, seed=11)
        self.head = Dense(classes, seed=12)

    def __call__(self, x):
        x = tj.nn.max_pool(self.conv1(x), (2, 2), strides=(2, 2))
        x = tj.nn.max_pool(self.conv2(x), (2, 2), strides=(2, 2))
        return self.head(tnp.reshape(x, (x.shape[0], -1)))


def make_train_step(model: tj.Module, optimizer: tj.optimizers.Optimizer):
    @tj.function
    def train_step(x, labels):
        with tj.GradientTape() as tape:
            logits = model(x)
            loss = tnp.mean(tj.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tj.clip_by_global_norm(grads, 5.0)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step


def synthetic(kind: str, n: int = 96, seed: int = 0):
    """Three classes told apart by where the signal sits: vectors for the MLP, 8x8 images for the CNN."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n).astype(np.int32)
    if kind == "mlp":
        x = rng.normal(size=(n, 12)).astype(np.float32) * 0.3
        x[np.arange(n), labels * 4] += 2.0
    else:
        x = rng.normal(size=(n, 8, 8, 1)).astype(np.float32) * 0.3
        for i, c in enumerate(labels):
            x[i, 2 * c:2 * c + 3, 2 * c:2 * c + 3, 0] += 2.0
    return tj.constant(x), tj.constant(labels)


def train(kind: str, steps: int, log=print):
    model = MLP() if kind == "mlp" else CNN()
    optimizer = tj.optimizers.Adam(learning_rate=0.01)
    step = make_train_step(model, optimizer)
    x, labels = synthetic(kind)
    losses = []
    for i in range(1, steps + 1):
        losses.append(float(step(x, labels)))
        if i == 1 or i % max(1, steps // 5) == 0:
            log(f"{kind}  step {i:4d}  loss {losses[-1]:.4f}")
    log(f"{kind}: {len(model.trainable_variables)} trainable variables "
        f"({', '.join(v.name for v in model.trainable_variables[:2])}, ...), "
        f"{len(optimizer.variables)} optimizer variables, {int(optimizer.iterations.numpy())} steps")
    return model, losses


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    for kind in ("mlp", "cnn"):
        train(kind, args.steps)
