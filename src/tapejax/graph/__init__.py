"""Compiled (graph) mode: tj.function, tj.gradients, tj.differentiate."""
