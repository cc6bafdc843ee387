"""How much of Infinitron Skirmish the agents play: templates, terrain, abilities, claims.

Counts, per agent, from game records (a tournament's ``games.jsonl`` or
``--record`` files) or from games it plays itself:

* templates defined and units built, by kind: ranged (MEDIUM, LONG,
  ARTILLERY, SUPER), melee, no attack; with each ability; armoured;
* TERRAIN commands by kind; ABILITY uses (HEAL, BLAST); CLAIMs.

Each cell of the table is ``total (games)``: how many times over all games,
and in how many of the agent's games it happened at least once.

    python -m benchmarks.infinitron_usage results/infinitron_army/games.jsonl
    python -m benchmarks.infinitron_usage --limit 20 results/infinitron_army*/games.jsonl
    python -m benchmarks.infinitron_usage --play 20                 # mcts vs minimax, seeds 0..19
    python -m benchmarks.infinitron_usage --play 4 --armour --red agents.greedy --blue agents.greedy
    python -m benchmarks.infinitron_usage --play 4 --red agents.mcts --blue agents.mcts \\
        --heuristics-blue '{"army": "fixed"}'
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from referee.game.player import PlayerColor
from referee.games.base import CHANCE
from referee.games.infinitron import Infinitron, InfinitronState, action_to_str, parse_action
from referee.games.infinitron.engine import (
    ABILITY,
    ABILITY_NAMES,
    BUILD,
    CHANCE_KINDS,
    CLAIM,
    DEFINE,
    MELEE,
    RANGE_NAMES,
    TERRAIN,
    TERRAIN_NAMES,
    Template,
    template_of,
)
from referee.infinitron import from_engine_action, to_engine_action

#: The table's rows, in order.
ROWS = (
    "games",
    "templates defined",
    "  ranged",
    "    MEDIUM",
    "    LONG",
    "    ARTILLERY",
    "    SUPER",
    "  melee",
    "  no attack",
    "  HEAL",
    "  BLAST",
    "  SWIFT",
    "  armoured",
    "units built",
    "  ranged",
    "  melee",
    "  no attack",
    "  HEAL",
    "  BLAST",
    "  SWIFT",
    "  armoured",
    "TERRAIN BLOCK",
    "TERRAIN LAVA",
    "TERRAIN REPAIR",
    "TERRAIN LABEL",
    "ABILITY HEAL",
    "ABILITY BLAST",
    "CLAIM",
)


def template_kinds(tm: Template) -> list[str]:
    """The kinds a template counts under (attack kind, ability, armour)."""
    if not tm.damage:
        kinds = ["no attack"]
    elif tm.range == MELEE:
        kinds = ["melee"]
    else:
        kinds = ["ranged", RANGE_NAMES[tm.range]]
    ability = ABILITY_NAMES[tm.ability]
    if ability != "NONE":
        kinds.append(ability.rstrip("12"))  # HEAL1/HEAL2 are HEAL, BLAST1/BLAST2 BLAST
    if tm.armour:
        kinds.append("armoured")
    return kinds


def count_game(options: dict[str, Any], actions: Iterable[tuple[int, ...]]) -> tuple[Counter, Counter]:
    """Replay one game's actions; the counts of Red's commands and of Blue's."""
    state: InfinitronState = Infinitron(**options).new_state()
    counts: tuple[Counter, Counter] = (Counter(), Counter())
    for action in actions:
        kind = action[0]
        if kind in CHANCE_KINDS:
            state.apply(action)
            continue
        p = state.current_player
        c = counts[p]
        if kind == DEFINE:
            c["templates defined"] += 1
            for k in template_kinds(template_of(tuple(action[1:]))):
                c[("    " if k in RANGE_NAMES else "  ") + k] += 1
        elif kind == BUILD:
            c["units built"] += 1
            for k in template_kinds(state.templates[p][action[1]]):
                if k.isupper() and k not in ("HEAL", "BLAST", "SWIFT"):
                    continue  # ranges are shown for templates only
                c["units " + k] += 1
        elif kind == TERRAIN:
            c["TERRAIN " + TERRAIN_NAMES[action[1]]] += 1
        elif kind == ABILITY:
            _, _, t = state.units[p][action[1]]
            c["ABILITY " + ABILITY_NAMES[state.templates[p][t].ability].rstrip("12")] += 1
        elif kind == CLAIM:
            c["CLAIM"] += 1
        state.apply(action)
    return counts


def read_records(paths: Iterable[Path], limit: int = 0) -> Iterator[dict[str, Any]]:
    """Game records from ``games.jsonl`` files (one a line; the first ``limit`` of each) or single JSON records."""
    for path in paths:
        text = path.read_text()
        if path.suffix == ".jsonl":
            lines = [line for line in text.splitlines() if line.strip()]
            yield from (json.loads(line) for line in (lines[:limit] if limit else lines))
        else:
            yield json.loads(text)


