"""A policy as a file of numpy arrays: a small multi-layer perceptron from the encoding's planes to a logit per
action integer, for the game it was trained on (docs/learning.md, "From an environment to a tournament").

The file is an ``.npz`` (``numpy.savez``) holding the layers ``w0, b0, w1, b1, ...`` (each layer ``x @ w + b``,
the activation between layers, none after the last), ``activation`` (``relu`` or ``tanh``), and ``game`` and
``options`` (the game's name and its options as JSON), so that an agent refuses a model trained for another
game or board size instead of playing nonsense.  Whatever a policy was trained with (numpy, PyTorch,
Stable-Baselines3), its weights written with :meth:`MLPPolicy.save` make a model the referee's agents read:
numpy is all a sealed agent needs to play it.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The activations a model may name, applied between its layers.
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"relu": lambda x: np.maximum(x, 0.0), "tanh": np.tanh}


class MLPPolicy:
    """Logits over a game's action integers from its observation planes (flat), and the masked choice."""

    def __init__(self, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray], game: str,
                 options: dict[str, Any], activation: str = "relu"):
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
        if not weights or len(weights) != len(biases):
            raise ValueError(f"a policy needs as many biases as weights, and one of each at least "
                             f"({len(weights)} and {len(biases)})")
        for i, (w, b) in enumerate(zip(weights, biases)):
            if w.ndim != 2 or b.shape != (w.shape[1],) or (i and w.shape[0] != weights[i - 1].shape[1]):
                raise ValueError(f"layer {i}: weights {w.shape} and biases {b.shape} do not follow the layer before")
        self.weights = [np.asarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.game = game
        self.options = dict(options)
        self.activation = activation

    @property
    def inputs(self) -> int:
        return int(self.weights[0].shape[0])

    @property
    def outputs(self) -> int:
        return int(self.weights[-1].shape[1])

    @classmethod
    def new(cls, game: str, options: dict[str, Any], inputs: int, outputs: int, hidden: Sequence[int] = (64,),
            rng: np.random.Generator | None = None, activation: str = "relu") -> MLPPolicy:
        """Random weights (He's scale), zero biases: a policy to train."""
        rng = rng or np.random.default_rng()
        sizes = [inputs, *hidden, outputs]
        weights = [rng.normal(0.0, np.sqrt(2.0 / a), (a, b)) for a, b in zip(sizes, sizes[1:])]
        # The last layer starts small: every legal action about equally likely, as a learner should begin.
        weights[-1] *= 0.1
        return cls(weights, [np.zeros(b) for b in sizes[1:]], game, options, activation)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """One logit per action integer: a row for one observation (of any shape), rows for several."""
        x = np.asarray(observation, np.float32)
        single = x.size == self.inputs
        x = x.reshape(1 if single else -1, self.inputs)
        act = ACTIVATIONS[self.activation]
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            x = act(x @ w + b)
        out = x @ self.weights[-1] + self.biases[-1]
        return np.asarray(out[0] if single else out)

    def probabilities(self, observation: np.ndarray, legal: Sequence[int] | np.ndarray) -> np.ndarray:
        """The softmax of the logits over the ``legal`` integers (in their order)."""
        chosen = self.logits(observation)[np.asarray(legal)]
        chosen = np.exp(chosen - chosen.max())
        return np.asarray(chosen / chosen.sum())

    def choose(self, observation: np.ndarray, legal: Sequence[int] | np.ndarray,
               rng: np.random.Generator | None = None) -> int:
        """The legal integer of the highest logit; drawn from :meth:`probabilities` when ``rng`` is given."""
        if len(legal) == 0:
            raise ValueError("no legal action to choose from")
        if rng is None:
            return int(legal[int(np.argmax(self.logits(observation)[np.asarray(legal)]))])
        return int(legal[int(rng.choice(len(legal), p=self.probabilities(observation, legal)))])

    def save(self, path: str | Path) -> None:
        """Write the model (``.npz``): the layers, the activation, the game and its options."""
        arrays: dict[str, Any] = {}  # numpy's stubs type savez's keywords as its own flags
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        with open(path, "wb") as f:  # a file object: numpy would add ".npz" to a name without it
            np.savez_compressed(f, activation=np.array(self.activation), game=np.array(self.game),
                                options=np.array(json.dumps(self.options, sort_keys=True)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> MLPPolicy:
        """Read a model :meth:`save` wrote; ValueError naming the file if it is not one."""
        try:
            # No pickles: a model file is data, and loading one must not run code.
            with np.load(path, allow_pickle=False) as data:
                count = sum(1 for name in data.files if name.startswith("w"))
                weights = [data[f"w{i}"] for i in range(count)]
                biases = [data[f"b{i}"] for i in range(count)]
                game, activation = str(data["game"]), str(data["activation"])
                options = json.loads(str(data["options"]))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a policy model (.npz with w0, b0, ..., activation, game, options): "
                             f"{exc}") from exc
        return cls(weights, biases, game, options, activation)

    def check(self, game: str, options: dict[str, Any], inputs: int, outputs: int) -> None:
        """ValueError unless the model was trained for this game and fits its encoding's sizes.

        Options that leave the sizes alone (Infinitron's chaos, or the seed that places its cities, which a
        tournament sets per game) may differ: the planes show the position whatever made it.
        """
        if self.game != game or (self.inputs, self.outputs) != (inputs, outputs):
            raise ValueError(f"the model was trained for {describe(self.game, self.options)} ({self.inputs} "
                             f"observation values, {self.outputs} action integers), not for {describe(game, options)}"
                             f" ({inputs} and {outputs})")


def describe(game: str, options: dict[str, Any]) -> str:
    """``cachex (n=4)``: a game with its options, as a message names it."""
    shown = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{game} ({shown})" if shown else game
