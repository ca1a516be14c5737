"""The layer sizes of a dense network, whatever its game: how many parameters they
hold and which are allowed. A network's sizes list its layers after the inputs, the
last being its one output."""

from __future__ import annotations


def parameter_count(inputs: int, sizes: list[int]) -> int:
    """Weights and biases of dense layers of ``sizes`` over ``inputs`` inputs."""
    total, fan_in = 0, inputs
    for size in sizes:
        total += size * fan_in + size
        fan_in = size
    return total


def check_layer_sizes(sizes: list[int], max_layers: int) -> None:
    """``ValueError`` unless ``sizes`` are 1 to ``max_layers`` positive sizes ending in
    one output."""
    if not 1 <= len(sizes) <= max_layers or sizes[-1] != 1 or min(sizes) < 1:
        raise ValueError(
            f"layer sizes must be positive, at most {max_layers} layers, and end in one "
            f"output; got {sizes}"
        )
