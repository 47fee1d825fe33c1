"""The MCP Apps, end to end in headless Chromium: the official host side of MCP Apps (the
``AppBridge`` of ``@modelcontextprotocol/ext-apps``, bundled by ``scripts/ensure-apps-host``) loads
each app from the server's ``ui://`` resource into a sandboxed iframe under the spec's default CSP
and forwards its tool calls to the real server over stdio. The test clicks through the apps as a
person would and checks the effect on the index through the server itself.

Chromium is Debian's (``/usr/bin/chromium``, installed by ``.ci/run``), driven by Playwright for
Python without a browser download. Without it the test is skipped, unless
``PYLUCENE_MCP_REQUIRE_BROWSER`` is set (CI sets it). Screenshots go to the test's temporary
folder; with ``PYLUCENE_MCP_UPDATE_SCREENSHOTS=1`` they also replace those in ``docs/images/``."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import Index
from tests.corpus import build_index
from tests.stdio_peer import StdioPeer, handshake
from tests.waiting import answered

CHROMIUM = Path("/usr/bin/chromium")
DOCS_IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# the host: the official MCP Apps AppBridge (@modelcontextprotocol/ext-apps), bundled by
# scripts/ensure-apps-host; it loads an app in a sandboxed iframe (an opaque origin, apart from
# the host's) under the spec's default CSP, passes the tool's input and result, and forwards the
# app's tools/call to the real server (window.mcpCall, a Python function)
APPS_HOST = Path(__file__).resolve().parent / "apps_host"
HOST_BUNDLE = APPS_HOST / "dist" / "host.js"
AXE = APPS_HOST / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("PYLUCENE_MCP_REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    if not HOST_BUNDLE.exists() or not AXE.exists():
        if os.environ.get("PYLUCENE_MCP_REQUIRE_BROWSER"):
            pytest.fail(f"{HOST_BUNDLE} is missing: run scripts/ensure-apps-host")
        pytest.skip(f"{HOST_BUNDLE} is missing (scripts/ensure-apps-host builds it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield launched
        launched.close()


class Host:
    """The test host: one page, one app, the real server over stdio."""

    def __init__(
        self, browser: Any, index_path: Path, home: Path, env: dict[str, str] | None = None
    ) -> None:
        self.peer = StdioPeer(index_path, home, env)
        handshake(self.peer, "2025-11-25")
        self.page = browser.new_page(viewport={"width": 920, "height": 640})
        self.console: list[str] = []
        self.page.on("console", lambda message: self.console.append(message.text))
        self.page.on("pageerror", lambda error: self.console.append(f"Uncaught {error}"))
        self.page.expose_function("mcpCall", self.call)
        self.page.set_content('<!DOCTYPE html><html><body style="margin:0"></body></html>')
        self.page.add_script_tag(path=str(HOST_BUNDLE))

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = self.peer.request("tools/call", {"name": name, "arguments": arguments})
        if "error" in answer:
            message = answer["error"]["message"]
            return {"isError": True, "content": [{"type": "text", "text": message}]}
        result: dict[str, Any] = answer["result"]
        return result

    def open(
        self, tool: str, arguments: dict[str, Any], theme: str = "light", width: int = 900
    ) -> Any:
        """Opens the app of ``tool`` (read from its ``_meta.ui``) in a frame ``width`` pixels
        wide, as a host does."""
        tools = self.peer.request("tools/list")["result"]["tools"]
        uri = next(t for t in tools if t["name"] == tool)["_meta"]["ui"]["resourceUri"]
        read = self.peer.request("resources/read", {"uri": uri})["result"]["contents"][0]
        assert read["mimeType"] == "text/html;profile=mcp-app"
        self.page.evaluate(
            "([html, tool, args, theme, width]) => window.startApp(html, tool, args, theme, width)",
            [read["text"], tool, arguments, theme, width],
        )
        return self.page.frame_locator("iframe")

    def close(self) -> None:
        self.page.close()
        self.peer.close()
        # the app ran under the host's strict CSP and broke none of it
        assert not [line for line in self.console if "Content Security Policy" in line]


def shot(host: Host, tmp_path: Path, name: str) -> None:
    """A picture of the app as the host shows it, once the frame has the app's height."""
    target = tmp_path / f"{name}.png"
    host.page.wait_for_function(
        "() => document.querySelector('iframe').getBoundingClientRect().height >= window.appHeight"
    )
    # a frame of another origin is painted only inside the viewport: make room for all of it
    height = host.page.evaluate("window.appHeight")
    host.page.set_viewport_size({"width": 920, "height": height})
    host.page.locator("iframe").screenshot(path=str(target))
    if os.environ.get("PYLUCENE_MCP_UPDATE_SCREENSHOTS"):
        DOCS_IMAGES.mkdir(exist_ok=True)
        shutil.copyfile(target, DOCS_IMAGES / f"{name}.png")


