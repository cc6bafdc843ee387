"""Search code shared by the bundled agents (greedy, minimax, mcts).

Written once against the framework's game interface
(:mod:`referee.games.base`); what is particular to a game lives in
:mod:`agents.common.heuristics`.
"""
