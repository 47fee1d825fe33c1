"""The token budget measured on what the client receives: a default search over long documents,
through the SDK's client, must stay within 10 KB in its text content and in its structured
content, each."""

from __future__ import annotations

import json
import random
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from pylucene_mcp import Index
from pylucene_mcp.server.fitting import shorten
from tests.mcp_client import call, connect

pytestmark = pytest.mark.anyio

BUDGET = 10_000
WORDS = (
    "contract agreement tenant landlord deposit termination notice clause liability payment "
    "Vertrag Kündigung Mieter Vermieter Kaution Frist Zahlung Haftung Vereinbarung Nebenkosten"
).split()


@pytest.fixture(scope="module")
def long_documents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """12 documents of 3,000 sentences each, with long paths, titles and several authors: the
    matches are everywhere, so every hit brings three full passages full of highlights."""
    rng = random.Random(3)
    index = Index.open(tmp_path_factory.mktemp("long-docs"))
    with index.writer() as w:
        for n in range(12):
            w.add(
                {
                    "file_path": f"/home/someone/Documents/Verträge und Vereinbarungen/2024/"
                    f"Mietvertrag-Nachtrag-{n:02d}-Gartenstraße-7-endgültige-Fassung.pdf",
                    "title": f"Mietvertrag Nachtrag {n}: Gartenstraße 7, Erdgeschoss links, "
                    "endgültige unterschriebene Fassung",
                    "author": ["Anna-Katharina Schmidt-Müller", "Jürgen Weiß"],
                    "content": ". ".join(
                        " ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(3_000)
                    ),
                    "language": "de",
                    "modified_date": "2024-03-15",
                    "created_date": "2024-02-01",
                }
            )
    yield index
    index.close()


@pytest.fixture
async def client(long_documents: Index) -> AsyncIterator[Client]:
    async with connect(long_documents) as connected:
        yield connected