#: the pages of a paged document of the corpus (the preview's): "herons" on the first and second
HERON_PAGES = [
    "The grey heron waits. Herons stand still for a long time.\n\n",
    "Page two: the purple herons nest in reeds.\n\n",
    "Page three speaks of kingfishers alone.",
]


@pytest.fixture
def corpus_index(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    index = Index.open(tmp_path / "index")
    build_index(index, folder)
    with index.writer() as writer:  # deleted documents, which Optimize drops for good
        for n in range(30):
            writer.add({"file_path": f"/scratch/{n}.txt", "content": f"note {n}", "file_size": n})
    with index.writer() as writer:  # facet values longer than a column is wide
        writer.add(
            {
                "file_path": "/scratch/contract-review.docx",
                "content": "The contract review of the framework agreement.",
                "file_size": 2048,
                "author": ["Maximiliane Alexandra von Schwarzenberg-Hohenlohe-Waldenburg"],
                "file_type": "application/vnd.openxmlformats-officedocument"
                ".wordprocessingml.document",
            }
        )
    with index.writer() as writer:  # a document of three pages
        writer.add(
            {
                "file_path": "/scratch/herons.pdf",
                "title": "Herons of the marsh",
                "content": "".join(HERON_PAGES),
                "page_offsets": [sum(map(len, HERON_PAGES[:k])) for k in range(3)],
                "file_size": 4096,
            }
        )
    with index.writer() as writer:  # few: Lucene merges a segment of many deletions at once
        for n in (3, 7):
            writer.delete(f"/scratch/{n}.txt")
    index.close()
    return tmp_path / "index"


@pytest.fixture
def host(browser: Any, corpus_index: Path, tmp_path: Path) -> Iterator[Host]:
    opened = Host(browser, corpus_index, tmp_path / "home")
    yield opened
    opened.close()


def stats(host: Host) -> dict[str, Any]:
    found: dict[str, Any] = host.call("getIndexStats", {})["structuredContent"]
    return found


def test_index_admin_optimizes_and_purges_behind_a_confirmation(host: Host, tmp_path: Path) -> None:
    before = stats(host)
    assert before["deletedDocuments"] > 0
    app = host.open("indexAdmin", {})
    documents = app.get_by_test_id("documents")
    assert documents.inner_text() == f"{before['documentCount']:,}"
    assert app.get_by_test_id("deleted").inner_text() == str(before["deletedDocuments"])
    assert app.get_by_test_id("crawl-status").inner_text() == "IDLE"
    shot(host, tmp_path, "index-admin")

    app.get_by_role("button", name="Optimize").click()
    dialog = app.get_by_role("dialog")
    assert "one segment" in dialog.inner_text()
    app.get_by_role("button", name="Confirm").click()
    app.get_by_text("optimize done").wait_for()
    assert stats(host)["deletedDocuments"] == 0  # the server's own figure
    assert app.get_by_test_id("deleted").inner_text() == "0"

    app.get_by_role("button", name="Purge").click()
    app.get_by_role("button", name="Cancel").click()  # a person changes their mind
    app.get_by_text("purge cancelled").wait_for()
    assert stats(host)["documentCount"] == before["documentCount"]
    app.get_by_role("button", name="Purge").click()
    app.get_by_role("button", name="Confirm").click()
    app.get_by_text("purge done").wait_for()
    assert stats(host)["documentCount"] == 0
    assert documents.inner_text() == "0"
    calls = host.page.evaluate("window.calls")
    assert {"optimizeIndex", "purgeIndex", "getIndexAdminStatus", "indexAdmin"} <= set(calls)


def test_an_unlock_that_unlocks_nothing_is_not_said_done(host: Host) -> None:
    """The server holds the index's lock itself: the unlock had shown a green "done" and the
    result as raw JSON."""
    app = host.open("indexAdmin", {})
    app.get_by_test_id("documents").wait_for()
    app.get_by_role("button", name="Unlock").click()
    app.get_by_role("button", name="Confirm").click()
    status = app.locator("#status")
    status.filter(has_text="nothing to unlock").wait_for()
    assert "done" not in status.inner_text() and "{" not in status.inner_text()
    assert "done" not in (status.get_attribute("class") or "")
    assert "{" not in app.locator("#operations").inner_text()  # words, not JSON
    assert app.get_by_role("button", name="Optimize").is_enabled()  # no crawl runs


def test_index_admin_follows_the_hosts_dark_theme(host: Host, tmp_path: Path) -> None:
    app = host.open("indexAdmin", {}, theme="dark")
    app.get_by_test_id("documents").wait_for()
    background = app.locator("body").evaluate("b => getComputedStyle(b).backgroundColor")
    red, green, blue = (int(c) for c in background[4:-1].split(",")[:3])
    assert max(red, green, blue) < 80, background  # dark
    shot(host, tmp_path, "index-admin-dark")


FORGE = """(forged) => new Promise((sent) => {
  window.addEventListener("message", (event) => { if (event.data === "forged-sent") sent(); });
  const sibling = document.createElement("iframe");
  sibling.setAttribute("sandbox", "allow-scripts");
  sibling.srcdoc = "<script>parent.frames[0].postMessage(" + JSON.stringify({jsonrpc: "2.0",
    method: "ui/notifications/tool-result", params: {structuredContent: forged}}) +
    ", '*'); parent.postMessage('forged-sent', '*');<" + "/script>";
  document.body.append(sibling);
})"""
GENUINE = """(genuine) => document.querySelector("iframe").contentWindow.postMessage({
  jsonrpc: "2.0", method: "ui/notifications/tool-result",
  params: {structuredContent: genuine}}, "*")"""


def test_an_app_hears_only_the_host_that_embeds_it(host: Host) -> None:
    """A result posted by another frame of the page (a sibling) is not rendered; the host's
    own message, posted after it, is."""
    arguments = {"query": "contract OR agreement", "pageSize": 5}
    answer = host.call("search", arguments)["structuredContent"]
    app = host.open("search", arguments)
    rows = app.locator("#hits tr")
    rows.first.wait_for()
    forged = {
        **answer,
        "totalHits": 1,
        "documents": [{**answer["documents"][0], "title": "FORGED"}],
    }
    genuine = {
        **answer,
        "totalHits": 2,
        "documents": [{**d, "title": "GENUINE"} for d in answer["documents"][:2]],
    }
    host.page.evaluate(FORGE, forged)
    host.page.evaluate(GENUINE, genuine)
    app = host.page.frame_locator("iframe").first  # the app's frame, beside the sibling now
    rows = app.locator("#hits tr")
    app.locator("#hits").filter(has_text="GENUINE").wait_for()
    assert "FORGED" not in app.locator("#hits").inner_text()
    assert rows.count() == 2


def test_search_results_filter_sort_narrow_and_preview(host: Host, tmp_path: Path) -> None:
    arguments = {"query": "*vertrag* OR contract OR agreement OR report", "pageSize": 20}
    answer = host.call("search", arguments)["structuredContent"]
    app = host.open("search", arguments)
    rows = app.locator("#hits tr")
    rows.first.wait_for()
    assert rows.count() == len(answer["documents"])
    assert app.get_by_test_id("total").inner_text() == f"{answer['totalHits']} hits"
    shot(host, tmp_path, "search-results")

    # the filter box keeps the rows whose text holds the words
    app.get_by_label("filter this page").fill("vertrag")
    expected = [
        d["filePath"]
        for d in answer["documents"]
        if "vertrag" in json.dumps(d, ensure_ascii=False).lower()
    ]
    assert 0 < len(expected) < len(answer["documents"])
    assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.path)")) == sorted(expected)
    app.get_by_label("filter this page").fill("")

    # a click on the Size header sorts the page by size, twice: descending
    size_of = {d["filePath"]: d["fileSize"] for d in answer["documents"]}
    app.get_by_role("columnheader", name="Size").click()
    app.get_by_role("columnheader", name="Size").click()
    shown = [size_of[p] for p in rows.evaluate_all("rs => rs.map(r => r.dataset.path)")]
    assert shown == sorted(size_of.values(), reverse=True)

    # a facet value narrows the search on the server
    language = answer["facets"]["language"][0]
    app.locator(f"[data-facet='language={language['value']}']").click()
    app.get_by_test_id("total").filter(has_text=f"{language['count']} hits").wait_for()
    narrowed = host.call(
        "search", {**arguments, "filters": [{"field": "language", "value": language["value"]}]}
    )["structuredContent"]
    assert narrowed["totalHits"] == language["count"]
    assert rows.count() == len(narrowed["documents"]) == min(language["count"], 20)
    assert app.get_by_text(f"language: {WORDS[language['value']]}").is_visible()

    # a preview reads the document through getDocumentDetails
    first = rows.first.get_attribute("data-path")
    rows.first.get_by_role("button", name="Preview").click()
    preview = app.get_by_test_id("preview")
    preview.wait_for()
    details = host.call("getDocumentDetails", {"filePath": first, "length": 3000})
    assert details["structuredContent"]["content"][:60] in preview.inner_text()
    assert "getDocumentDetails" in host.page.evaluate("window.calls")


