"""The HTTP API in process (FastAPI's test client): every endpoint against the functions it serves, bad input, batching.

Figures must be those of the project's own functions on the same position (the net's
probabilities, :mod:`nets.cube_advice` for gnubg's cube model, :mod:`nets.analysis` for ranked
plays); every refusal is a 4xx JSON naming the field; nothing a client sends gives a 5xx.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

fastapi = pytest.importorskip("fastapi", reason="the serve extra (fastapi) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from cube.match import cubeless_mwc  # noqa: E402
from cube.met import DEFAULT_MET, PUBLISHED_METS, met_by_name  # noqa: E402
from engine import MatchState, Position, parse_id_pair  # noqa: E402
from nets.analysis import cube_state_of, match_cube_of, moves_json, moves_mwc_json  # noqa: E402
from nets.cube_advice import match_cube_advice, money_cube_advice  # noqa: E402
from nets.evaluator import Evaluator, load_evaluator  # noqa: E402
from nets.weights import weights_digest  # noqa: E402
from service.api import create_app  # noqa: E402
from weights import DEFAULT_WEIGHTS  # noqa: E402

MONEY = "4HPwATDgc/ABMA:cAkLAAAAAAAA"  # the opening, 6-2 to play, money
MONEY_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:62:0:0:1:0:10"  # the same position and state
MATCH = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:3:4:0:7:10"  # O to play 3-1 at 4-away against 3-away
RACE = "XGID=-BBCCBB-----------bbbcbbb-:0:0:1:00:0:0:0:0:10"  # X 49 pips against 60, cube centred
# starlette warns that its test client will move to another httpx package; nothing this test can change
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return load_evaluator()


@pytest.fixture(scope="module")
def client(evaluator: Evaluator) -> Iterator[TestClient]:
    with TestClient(create_app(evaluator, max_rollout_trials=36)) as c:
        yield c


def post(client: TestClient, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    r = client.post(path, json=body)
    return r.status_code, r.json()


def test_evaluate_in_money_play_is_the_nets_and_cube_advices(client: TestClient, evaluator: Evaluator) -> None:
    status, d = post(client, "/api/evaluate", {"position": MONEY})
    assert status == 200
    position, match = parse_id_pair(MONEY)
    assert match is not None
    probs = evaluator.evaluate_boards(position.array[None])[0]
    assert list(d["probabilities"].values()) == pytest.approx(list(probs), abs=1e-6)
    advice = money_cube_advice(position.array, probs, cube_state_of(match), jacoby=match.jacoby, beavers=False)
    assert d["cube"]["action"] == str(advice.action)
    assert d["cubeful_equity"] == pytest.approx(advice.equity, abs=1e-6)
    assert d["position_id"] == position.id and d["match_id"] == match.id and d["board"] == list(position.board)


def test_an_xgid_and_its_gnubg_ids_get_the_same_answer(client: TestClient) -> None:
    a = post(client, "/api/evaluate", {"position": MONEY})[1]
    b = post(client, "/api/evaluate", {"position": MONEY_XGID})[1]
    assert a == b


def test_evaluate_at_a_match_score_uses_match_cube_advice(client: TestClient, evaluator: Evaluator) -> None:
    status, d = post(client, "/api/evaluate", {"position": RACE.replace(":0:0:0:0:10", ":2:3:0:7:10")})
    assert status == 200
    position, match = parse_id_pair(RACE.replace(":0:0:0:0:10", ":2:3:0:7:10"))
    assert match is not None
    met = met_by_name(DEFAULT_MET)
    probs = evaluator.evaluate_boards(position.array[None])[0]
    cube = match_cube_of(match, met)
    advice = match_cube_advice(position.array, probs, met, cube)
    assert d["cube"]["action"] == str(advice.action) and d["cube"]["doubles"] == advice.action.doubles
    assert d["cubeless_mwc"] == pytest.approx(float(cubeless_mwc(probs, met, cube)), abs=1e-6)
    assert d["cubeful_mwc"] == pytest.approx(advice.cubeful_mwc, abs=1e-6)
    assert d["match_length"] == 7 and d["score"] == [2, 3]


def test_deeper_evaluations_go_through_the_batcher_too(client: TestClient, evaluator: Evaluator) -> None:
    from nets.lookahead import evaluate_plies

    d = post(client, "/api/evaluate", {"position": MONEY, "plies": 1})[1]
    expected = evaluate_plies(evaluator, Position.from_id("4HPwATDgc/ABMA").array[None], 1)[0]
    assert list(d["probabilities"].values()) == pytest.approx(list(expected), abs=1e-6)


def test_hint_in_money_play_ranks_as_moves_json(client: TestClient, evaluator: Evaluator) -> None:
    status, d = post(client, "/api/hint", {"position": MONEY, "max_moves": 50})
    assert status == 200
    position = Position.from_id("4HPwATDgc/ABMA")
    expected = moves_json(evaluator, position, (6, 2), 0)
    assert [m["move"] for m in d["moves"]] == [m["move"] for m in expected]
    assert [m["equity"] for m in d["moves"]] == pytest.approx([m["equity"] for m in expected], abs=1e-6)
    assert d["legal_plays"] == len(expected)
    for m in d["moves"]:  # the position after the play, the opponent on roll without dice
        after, state = parse_id_pair(m["xgid"])
        assert after.id == m["position_id"] and state is not None and state.on_roll == 0 and state.dice == (0, 0)


def test_hint_at_a_match_score_ranks_as_moves_mwc_json(client: TestClient, evaluator: Evaluator) -> None:
    d = post(client, "/api/hint", {"position": MATCH, "max_moves": 3})[1]
    position, match = parse_id_pair(MATCH)
    assert match is not None
    met = met_by_name(DEFAULT_MET)
    expected = moves_mwc_json(evaluator, position, (3, 1), 0, met, match_cube_of(match, met))[:3]
    assert [(m["move"], m["mwc"]) for m in d["moves"]] == [(m["move"], m["mwc"]) for m in expected]


def test_hint_takes_dice_of_the_request(client: TestClient) -> None:
    d = post(client, "/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [1, 3], "max_moves": 1})[1]
    assert d["dice"] == [3, 1] and d["moves"][0]["move"] == "8/5 6/5"


def test_with_the_dice_rolled_the_cube_figures_say_so_and_the_dice_read_as_hint_reads_them(client: TestClient) -> None:
    rolled = "4HPwATDgc/ABMA:cAkZAAAAAAAA"  # 6-2 to play: no cube action now, as eval says
    evaluated = post(client, "/api/evaluate", {"position": rolled})[1]
    cube = post(client, "/api/cube", {"position": rolled})[1]
    hint = post(client, "/api/hint", {"position": rolled})[1]
    assert evaluated["cube"]["note"].startswith("the dice are rolled") and cube["note"] == evaluated["cube"]["note"]
    assert evaluated["dice"] == cube["dice"] == hint["dice"] == [6, 2]
    assert "note" not in post(client, "/api/cube", {"position": "4HPwATDgc/ABMA"})[1]  # before the roll


def test_cube_gives_each_models_decision(client: TestClient, evaluator: Evaluator) -> None:
    for text in (RACE, RACE.replace(":0:0:0:0:10", ":0:0:0:5:10")):
        status, d = post(client, "/api/cube", {"position": text})
        assert status == 200
        assert set(d["models"]) == {"gnubg", "janowski(x=0.68)"} | {k for k in d["models"] if k.startswith("jump")}
        assert len(d["models"]) == 3
        position, match = parse_id_pair(text)
        assert match is not None
        probs = evaluator.evaluate_boards(position.array[None])[0]
        if match.match_length:
            met = met_by_name(DEFAULT_MET)
            action = match_cube_advice(position.array, probs, met, match_cube_of(match, met)).action
        else:
            action = money_cube_advice(position.array, probs, cube_state_of(match), jacoby=True, beavers=False).action
        assert d["models"]["gnubg"]["action"] == str(action)
    assert post(client, "/api/cube", {"position": RACE})[1]["models"]["gnubg"]["doubles"]


def test_a_bounded_rollout(client: TestClient) -> None:
    status, d = post(client, "/api/rollout", {"position": "4HPwATDgc/ABMA", "trials": 2})
    assert status == 200 and d["trials"] == 2 and set(d["probabilities"]) >= {"win"} and "equity_se" in d
    assert d["trials_requested"] == 2 and d["stopped"] is None
    status, d = post(client, "/api/rollout", {"position": "4HPwATDgc/ABMA", "trials": 37})
    assert status == 400 and d["field"] == "trials" and "36" in d["error"]


def test_health_and_the_openapi_description(client: TestClient) -> None:
    assert post(client, "/api/evaluate", {"position": MONEY})[0] == 200  # a net call to count, whatever ran before
    h = client.get("/health").json()
    assert h["status"] == "ok" and h["batching"] is True and h["net_calls"] >= 1
    assert h["weights_sha256"] == weights_digest(DEFAULT_WEIGHTS)  # the net that answers, by content
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/health", "/api/evaluate", "/api/hint", "/api/cube", "/api/rollout"} <= set(paths)


def test_the_web_board_is_one_page_with_nothing_from_outside(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<svg" in page.text and "/api/hint" in page.text
    assert "http://" not in page.text.replace("http://www.w3.org/2000/svg", "") and "https://" not in page.text


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        ("/api/evaluate", {"position": "garbage"}, 400, "position"),
        ("/api/evaluate", {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0"}, 400, "position"),
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA:cAkZAAAAAAAA", "plies": 3}, 422, "plies"),
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA", "plies": "deep"}, 422, "plies"),
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA", "met": "nope"}, 400, "met"),
        ("/api/evaluate", {"position": "x" * 500}, 422, "position"),
        ("/api/evaluate", {}, 422, "position"),
        ("/api/evaluate", [1, 2], 422, "body"),
        ("/api/evaluate", {"position": "XGID=-b------------------------:0:0:1:52:0:0:0:0:10"}, 400, "position"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA"}, 400, "dice"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [0, 7]}, 400, "dice"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [1]}, 422, "dice"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [1, 2], "max_moves": 0}, 422, "max_moves"),
        ("/api/cube", {"position": 12}, 422, "position"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "trials": 0}, 422, "trials"),
        ("/api/rollout", {"position": "nope"}, 400, "position"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA:cAkZAAAAAAAA", "plies": 2}, 422, "plies"),
        # a finished game: refused by rollout as by evaluate
        ("/api/rollout", {"position": "XGID=-b------------------------:0:0:1:52:0:0:0:0:10"}, 400, "position"),
        # unknown fields are refused, not ignored (a misspelt "ply" gave a 0-ply answer)
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA", "ply": 2}, 422, "ply"),
        ("/api/hint", {"position": MONEY, "max_move": 3}, 422, "max_move"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "trial": 2}, 422, "trial"),
        # values of another JSON type are refused, not converted
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA", "plies": "1"}, 422, "plies"),
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA", "plies": True}, 422, "plies"),
        ("/api/evaluate", {"position": "4HPwATDgc/ABMA", "plies": 1.0}, 422, "plies"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [True, True]}, 422, "dice"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [6.0, 2]}, 422, "dice"),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [6, "2"]}, 422, "dice"),
        ("/api/hint", {"position": MONEY, "max_moves": "3"}, 422, "max_moves"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "cubeful": "yes"}, 422, "cubeful"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "cubeful": 1}, 422, "cubeful"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "trials": "2"}, 422, "trials"),
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "seed": 1.0}, 422, "seed"),
        # only the published tables: a path would tell whether a file exists on the server
        ("/api/evaluate", {"position": MATCH, "met": "/etc/passwd.xml"}, 400, "met"),
        ("/api/evaluate", {"position": MATCH, "met": "met.xml"}, 400, "met"),
    ],
)
def test_bad_input_is_a_4xx_naming_the_field(client: TestClient, path: str, body: Any, status: int, field: str) -> None:
    got, d = post(client, path, body)
    assert got == status and d["field"].split(".")[0] == field and d["field"] in d["error"] and "\n" not in d["error"]


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    r = client.post("/api/evaluate", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["field"] == "body"


def test_a_json_array_is_the_dice_pair(client: TestClient) -> None:
    # FastAPI validates the decoded JSON in Python mode, where a strict tuple would refuse the list
    for dice in ([6, 2], [2, 6]):
        body = json.dumps({"position": "4HPwATDgc/ABMA", "dice": dice}).encode()
        r = client.post("/api/hint", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 200 and r.json()["dice"] == [6, 2]


def test_an_unknown_field_is_named_with_the_fields_the_endpoint_takes(client: TestClient) -> None:
    status, d = post(client, "/api/evaluate", {"position": "4HPwATDgc/ABMA", "ply": 2})
    assert status == 422 and d == {
        "error": "field 'ply': unknown field; /api/evaluate takes position, plies, met",
        "field": "ply",
    }


@pytest.mark.parametrize("met", [*PUBLISHED_METS, DEFAULT_MET.lower()])
def test_every_published_table_is_served(client: TestClient, met: str) -> None:
    status, d = post(client, "/api/evaluate", {"position": MATCH, "met": met})
    assert status == 200 and d["met"].lower() == met.lower()


def test_a_met_path_is_refused_alike_whether_the_file_exists_or_not(client: TestClient, tmp_path: Any) -> None:
    there = tmp_path / "there.xml"
    there.write_text("<met></met>")  # met_by_name would parse it and answer differently than for a missing file
    answers = [post(client, "/api/evaluate", {"position": MATCH, "met": str(p)}) for p in (there, tmp_path / "no.xml")]
    assert [a[0] for a in answers] == [400, 400] and [a[1]["field"] for a in answers] == ["met", "met"]
    errors = [re.sub(r"table '[^']*'", "table NAME", d["error"]) for _, d in answers]
    assert errors[0] == errors[1] and ", ".join(PUBLISHED_METS) in errors[0]


def test_a_huge_number_is_not_echoed(client: TestClient) -> None:
    for path, body in (
        ("/api/rollout", {"position": "4HPwATDgc/ABMA", "trials": 10**3999}),
        ("/api/hint", {"position": "4HPwATDgc/ABMA", "dice": [10**3999, 1]}),
    ):
        r = client.post(path, json=body)
        assert r.status_code in (400, 422) and len(r.text) < 300, r.text[:300]
    assert client.post("/api/rollout", json={"position": "4HPwATDgc/ABMA", "trials": 10**6 + 1}).status_code == 422


@pytest.mark.parametrize(
    ("method", "path", "content", "status", "field"),
    [
        ("GET", "/api/nope", None, 404, "path"),
        ("GET", "/api/evaluate", None, 405, "method"),
        ("POST", "/health", b"{}", 405, "method"),
        ("POST", "/api/evaluate", b'{"position": "\xff"}', 400, "body"),  # JSON, but not UTF-8
    ],
)
def test_starlettes_own_errors_are_json_naming_the_input(
    client: TestClient, method: str, path: str, content: bytes | None, status: int, field: str
) -> None:
    r = client.request(method, path, content=content, headers={"Content-Type": "application/json"})
    d = r.json()
    assert r.status_code == status and set(d) == {"error", "field"} and d["field"] == field and field in d["error"]
    if status == 405:
        assert "allowed:" in d["error"] and r.headers["allow"]


def test_every_answer_says_nosniff(client: TestClient) -> None:
    for r in (
        client.get("/health"),
        client.get("/"),
        client.post("/api/evaluate", json={"position": "garbage"}),
        client.post("/api/evaluate", json={}),
        client.get("/nope"),
    ):
        assert r.headers["x-content-type-options"] == "nosniff", r.url


def test_an_internal_error_is_a_generic_500_and_goes_to_the_log(
    evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(evaluator)

    async def broken(*_: Any) -> dict[str, Any]:
        raise RuntimeError("secret detail at /srv/private/path")

    monkeypatch.setattr(app.state.service, "evaluate", broken)
    with TestClient(app, raise_server_exceptions=False) as c, caplog.at_level("ERROR", logger="service.api"):
        r = c.post("/api/evaluate", json={"position": MONEY})
    assert r.status_code == 500 and r.json()["field"] == "server" and "secret" not in r.text
    assert r.headers["x-content-type-options"] == "nosniff"
    assert any("secret detail" in str(rec.exc_info[1]) for rec in caplog.records if rec.exc_info)


def json_values() -> st.SearchStrategy[Any]:
    numbers = st.integers(-10, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    scalars = st.none() | st.booleans() | numbers | st.text(max_size=40)
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner)
    )


positions = st.sampled_from([MONEY, MONEY_XGID, MATCH, RACE, "4HPwATDgc/ABMA"]) | st.text(max_size=60)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["/api/evaluate", "/api/hint", "/api/cube"]),
    st.fixed_dictionaries(
        {"position": positions},
        optional={"plies": st.integers(-1, 3) | json_values(), "dice": json_values(), "met": st.text(max_size=12)},
    ),
)
def test_no_request_gets_a_5xx(client: TestClient, path: str, body: dict[str, Any]) -> None:
    if isinstance(body.get("plies"), int) and body["plies"] > 0:
        body["plies"] = 0 if path != "/api/hint" else body["plies"]  # keep deep lookaheads out of the fuzzing time
    r = client.post(path, json=body)
    assert r.status_code in (200, 400, 422), r.text
    data = r.json()
    if r.status_code != 200:
        assert isinstance(data["field"], str) and data["field"] in data["error"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(json_values())
def test_any_json_body_gets_an_answer_naming_a_field(client: TestClient, body: Any) -> None:
    r = client.post("/api/evaluate", content=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    assert r.status_code in (200, 400, 422)


async def _concurrently(app: Any, bodies: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        responses = await asyncio.gather(*(c.post(path, json=b) for b in bodies))
    return [r.json() for r in responses]


def test_concurrent_requests_share_net_calls_and_get_the_unbatched_answers(evaluator: Evaluator) -> None:
    texts: list[str] = []
    position = Position.initial()
    rng = np.random.default_rng(4)
    while len(texts) < 24:
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        texts.append(position.to_xgid(MatchState(on_roll=1, turn=1, dice=(max(d), min(d)))))
        children = position.children((max(d), min(d)))
        position = children[int(rng.integers(len(children)))]
        if position.is_over():
            position = Position.initial()
    bodies = [{"position": t} for t in texts]
    batched, alone = create_app(evaluator), create_app(evaluator, batching=False)
    for path in ("/api/evaluate", "/api/hint"):
        assert asyncio.run(_concurrently(batched, bodies, path)) == asyncio.run(_concurrently(alone, bodies, path))
    b, a = batched.state.service.batcher.stats, alone.state.service.batcher.stats
    assert b.requests == a.requests == a.calls >= 48 and b.boards == a.boards
    assert b.calls < b.requests / 2  # requests that arrived together shared net calls
