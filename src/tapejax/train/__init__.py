"""Training: ``Module`` (tf.Module's tracking), ``optimizers`` (Keras's optimizers on optax), gradient
clipping, and checkpoints."""
from .module import Module
from . import optimizers
from .optimizers import clip_by_norm, clip_by_global_norm, global_norm

from .checkpoint import Checkpoint, CheckpointManager, LoadStatus, latest_checkpoint, list_variables

__all__ = ["Checkpoint", "CheckpointManager", "LoadStatus", "latest_checkpoint", "list_variables", "Module", "optimizers", "clip_by_norm", "clip_by_global_norm", "global_norm"]