FACETS_SEEN = """() => [...document.querySelectorAll('#facets button')].map((b) => {
  const count = b.querySelector('.count').getBoundingClientRect();
  const value = b.querySelector('.value').getBoundingClientRect();
  return {value: b.dataset.facet.slice(b.dataset.facet.indexOf('=') + 1),
    shown: b.querySelector('.value').textContent, lineHeight: value.height,
    count: b.querySelector('.count').textContent,
    countRight: count.right, countWidth: count.width, valueRight: value.right,
    width: document.documentElement.clientWidth, overflow: document.documentElement.scrollWidth};
})"""

#: how a person reads a facet's value, written here from the file types' and languages' names
WORDS = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word document",
    "application/pdf": "PDF",
    "message/rfc822": "E-mail",
    "de": "German",
    "en": "English",
}


def narrowed_to(host: Host, app: Any, width: int) -> None:
    """Sets the app's frame to ``width`` pixels and waits until it has laid out at it."""
    host.page.evaluate(f"document.querySelector('iframe').style.width = '{width}px'")
    for _ in range(100):
        if app.locator("html").evaluate("h => h.clientWidth") <= width:
            return
        host.page.wait_for_timeout(50)
    raise AssertionError(f"the frame did not narrow to {width}px")


@pytest.mark.parametrize("width", [720, 420, 360])
def test_search_results_at_chat_width_show_every_facet_and_its_count(
    host: Host, tmp_path: Path, width: int
) -> None:
    """At chat width the facet column had been a fixed 190 px: long values ran off its edge
    and every count was hidden; then the facets came below the results, after 5,000 px of hits
    at 360 px, where the document column had 130 px. The facets fold above the results, one
    click away; each value is named as a person reads it, wraps, and keeps its count inside the
    frame; and at phone width a hit's document has the frame's width."""
    arguments = {"query": "contract OR agreement OR review OR bericht OR vertrag", "pageSize": 10}
    answer = host.call("search", arguments)["structuredContent"]
    app = host.open("search", arguments)
    app.locator("#hits tr").first.wait_for()
    narrowed_to(host, app, width)
    # folded above the results: the hits come first to the eye, the facets a click away
    table = app.locator("table").bounding_box()
    refine = app.get_by_test_id("refine")
    folded = refine.bounding_box()
    assert table is not None and folded is not None
    assert folded["y"] + folded["height"] <= table["y"]
    assert not app.locator("#facets").is_visible()
    refine.click()
    seen = app.locator("body").evaluate(FACETS_SEEN)
    expected = {
        (value["value"], str(value["count"]))
        for values in answer["facets"].values()
        for value in values
    }
    assert {(s["value"], s["count"]) for s in seen} == expected
    named = {s["value"]: s["shown"] for s in seen}
    assert {v: WORDS[v] for v in named if v in WORDS} == {
        v: w for v, w in named.items() if v in WORDS
    }
    assert "application/vnd.openxmlformats-officedocument.wordprocessingml.document" in named
    one_line = min(s["lineHeight"] for s in seen)
    word = next(s for s in seen if s["shown"] == "Word document")
    assert word["lineHeight"] == one_line  # read at a glance, on one line
    for facet in seen:  # every count is drawn, whole, inside the frame; nothing scrolls sideways
        assert facet["countWidth"] > 0 and facet["countRight"] <= facet["width"], facet
        assert facet["valueRight"] <= facet["width"], facet
        assert facet["overflow"] <= facet["width"], facet
    # each hit's document column has most of the frame
    columns = app.locator("#hits td.document").evaluate_all(
        "tds => tds.map((td) => td.getBoundingClientRect().width)"
    )
    assert min(columns) >= 0.6 * width, columns
    # the value the facet filters on is the raw one: a click narrows on the server
    language = answer["facets"]["language"][0]
    app.locator(f"[data-facet='language={language['value']}']").click()
    app.get_by_test_id("total").filter(has_text=f"{language['count']} hits").wait_for()
    shot(host, tmp_path, f"search-results-{width}")