@pytest.mark.parametrize("extra", [{}, {"actions": True, "cursor": "*"}])
async def test_a_default_search_over_long_documents_stays_within_10_kb_each_way(
    client: Client, extra: dict[str, object]
) -> None:
    result = await client.call_tool(
        "search",
        {"query": "contract OR Vertrag OR tenant OR Mieter", "defaultOperator": "OR", **extra},
    )
    assert not result.is_error
    structured = result.structured_content
    assert structured is not None and len(structured["documents"]) == 10
    passages = [len(d["passages"]) for d in structured["documents"]]
    assert passages[0] >= 1  # the best hit keeps its best passage
    assert passages == sorted(passages, reverse=True)  # the lowest-ranked give theirs up first
    assert structured["passagesOmitted"] == 30 - sum(passages) > 0
    (text_block,) = result.content
    text = text_block.text  # type: ignore[union-attr]
    # as the wire carries it: compact JSON inside the JSON-RPC message
    structured_size = len(
        json.dumps(structured, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    )
    text_size = len(text.encode("utf-8"))
    assert json.loads(text) == structured  # the same answer, not a second, larger one
    assert text_size <= BUDGET, text_size
    assert structured_size <= BUDGET, structured_size
    assert "\n" not in text  # compact: no indentation on the wire


async def test_a_search_that_fits_keeps_every_passage(client: Client) -> None:
    result = await client.call_tool("search", {"query": "contract", "pageSize": 3})
    structured = result.structured_content
    assert structured is not None
    assert [len(d["passages"]) for d in structured["documents"]] == [3, 3, 3]
    assert "passagesOmitted" not in structured


async def test_document_details_at_the_default_length_fit_and_continue(fresh_index: Index) -> None:
    text = "東京の図書館は月曜日に休みます。" * 400  # 6,400 characters of 3 bytes each
    with fresh_index.writer() as w:
        w.add({"file_path": "/ja/library.txt", "content": text})
    async with connect(fresh_index) as client:
        first = await call(client, "getDocumentDetails", filePath="/ja/library.txt")
        size = len(json.dumps(first, ensure_ascii=False, separators=(",", ":")).encode())
        assert size <= BUDGET and first["hasMore"] is True
        assert first["length"] == len(first["content"]) < 5000
        rest = await call(
            client, "getDocumentDetails", filePath="/ja/library.txt", offset=first["length"]
        )
        assert text.startswith(first["content"] + rest["content"][:100])
        asked = await call(client, "getDocumentDetails", filePath="/ja/library.txt", length=6400)
        assert asked["content"] == text  # a length asked for is given whole


CEILING = 64_000


def _wire_size(answer: object) -> int:
    return len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


async def test_document_details_at_any_length_fit_the_ceiling_and_say_where_to_go_on(
    fresh_index: Index,
) -> None:
    text = "".join(f"Zeile {n}: Kündigungsfrist für Mieterinnen – 東京. " for n in range(6_000))
    with fresh_index.writer() as w:
        w.add({"file_path": "/de/long.txt", "content": text})
    read, offset, calls = "", 0, 0
    async with connect(fresh_index) as client:
        while True:
            part = await call(
                client, "getDocumentDetails", filePath="/de/long.txt", offset=offset, length=100_000
            )
            calls += 1
            assert _wire_size(part) <= CEILING
            read += part["content"]
            if not part["hasMore"]:
                assert "nextOffset" not in part
                break
            assert part["nextOffset"] == offset + part["length"]
            offset = part["nextOffset"]
    assert read == text and calls >= len(text.encode()) // CEILING


async def test_the_largest_search_answer_fits(client: Client) -> None:
    answer = await call(
        client,
        "search",
        query="contract OR Vertrag",
        defaultOperator="OR",
        pageSize=100,
        maxPassages=10,
        passageLength=1000,
    )
    assert _wire_size(answer) <= BUDGET and answer["passagesOmitted"] > 0


@pytest.fixture(scope="module")
def many_long_documents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """30 documents dense with matches: a page of 20 cannot carry three passages for each."""
    rng = random.Random(5)
    index = Index.open(tmp_path_factory.mktemp("many-long-docs"))
    with index.writer() as w:
        for n in range(30):
            w.add(
                {
                    "file_path": f"/home/someone/Documents/Verträge/Mietvertrag-{n:02d}.pdf",
                    "title": f"Mietvertrag {n}",
                    "content": ". ".join(
                        " ".join(rng.choice(WORDS) for _ in range(14)) for _ in range(400)
                    ),
                    "language": "de",
                }
            )
    yield index
    index.close()


async def test_a_page_of_20_gives_every_hit_a_passage_before_none_to_some(
    many_long_documents: Index,
) -> None:
    """Measured before: at pageSize 20, 18 of 20 hits came without any passage. Now each hit
    keeps its best passage, shortened if need be, and the answer says what was cut."""
    async with connect(many_long_documents) as client:
        answer = await call(
            client,
            "search",
            query="contract OR Vertrag OR tenant OR Mieter",
            defaultOperator="OR",
            pageSize=20,
        )
    assert _wire_size(answer) <= BUDGET
    passages = [d["passages"] for d in answer["documents"]]
    assert len(passages) == 20 and all(len(p) >= 1 for p in passages), [len(p) for p in passages]
    assert answer["passagesOmitted"] == 60 - sum(len(p) for p in passages) > 0
    for name in answer.get("fieldsOmitted", ()):  # said for every hit alike
        assert all(name not in d for d in answer["documents"]), name
    assert all("filePath" in d and "score" in d for d in answer["documents"])
    for hit in passages:
        for passage in hit:
            text = passage["text"]
            assert "<em>" in text  # the cut keeps a match
            assert text.count("<em>") == text.count("</em>")
            visible = re.sub(r"</?em>", "", text)
            assert len(visible) <= answer.get("passagesShortenedTo", 200) + 2  # and the …s


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.tuples(st.text(alphabet="abc xyz.", min_size=1, max_size=12), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    limit=st.integers(min_value=5, max_value=120),
)
def test_a_shortened_passage_keeps_its_first_match_and_balanced_tags(
    words: list[tuple[str, bool]], limit: int
) -> None:
    text = "".join(f"<em>{w}</em>" if marked else w for w, marked in words)
    visible = "".join(w for w, _ in words)
    cut = shorten(text, limit)
    shown = re.sub(r"</?em>", "", cut)
    assert len(shown.strip("…")) <= limit
    assert shown.strip("…") in visible  # a piece of the text, nothing made up
    assert re.fullmatch(r"(?:[^<]|<em>[^<]+</em>)*", cut), cut  # balanced, never nested or empty
    if len(visible) <= limit:
        assert cut == text
    elif any(marked for _, marked in words):
        assert "<em>" in cut  # the first match stays in view


def _longest(data: dict[str, list[str]]) -> tuple[str, list[str]] | None:
    """The pick rule of the test: the list with the most items (the first such), if it can give
    one up."""
    name = max(data["lists"], key=lambda n: len(data["lists"][n]), default=None)
    if name is None or not data["lists"][name]:
        return None
    return name, data["lists"][name]


@settings(max_examples=200, deadline=None)
@given(
    lists=st.dictionaries(
        st.sampled_from(["a", "bb", "ccc"]),
        st.lists(st.text(alphabet='xyzäß€😀"\\', max_size=30), max_size=12),
        max_size=3,
    ),
    budget=st.integers(min_value=10, max_value=400),
    total=st.booleans(),
)
def test_the_fitter_counts_its_own_note_exactly(
    lists: dict[str, list[str]], budget: int, total: bool
) -> None:
    """``shapes.fit`` with a note drops exactly as many items as an oracle that writes the note
    after each drop and measures the whole answer again (plain ``json.dumps``): the note's
    bytes are counted, never guessed."""
    from pylucene_mcp.basics.shapes import fit

    def size(value: object) -> int:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())

    expected: dict[str, object] = {"lists": {k: list(v) for k, v in lists.items()}}
    counts: dict[str, int] = {}
    while size(expected) > budget and (picked := _longest(expected)) is not None:  # type: ignore[arg-type]
        name, items = picked
        items.pop()
        counts[name] = counts.get(name, 0) + 1
        expected["dropped"] = sum(counts.values()) if total else dict(counts)
    data: dict[str, object] = {"lists": {k: list(v) for k, v in lists.items()}}
    fit(data, budget, lambda: _longest(data), "dropped", total=total)  # type: ignore[arg-type]
    assert data == expected
