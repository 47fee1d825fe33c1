"""A search answer's suggested next calls (``actions: true``): each one, made as suggested,
does what its ``why`` says."""

from __future__ import annotations

import pytest

from pylucene_mcp import Index
from tests.mcp_client import call, connect


@pytest.fixture
def reports(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        for n in range(25):
            w.add(
                {
                    "file_path": f"/r/{n:02}.txt",
                    "content": f"quarterly report {n}",
                    "language": "de" if n % 5 else "en",  # 20 de, 5 en
                    "author": "Ann" if n < 15 else "Bo",
                }
            )
    return fresh_index


@pytest.mark.anyio
async def test_each_suggested_call_does_what_it_says(reports: Index) -> None:
    arguments = {"query": "report", "maxPassages": 1}
    async with connect(reports) as client:
        answer = await call(client, "search", actions=True, **arguments)
        actions = answer["_actions"]
        assert [a["why"] for a in actions] == [
            "read the top document",
            "page 2 of 3",
            "only language 'de': 20 of 25 hits",
            "only author 'Ann': 15 of 25 hits",
        ]
        for action in actions:
            given = {**arguments, **action["arguments"]} if action["sameArguments"] else {}
            followed = await call(client, action["tool"], **(given or action["arguments"]))
            if action["tool"] == "getDocumentDetails":
                assert followed["filePath"] == answer["documents"][0]["filePath"]
            elif "page" in action["arguments"]:
                assert followed["page"] == 2 and followed["documents"] != answer["documents"]
            else:
                count = int(action["why"].split(": ")[1].split(" of ")[0])
                assert followed["totalHits"] == count
        last = await call(client, "search", actions=True, page=3, **arguments)
        assert "page" not in str([a["arguments"] for a in last["_actions"]])  # no page after
        paged = await call(client, "search", actions=True, cursor="*", **arguments)
        assert {"cursor": paged["nextCursor"]} in [a["arguments"] for a in paged["_actions"]]
        assert "_actions" not in await call(client, "search", **arguments)