def test_a_search_that_fails_says_so_in_plain_words_and_offers_the_correction(
    host: Host,
) -> None:
    """A malformed query had shown red parser text over an empty table whose buttons then
    threw TypeErrors."""
    app = host.open("search", {"query": '"signed contract'})
    problem = app.get_by_test_id("problem")
    problem.wait_for()
    assert "The search did not run" in problem.inner_text()
    for name in ("Previous", "Next"):
        assert app.get_by_role("button", name=name).is_disabled()
    assert app.get_by_label("filter this page").is_disabled()
    app.get_by_role("columnheader", name="Size").click()  # acts on nothing, breaks nothing
    app.get_by_role("button", name='Search for "signed contract"').click()
    app.get_by_test_id("total").filter(has_text="hits").wait_for()
    assert problem.is_hidden()
    assert not [line for line in host.console if "TypeError" in line or "Uncaught" in line]


def test_an_app_opened_without_a_host_says_where_it_belongs(browser: Any, tmp_path: Path) -> None:
    from pylucene_mcp.server.tools.apps import app_html

    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(app_html("search-results"))
    page.get_by_text("inside an MCP host").wait_for(timeout=10_000)
    assert page.get_by_role("button", name="Next").is_disabled()
    assert page.get_by_label("filter this page").is_disabled()
    page.close()
    assert errors == []


