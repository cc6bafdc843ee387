"""``python -m referee analyse`` on real records of each game: the engine's judgement, the summary, the cache,
the sources (a file, a games.jsonl, a battleground's URL) and bad input."""
from __future__ import annotations

import http.server
import json
import os
import re
import threading
from pathlib import Path

import pytest

from referee.analysis import Cache, EngineSettings, analyse, evaluate
from referee.games import load_game
from referee.records import GameRecord
from tests.helpers import play_recorded, run_referee

#: Cheap settings: what is tested is what is done with the evaluations, not their depth.
FAST = ("--iterations", "60", "--workers", "2", "-q")


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, Path]:
    """A lost game of each game between the greedy and the random agent, as recorded by the referee."""
    folder = tmp_path_factory.mktemp("records")
    games = {"infexion": (), "cachex": ("--game", "cachex", "-n", "4"), "infinitron": ("--game", "infinitron")}
    for name, options in games.items():
        play_recorded(folder / f"{name}.json", "-v", "0", "--seed", "2", *options, "agents.greedy",
                      "agents.random_agent")
    return {name: folder / f"{name}.json" for name in games}


def analysed(*args: str, cache: Path) -> str:
    done = run_referee("analyse", *args, env={**os.environ, "XDG_CACHE_HOME": str(cache)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.mark.parametrize("game", ["infexion", "cachex", "infinitron"])
def test_each_games_record_is_analysed_with_a_graph_and_its_turning_point(records, tmp_path, game):
    record = GameRecord.from_json(records[game].read_text())
    # Infinitron's decisions are turns of several commands, the engine's line a search for each: fewer simulations.
    out = analysed(str(records[game]), *FAST, *(("--iterations", "20") if game == "infinitron" else ()), cache=tmp_path)
    assert out.startswith(f"Analysis of {game}: RED agents.greedy v BLUE agents.random_agent: {record.message}")
    graph = [line for line in out.splitlines() if re.match(r"^ *\d+% \|", line)]
    assert [line.split("|")[0].strip() for line in graph] == [f"{p}%" for p in range(100, -1, -10)]
    assert all("*" in line or "-" in line for line in graph[:1] + graph[5:6])
    loser = "BLUE" if record.winner == "RED" else "RED"
    said = re.search(rf"^Turning point: on (action|turn) \d+.* {loser} played (.+?) \({loser}'s chance", out, re.M)
    if said is not None:  # a loser who did as well as the engine everywhere has none
        assert said[2].split("; ")[0] in record.actions


def test_a_second_run_reads_every_position_from_the_cache(records, tmp_path):
    first = analysed(str(records["cachex"]), *FAST, cache=tmp_path)
    kept = (tmp_path / "referee" / "analysis.jsonl").read_text().splitlines()
    assert len(kept) >= len(GameRecord.from_json(records["cachex"].read_text()).actions)
    assert analysed(str(records["cachex"]), *FAST, cache=tmp_path) == first
    assert (tmp_path / "referee" / "analysis.jsonl").read_text().splitlines() == kept  # nothing judged again
    # Other settings are other evaluations: judged, and kept beside the first.
    analysed(str(records["cachex"]), "--iterations", "61", "-q", cache=tmp_path)
    assert len((tmp_path / "referee" / "analysis.jsonl").read_text().splitlines()) > len(kept)


def test_a_cache_past_its_limit_keeps_its_newest_half_and_reads_the_same(tmp_path):
    from referee.analysis.engine import Evaluation

    path = tmp_path / "analysis.jsonl"
    cache = Cache(path, limit=10)
    for i in range(12):
        cache.put(f"k{i}", Evaluation(i / 100, f"A{i}"))
    cache.put("k3", Evaluation(0.5, "again"))  # judged again: the newest line is the one kept
    with path.open("a") as file:
        file.write('{"key": "torn", "red"\n')
    assert len(path.read_text().splitlines()) == 14  # appending never trims
    reread = Cache(path, limit=10)  # 12 evaluations: past the limit, the newest 5 are kept
    assert list(reread.known) == ["k8", "k9", "k10", "k11", "k3"]
    assert reread.get("k3") == Evaluation(0.5, "again") and reread.get("k0") is None
    assert [json.loads(line)["key"] for line in path.read_text().splitlines()] == list(reread.known)
    assert Cache(path, limit=10).known == reread.known  # under the limit now: read as it is
    assert [p.name for p in tmp_path.iterdir()] == ["analysis.jsonl"]  # no spare file left behind


def test_the_same_settings_judge_a_position_the_same_way_and_a_won_position_is_known(records):
    game = load_game("cachex", n=4)
    state = game.new_state()
    settings = EngineSettings(iterations=80)
    assert evaluate(game, state, settings) == evaluate(game, state.copy(), settings)
    record = GameRecord.from_json(records["cachex"].read_text())
    for text in record.actions:
        state.apply(state.parse_action(text))
    final = evaluate(game, state, settings)
    assert final.proven and final.red == (1.0 if record.winner == "RED" else 0.0)


def test_workers_and_one_process_agree(records):
    record = GameRecord.from_json(records["infexion"].read_text())
    settings = EngineSettings(iterations=40)
    one, two = (analyse(record, settings, workers=n, cache=Cache(None)) for n in (1, 2))
    assert one.judged == two.judged and one.turning == two.turning


def test_a_tournaments_game_by_index_and_a_battleground_game_by_url(records, tmp_path):
    lines = [json.dumps(json.loads(records[name].read_text())) for name in ("infexion", "cachex")]
    (tmp_path / "games.jsonl").write_text("\n".join(lines) + "\n")
    out = analysed(str(tmp_path / "games.jsonl"), "--game-index", "1", *FAST, cache=tmp_path)
    assert out.startswith("Analysis of cachex:")
    body = records["infexion"].read_bytes()

    class Games(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802  (the http.server name)
            found = self.path == "/api/games/7"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body if found else b'{"error": "no such game"}')

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Games)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/api/games"
        assert analysed(f"{url}/7", *FAST, cache=tmp_path).startswith("Analysis of infexion:")
        missing = run_referee("analyse", f"{url}/8", *FAST)
        assert missing.returncode == 2 and f"cannot fetch {url}/8: Not Found" in missing.stderr
    finally:
        server.shutdown()


@pytest.mark.parametrize("args, said", [
    (("missing.json",), "cannot read missing.json"),
    (("RECORD", "--workers", "0"), "--workers must be at least 1"),
    (("RECORD", "--iterations", "0"), "iterations, depth and seconds must be positive"),
    (("RECORD", "--engine", "alphazero"), "invalid choice: 'alphazero'"),
    (("JSONL",), "choose one with --game-index N"),
])
def test_bad_input_is_a_clear_error(records, tmp_path, args, said):
    line = json.dumps(json.loads(records["cachex"].read_text()))
    (tmp_path / "two.jsonl").write_text(f"{line}\n{line}\n")
    named = {"RECORD": str(records["cachex"]), "JSONL": str(tmp_path / "two.jsonl")}
    done = run_referee("analyse", *(named.get(a, a) for a in args), cwd=tmp_path)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