def play_game(
    red: str, blue: str, seed: int, move_time: float, heuristics: tuple[dict, dict], armour: bool = False
) -> dict[str, Any]:
    """One game between two bundled agents in this process, as a record with the fields used here."""
    options: dict[str, Any] = {"seed": seed, "armour": armour}
    game = Infinitron(**options)
    state = game.new_state()
    colors = (PlayerColor.RED, PlayerColor.BLUE)
    agents = []
    for p, spec in enumerate((red, blue)):
        kwargs: dict[str, Any] = {"game": "infinitron", "game_options": options, "seed": seed, **game.agent_kwargs}
        kwargs.update(move_time=move_time, heuristics=heuristics[p] or None)
        agents.append(importlib.import_module(spec).Agent(color=colors[p], **kwargs))
    played: list[str] = []
    while not state.is_over:
        p = state.current_player
        if p == CHANCE:  # no chaos here: the game's options leave it off
            raise RuntimeError("a chaos roll in a game without chaos")
        action = to_engine_action(agents[p].action(game="infinitron", game_options=options, seed=seed))
        if action is None or not state.is_legal(action):
            raise RuntimeError(f"{(red, blue)[p]} played an illegal command {action!r}")
        state.apply(action)
        played.append(action_to_str(action))
        if state.is_over:
            break
        for agent in agents:
            agent.turn(colors[p], from_engine_action(action))
    names = [spec.rsplit(".", 1)[-1] + (" " + json.dumps(h) if h else "") for spec, h in zip((red, blue), heuristics)]
    outcome = state.outcome
    winner = None if outcome is None or outcome.winner is None else ("RED", "BLUE")[outcome.winner]
    return {"game_options": options, "actions": played, "red_name": names[0], "blue_name": names[1], "winner": winner}


def usage(records: Iterable[dict[str, Any]]) -> dict[str, Counter]:
    """Per agent name, the counts (``total``) and the number of games with each (``games:<row>``)."""
    per_agent: dict[str, Counter] = defaultdict(Counter)
    for record in records:
        actions = [parse_action(text) for text in record["actions"]]
        for name, counts in zip((record["red_name"], record["blue_name"]), count_game(record["game_options"], actions)):
            total = per_agent[name]
            total["games"] += 1
            for key, n in counts.items():
                total[key] += n
                total["games:" + key] += 1
    return per_agent


def table(per_agent: dict[str, Counter]) -> str:
    """The counts as a Markdown table, one column per agent."""
    names = sorted(per_agent)
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    section = ""
    for row in ROWS:
        if not row.startswith("  "):
            section = row
        # Unit kinds are counted as "units <kind>" (see count_game), template kinds as "  <kind>".
        key = "units " + row.strip() if row.startswith("  ") and section == "units built" else row
        cells = []
        for name in names:
            c = per_agent[name]
            cells.append(str(c["games"]) if row == "games" else f"{c[key]} ({c['games:' + key]})")
        indent = len(row) - len(row.lstrip())
        label = "&nbsp;" * indent + row.strip()
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", nargs="*", type=Path, help="games.jsonl files or single game records")
    parser.add_argument("--play", type=int, default=0, metavar="N", help="play N games (seeds 0..N-1) instead")
    parser.add_argument("--red", default="agents.mcts")
    parser.add_argument("--blue", default="agents.minimax")
    parser.add_argument("--heuristics-red", type=json.loads, default={}, help="JSON heuristics options")
    parser.add_argument("--heuristics-blue", type=json.loads, default={})
    parser.add_argument("--move-time", type=float, default=0.05, help="seconds a command (default 0.05)")
    parser.add_argument("--armour", action="store_true", help="played games have the armour option")
    parser.add_argument("--limit", type=int, default=0, help="read the first N games of each games.jsonl (0: all)")
    args = parser.parse_args(argv)
    if args.play:
        heuristics = (args.heuristics_red, args.heuristics_blue)
        records: list[dict[str, Any]] = []
        for seed in range(args.play):
            # Swap colours every game so each agent plays both sides.
            if seed % 2 == 0:
                red, blue, h = args.red, args.blue, heuristics
            else:
                red, blue, h = args.blue, args.red, (heuristics[1], heuristics[0])
            records.append(play_game(red, blue, seed, args.move_time, h, args.armour))
            print(f"game {seed + 1}/{args.play} played", file=sys.stderr)
    elif args.records:
        records = list(read_records(args.records, args.limit))
    else:
        parser.error("give records to read, or --play N")
    print(table(usage(records)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