def test_crawl_dashboard_shows_each_folder_its_failures_and_the_watchers_changes(
    host: Host, tmp_path: Path
) -> None:

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.txt").write_text("A note about herons.")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nnot a pdf")
    host.call("addCrawlableDirectory", {"path": str(folder)})  # crawls it
    app = host.open("getCrawlerStats", {})  # during the crawl: the dashboard follows it
    stats = answered(
        lambda: host.call("getCrawlerStats", {})["structuredContent"],
        lambda stats: "last" in stats and stats["status"] in ("IDLE", "WATCHING"),
        60,
        "the crawl's end",
    )
    app.get_by_test_id("state").filter(has_text=stats["status"]).wait_for()
    rows = app.get_by_test_id("folders").locator("tr")
    rows.filter(has_text=str(folder)).wait_for()
    counts = stats["last"]["perDirectory"][str(folder)]
    cells = rows.first.locator("td").all_inner_texts()
    assert cells == [
        str(folder),
        *(str(counts[k]) for k in ("found", "added", "updated", "deleted", "skipped", "failed")),
    ]
    assert counts["found"] == 2 and counts["failed"] == 1
    failure = stats["last"]["failures"][0]
    failures = app.get_by_test_id("failures").inner_text()
    assert str(folder / "broken.pdf") in failures and failure["reason"] in failures
    assert app.get_by_role("button", name="Pause").is_disabled()  # nothing runs
    assert app.get_by_role("button", name="Start crawl").is_enabled()

    # a file written after the crawl: the watcher indexes it, the dashboard lists it
    (folder / "later.txt").write_text("More herons.")
    answered(
        lambda: host.call("getCrawlerStats", {})["structuredContent"]["recentChanges"],
        lambda changes: any(c["filePath"].endswith("later.txt") for c in changes),
        30,
        "the watcher's indexing of later.txt",
    )
    app.get_by_role("button", name="Refresh").click()
    change = app.get_by_test_id("changes").locator("tr").filter(has_text="later.txt")
    change.wait_for()
    assert "added" in change.inner_text()
    shot(host, tmp_path, "crawl-dashboard")


