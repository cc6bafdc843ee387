"""Train a policy for Cachex n = 4 against the random agent: REINFORCE on the Gymnasium environment, in numpy.

    python examples/learning/train_cachex.py --out model.npz

docs/learning.md, "From an environment to a tournament", walks through it.  Each episode is one game in
``referee.learning.gymnasium.SingleAgentEnv`` against ``agents.random_agent``, the learner Red and Blue in turn.
The policy (:class:`referee.learning.policy.MLPPolicy`: the observation planes, one hidden layer, a logit per
action integer) samples its actions from the softmax of its legal logits.  After each batch of games, every
action taken is made more likely when its game went better than the side's average and less likely when worse
(REINFORCE with a baseline), by Adam's steps, which shrink to nothing by the end.  The seed fixes everything:
the same command writes the same model.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from referee.learning.gymnasium import SingleAgentEnv
from referee.learning.policy import MLPPolicy


class Adam:
    """Adam's update for a list of arrays, in place (Kingma and Ba, 2015)."""

    def __init__(self, params: list[np.ndarray], rate: float, beta1: float = 0.9, beta2: float = 0.999):
        self.params, self.rate, self.beta1, self.beta2 = params, rate, beta1, beta2
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            m_hat = m / (1 - self.beta1**self.t)
            v_hat = v / (1 - self.beta2**self.t)
            p -= self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


def play(env: SingleAgentEnv, policy: MLPPolicy, rng: np.random.Generator, seed: int | None,
         greedy: bool = False) -> tuple[list[np.ndarray], list[np.ndarray], list[int], float]:
    """One game: the observations, masks and actions of the learner's turns, and its reward (+1, -1, 0)."""
    observation, info = env.reset(seed=seed)
    seen, masks, taken = [], [], []
    while True:
        legal = np.flatnonzero(observation["action_mask"])
        action = policy.choose(observation["observation"], legal, None if greedy else rng)
        seen.append(observation["observation"].ravel())
        masks.append(observation["action_mask"].astype(bool))
        taken.append(action)
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return seen, masks, taken, float(reward)


def gradients(policy: MLPPolicy, x: np.ndarray, masks: np.ndarray, taken: np.ndarray, advantage: np.ndarray,
              entropy: float) -> list[np.ndarray]:
    """The gradient of -(mean advantage x log-probability of the action taken + entropy x entropy), per array."""
    activations = [x]
    h = x
    for w, b in zip(policy.weights[:-1], policy.biases[:-1]):
        h = np.maximum(h @ w + b, 0.0)
        activations.append(h)
    logits = h @ policy.weights[-1] + policy.biases[-1]
    logits = np.where(masks, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.zeros_like(p)
    onehot[np.arange(len(taken)), taken] = 1.0
    # d(-A log p_a)/d logits = -A (onehot - p); the entropy's gradient is -p (log p + H), 0 off the mask.
    logp = np.where(masks, np.log(np.where(masks, p, 1.0)), 0.0)
    h_now = -(p * logp).sum(axis=1, keepdims=True)
    delta = -advantage[:, None] * (onehot - p) + entropy * p * (logp + h_now)
    delta /= len(taken)
    grads_w, grads_b = [], []
    for i in range(len(policy.weights) - 1, -1, -1):
        grads_w.append(activations[i].T @ delta)
        grads_b.append(delta.sum(axis=0))
        if i:
            delta = (delta @ policy.weights[i].T) * (activations[i] > 0)
    grads_w.reverse()
    grads_b.reverse()
    return [g for pair in zip(grads_w, grads_b) for g in pair]


def win_rate(envs: list[SingleAgentEnv], policy: MLPPolicy, games: int, seed: int) -> float:
    """The share of ``games`` the policy wins playing its most likely actions, half as Red, half as Blue."""
    wins = sum(play(envs[g % 2], policy, np.random.default_rng(0), seed + g, greedy=True)[3] > 0 for g in range(games))
    return wins / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train a Cachex n = 4 policy against the random agent.")
    parser.add_argument("--episodes", type=int, default=100_000, help="games to train on (default 100000)")
    parser.add_argument("--batch", type=int, default=128, help="games per update (default 128)")
    parser.add_argument("--hidden", type=int, default=256, help="units of the hidden layer (default 256)")
    parser.add_argument("--rate", type=float, default=2e-3, help="Adam's first step size (default 0.002)")
    parser.add_argument("--entropy", type=float, default=0.003, help="weight of the entropy bonus (default 0.003)")
    parser.add_argument("--seed", type=int, default=50, help="the seed of everything (default 50)")
    parser.add_argument("--out", default="model.npz", help="where to write the model (default model.npz)")
    parser.add_argument("--check", type=int, default=200, help="games of the final check (default 200)")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    envs = [SingleAgentEnv("cachex", opponent="agents.random_agent", play_as=side, n=4) for side in ("red", "blue")]
    enc = envs[0].encoding
    policy = MLPPolicy.new("cachex", dict(enc.options), int(np.prod(enc.observation_shape)), enc.num_actions,
                           hidden=(args.hidden,), rng=rng)
    params = [a for pair in zip(policy.weights, policy.biases) for a in pair]
    adam = Adam(params, args.rate)
    baseline = [0.0, 0.0]  # each side's running mean reward
    started = time.process_time()
    for first in range(0, args.episodes, args.batch):
        xs, masks, taken, advantage = [], [], [], []
        rewards = []
        for episode in range(first, min(first + args.batch, args.episodes)):
            side = episode % 2
            seen, mask, actions, reward = play(envs[side], policy, rng, seed=args.seed * 1_000_003 + episode)
            xs += seen
            masks += mask
            taken += actions
            advantage += [reward - baseline[side]] * len(actions)
            baseline[side] += 0.02 * (reward - baseline[side])
            rewards.append(reward)
        grads = gradients(policy, np.array(xs), np.array(masks), np.array(taken), np.array(advantage, np.float32),
                          args.entropy)
        # The step shrinks to nothing by the last batch: late games refine the policy rather than shake it.
        adam.rate = args.rate * (1 - first / args.episodes)
        adam.step(grads)
        done = min(first + args.batch, args.episodes)
        if done % (args.batch * 50) == 0 or done == args.episodes:
            print(f"{done:6d} games  mean reward {np.mean(rewards):+.2f} (last batch)  "
                  f"{time.process_time() - started:5.0f} s CPU", flush=True)
    policy.save(args.out)
    rate = win_rate(envs, policy, args.check, seed=10**6)
    print(f"wrote {args.out}; greedy against random: {rate:.0%} of {args.check} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