def test_crawl_dashboard_says_how_far_the_vectors_are_and_what_makes_them(
    browser: Any, corpus_index: Path, tmp_path: Path
) -> None:
    """While 372 of 424 documents waited for vectors, nothing said so: the dashboard follows the
    embedder until none waits, with the server's own figures and what runs the model."""
    from tests.semantic_model import ensure

    env = {"PYLUCENE_MCP_VECTORS": "on", "PYLUCENE_MCP_EMBEDDING_MODEL": str(ensure())}
    host = Host(browser, corpus_index, tmp_path / "home", env)
    try:
        app = host.open("getCrawlerStats", {})
        line = app.get_by_test_id("vectors")
        count = host.call("getIndexStats", {})["structuredContent"]["documentCount"]
        done = line.filter(has_text=f"Vectors: {count:,} documents searchable by meaning")
        try:  # the embedder's threads run nicer than the browser's: on a busy machine, minutes
            done.wait_for(timeout=300_000)
        except Exception as exc:  # said with how far the embedder is
            status = host.call("getCrawlerStatus", {})["structuredContent"]
            raise AssertionError((status.get("vectors"), line.inner_text())) from exc
        vectors = host.call("getCrawlerStatus", {})["structuredContent"]["vectors"]
        assert (vectors["embedded"], vectors["waiting"]) == (count, 0)
        assert f"({vectors['runtime']})" in line.inner_text()
        assert "waiting" not in line.inner_text()
    finally:
        host.close()


def test_crawl_dashboard_follows_ocr_until_the_scans_are_recognised(
    host: Host, tmp_path: Path
) -> None:
    from pylucene_mcp.crawler.tesseract import find_tesseract
    from tests.crawler.scans import scan_png

    if find_tesseract() is None:
        pytest.skip("Tesseract is not installed (scripts/ensure-tesseract)")
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "note.txt").write_text("A note about herons.")
    scan_png(folder / "receipt.png", ["Receipt number 4711 for one espresso machine."])
    host.call("addCrawlableDirectory", {"path": str(folder)})
    app = host.open("getCrawlerStats", {})
    line = app.get_by_test_id("ocr")
    done = line.filter(has_text="OCR (eng+deu): 1 scans recognised (1 pages")
    try:
        done.wait_for(timeout=120_000)
    except Exception as exc:  # said with how far OCR is
        status = host.call("getCrawlerStatus", {})["structuredContent"]
        raise AssertionError((status.get("ocr"), line.inner_text())) from exc
    assert "waiting" not in line.inner_text()
    hit = host.call("search", {"query": '"espresso machine"'})["structuredContent"]["documents"]
    assert [(h["fileName"], h["ocr"]) for h in hit] == [("receipt.png", True)]
    narrowed_to(host, app, 420)
    overflow = app.locator("html").evaluate("h => h.scrollWidth - h.clientWidth")
    assert overflow <= 0, overflow


def test_crawl_dashboard_without_folders_says_what_to_do_at_chat_width(host: Host) -> None:
    app = host.open("getCrawlerStats", {})
    app.get_by_test_id("folders").filter(has_text="addCrawlableDirectory").wait_for()
    narrowed_to(host, app, 420)
    assert "No crawl yet" in app.get_by_test_id("failures").inner_text()
    for name in ("Pause", "Resume", "Stop", "Start crawl"):  # nothing to act on
        assert app.get_by_role("button", name=name).is_disabled(), name
    overflow = app.locator("html").evaluate("h => h.scrollWidth - h.clientWidth")
    assert overflow <= 0, overflow


def test_query_builder_writes_the_query_counts_it_and_explains_it(
    host: Host, tmp_path: Path
) -> None:
    view = host.call("queryBuilder", {})["structuredContent"]
    app = host.open("queryBuilder", {})
    text = app.get_by_test_id("query-text")
    hits = app.get_by_test_id("hits")
    hits.filter(has_text=f"{view['documentCount']:,} documents").wait_for()  # "*" at first
    assert text.inner_text() == "*"

    app.get_by_label("All of these words").fill("contract")
    app.get_by_label("Any of these words").fill("signed agreement")
    app.get_by_label("None of these words").fill("C++")
    language = view["facets"]["language"][0]["value"]
    app.locator("select[data-dim='language']").select_option(language)
    query = r"contract (signed OR agreement) -C\+\+"
    text.filter(has_text=query).wait_for()
    assert text.inner_text() == query
    filters = [{"field": "language", "operator": "eq", "value": language}]
    expected = host.call("search", {"query": query, "filters": filters, "pageSize": 1})[
        "structuredContent"
    ]["totalHits"]
    unit = "document" if expected == 1 else "documents"
    hits.filter(has_text=f"{expected:,} {unit}").wait_for()  # the server's own count

    app.get_by_label("In", exact=True).select_option("title")
    assert text.inner_text() == r"title:contract title:(signed OR agreement) -title:C\+\+"
    app.get_by_role("button", name="Explain (profileQuery)").click()
    explanation = app.get_by_test_id("explanation")
    app.get_by_test_id("together").wait_for()

    # in the form's words: what each box finds, and what the excluded word leaves out of the
    # rest, each counted by the server's own search
    def count(query: str) -> int:
        found = host.call("search", {"query": query, "filters": filters, "pageSize": 1})
        return int(found["structuredContent"]["totalHits"])

    def documents(n: int) -> str:
        return f"{n:,} document" + ("" if n == 1 else "s")

    parts = app.locator("li[data-part]").all_inner_texts()
    assert parts == [
        f"All of these words: contract — {documents(count('title:contract'))}",
        "Any of these words: signed or agreement — "
        + documents(count("title:(signed OR agreement)")),
        "None of these words: C++ — leaves out "
        + documents(count(r"title:contract title:(signed OR agreement) title:C\+\+")),
    ]
    total = count(r"title:contract title:(signed OR agreement) -title:C\+\+")
    assert app.get_by_test_id("together").inner_text().startswith(f"Together: {total:,} of ")
    assert "BooleanQuery" not in explanation.inner_text()  # Lucene's tree is folded away
    explanation.get_by_text("How Lucene runs it").click()
    assert "title:contract" in explanation.inner_text()
    assert not [line for line in host.console if "Uncaught" in line or "TypeError" in line]
    shot(host, tmp_path, "query-builder")


def test_document_preview_shows_pages_and_jumps_from_match_to_match(
    host: Host, tmp_path: Path
) -> None:
    arguments = {"filePath": "/scratch/herons.pdf", "query": "herons"}
    answer = host.call("getDocumentDetails", arguments)["structuredContent"]
    text = "".join(HERON_PAGES)
    # the server's matches are the word and its other form in the text (word forms are on, as
    # in a search), checked here, not by the app
    assert [text[o : o + n].lower() for o, n in answer["matches"]] == ["heron", "herons", "herons"]
    assert answer["pageOffsets"] == [0, len(HERON_PAGES[0]), len(HERON_PAGES[0] + HERON_PAGES[1])]
    app = host.open("getDocumentDetails", arguments)
    where = app.get_by_test_id("match")
    page = app.get_by_test_id("page")
    where.filter(has_text="match 1 of 3").wait_for()
    assert page.inner_text() == "page 1 of 3"
    assert app.locator("#text").inner_text().startswith("The grey heron waits.")
    assert app.locator("#text mark").all_inner_texts() == ["heron", "Herons"]
    assert app.locator("#text mark.current").inner_text() == "heron"
    app.get_by_role("button", name="Match ▶").click()
    where.filter(has_text="match 2 of 3").wait_for()
    assert app.locator("#text mark.current").inner_text() == "Herons"
    app.get_by_role("button", name="Match ▶").click()
    where.filter(has_text="match 3 of 3").wait_for()
    assert page.inner_text() == "page 2 of 3"
    assert app.locator("#text mark.current").inner_text() == "herons"
    assert app.get_by_role("button", name="Match ▶").is_disabled()
    app.get_by_role("button", name="Page ▶").click()
    page.filter(has_text="page 3 of 3").wait_for()
    assert "kingfishers" in app.locator("#text").inner_text()
    assert app.locator("#text mark").count() == 0
    assert app.get_by_role("button", name="Page ▶").is_disabled()
    app.get_by_role("button", name="◀ Match").click()
    where.filter(has_text="match 2 of 3").wait_for()
    assert page.inner_text() == "page 1 of 3"
    shot(host, tmp_path, "document-preview")
    assert not [line for line in host.console if "Uncaught" in line or "TypeError" in line]


def test_document_preview_of_a_missing_document_says_so(host: Host) -> None:
    app = host.open("getDocumentDetails", {"filePath": "/scratch/nowhere.txt"})
    app.get_by_text("The document could not be shown").wait_for()
    assert app.get_by_role("button", name="Match ▶").is_disabled()


#: each app: its tool, the arguments it is opened with (``{docs}``: the crawled folder), what
#: shows once it has its data
APPS = {
    "search-results": (
        "search",
        {"query": "Vertrag* OR quokka OR Lagerhaltung OR budget", "pageSize": 10},
        "#hits tr",
    ),
    "index-admin": ("indexAdmin", {}, "[data-testid=documents]"),
    "crawl-dashboard": ("getCrawlerStats", {}, "#folders tr"),
    "query-builder": ("queryBuilder", {}, "[data-testid=hits]:has-text('documents')"),
    "document-preview": (
        "getDocumentDetails",
        {"filePath": "{docs}/lagerhandbuch.pdf", "query": "Regale OR Zebrafinkenschwarm"},
        "mark.current",
    ),
}
#: where every app's screenshot of each width and theme is kept (CI keeps the folder)
SCREENSHOTS = Path(__file__).resolve().parents[1] / "build" / "app-screenshots"
SERIOUS = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
  .filter((v) => v.impact === "serious" || v.impact === "critical")
  .map((v) => v.id + " (" + v.impact + "): " + v.nodes.map((n) => n.target.join(" ")).join(", "))"""


def crawled(host: Host, folder: Path) -> None:
    """The server crawls real files of each main kind (PDF, Office, OpenDocument, e-mail …)
    made by real writers, in ``folder``; returns when the crawl has ended."""

    from tests.crawler.files import make_corpus

    make_corpus(folder)
    host.call("addCrawlableDirectory", {"path": str(folder)})
    stats = answered(
        lambda: host.call("getCrawlerStats", {})["structuredContent"],
        lambda stats: "last" in stats and stats["status"] in ("IDLE", "WATCHING"),
        180,
        "the crawl's end",
    )
    found = host.call("search", {"query": "*", "maxPassages": 0})["structuredContent"]
    assert found["totalHits"] >= 10, json.dumps(stats)  # every kind of file is in


@pytest.mark.parametrize("name", sorted(APPS))
def test_each_app_at_each_width_and_theme_fits_and_passes_axe(
    host: Host, name: str, tmp_path: Path
) -> None:
    """With the data of a real crawl, at 360, 720 and 1280 px, light and dark: the app shows
    its data, nothing scrolls sideways, no script error, and axe-core finds no serious or
    critical violation."""
    tool, template, ready = APPS[name]
    docs = tmp_path / "docs"
    crawled(host, docs)
    arguments = json.loads(json.dumps(template).replace("{docs}", str(docs)))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for width in (360, 720, 1280):
        for theme in ("light", "dark"):
            host.page.evaluate("document.querySelectorAll('iframe').forEach((f) => f.remove())")
            host.page.set_viewport_size({"width": width + 20, "height": 700})
            app = host.open(tool, arguments, theme=theme, width=width)
            app.locator(ready).first.wait_for()
            frame = host.page.frames[-1]
            overflow = frame.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            if overflow > 0:
                problems.append(f"{width}px {theme}: {overflow}px scroll sideways")
            background = frame.evaluate("() => getComputedStyle(document.body).backgroundColor")
            darkness = max(int(c) for c in background[4:-1].split(",")[:3])
            if (darkness < 80) != (theme == "dark"):
                problems.append(f"{width}px {theme}: background {background}")
            frame.add_script_tag(path=str(AXE))
            problems += [f"{width}px {theme}: {v}" for v in frame.evaluate(SERIOUS)]
            height = host.page.evaluate("window.appHeight || 600")
            host.page.set_viewport_size({"width": width + 20, "height": height})
            host.page.locator("iframe").screenshot(
                path=str(SCREENSHOTS / f"{name}-{width}-{theme}.png")
            )
    assert not problems, problems
    errors = [line for line in host.console if "Uncaught" in line or "Error" in line]
    assert not errors, errors
