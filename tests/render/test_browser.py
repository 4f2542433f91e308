"""A real browser opens the HTML report (issue #16): headless Chromium (Debian's ``chromium``)
loads the file from disk with the network disabled, driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``, standard library only). The tests check from the live DOM that
every figure rendered with a non-zero size, that no request left the page (only the file itself
and ``data:`` images are fetched), that no script ran (no dialog, no ``<script>`` element, the
title intact) although a run is tagged ``<script>alert(1)</script>``, and that the page's
Content-Security-Policy is in force.

``python tests/render/test_browser.py docs/report.png`` writes the screenshot of the README
(the bundled TREC Web 2012 runs against their ad hoc qrels, the QL run as baseline).
"""

from __future__ import annotations

import base64
import fcntl
import gzip
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "cranfield" / "data"
ROBUST = ROOT / "tests" / "data" / "robust03"
CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser")) if p), None)
SCRIPT_TAG = "<script>alert(1)</script>"

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CRANFIELD_REQUIRE_BROWSER"),
    reason="headless Chromium is not installed (apt-get install chromium): the HTML report cannot be opened in a "
           "real browser here")


def test_chromium_is_there_when_ci_requires_it() -> None:
    """.ci/run installs Chromium and sets CRANFIELD_REQUIRE_BROWSER: there, a missing browser fails."""
    if os.environ.get("CRANFIELD_REQUIRE_BROWSER"):
        assert CHROMIUM is not None, "CRANFIELD_REQUIRE_BROWSER is set but no chromium is on the PATH"


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4 of the child)."""

    def __init__(self, width: int = 1280, height: int = 1600) -> None:
        self.profile = tempfile.mkdtemp(prefix="cranfield-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # in the child, before exec: the pipe ends on fds 3 and 4 (inheritable)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_r, from_child_w)]
            for fd, target in zip(high, (3, 4)):
                os.dup2(fd, target)

        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> dict[str, Any]:
        """Call ``method`` (in the page's session once attached) and return its result."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session is not None and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, event: str, timeout: float = 60) -> dict[str, Any]:
        """The next ``event`` (earlier ones already received count too)."""
        for e in self.events:
            if e.get("method") == event:
                return e
        while True:
            e = self._read(timeout)
            self.events.append(e)
            if e.get("method") == event:
                return e

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def open(self, url: str, width: int = 1280, height: int = 1600) -> None:
        """A new page showing ``url``, attached, with network, page, runtime and log events on."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Network", "Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (DevTools runs it whatever the page's CSP says)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def screenshot(self, path: Path, selector: str | None = None) -> None:
        """The viewport as PNG, or (``selector``) the first element it matches, whole."""
        params: dict[str, Any] = {"format": "png"}
        if selector is not None:
            box = json.loads(self.evaluate(
                f"JSON.stringify((() => {{ const r = document.querySelector({json.dumps(selector)})"
                ".getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, "
                "height: r.height}; })())"))
            params.update(clip={**box, "scale": 1}, captureBeyondViewport=True)
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self.profile, ignore_errors=True)


PAGE_STATE = """JSON.stringify((() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const figures = [...document.querySelectorAll('figure.plot')].map(f => {
    const g = f.querySelector('svg, img'); const r = g ? g.getBoundingClientRect() : {width: 0, height: 0};
    return {id: f.id, kind: g ? g.tagName.toLowerCase() : null, width: r.width, height: r.height};
  });
  return {title: document.title, scripts: document.scripts.length, figures: figures,
          csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || null,
          text: document.body.innerText, iframes: document.querySelectorAll('iframe, object, embed').length};
})())"""


def build_bundled(path: Path) -> Any:
    """The README's report: the bundled runs against the ad hoc qrels, QL as the baseline."""
    from cranfield.render.report import Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(str(DATA / "web2012.adhoc.qrels.gz"),
                        [str(DATA / "web2012.ql.run.gz"), str(DATA / "web2012.rm.run.gz")],
                        ["AP", "nDCG@20", "P@10", "RBU(p=0.9)@20"], baseline=0)
    report.save(path)
    return report


def retagged(source: Path, target: Path, tag: str) -> Path:
    """A copy of a run file whose tag column is ``tag``."""
    with gzip.open(source, "rt") as f:
        lines = [" ".join(line.split()[:5] + [tag]) for line in f if line.strip()]
    target.write_text("\n".join(lines) + "\n")
    return target


def load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The page state (:data:`PAGE_STATE`) and the events of opening ``path`` in Chromium."""
    browser = Browser()
    try:
        browser.open(path.resolve().as_uri())
        state = json.loads(browser.evaluate(PAGE_STATE))
        time.sleep(0.3)  # late events (a blocked request, a dialog) arrive here
        browser.evaluate("1")
        return state, list(browser.events)
    finally:
        browser.close()


def check_page(state: dict[str, Any], events: list[dict[str, Any]], url: str, expected: set[str]) -> None:
    """Every expected figure rendered; nothing requested but the file and data: images; no script ran."""
    from cranfield.render.html import CSP

    sizes = {f["id"]: (f["width"], f["height"]) for f in state["figures"]}
    assert expected <= set(sizes), f"figures missing: {sorted(expected - set(sizes))}"
    assert all(w > 50 and h > 50 for w, h in sizes.values()), sizes
    assert all(f["kind"] == "svg" for f in state["figures"])
    requests = [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]
    assert requests and all(u == url or u.startswith("data:") for u in requests), requests
    assert not [e for e in events if e.get("method") == "Page.javascriptDialogOpening"]
    blocked = [e["params"]["entry"]["text"] for e in events
               if e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("source") == "security"]
    assert not blocked, blocked  # the page tried nothing the CSP had to block
    assert state["scripts"] == 0 and state["iframes"] == 0
    assert state["csp"] == CSP
    assert state["title"].startswith("cranfield report: ")


@needs_chromium
def test_bundled_report_renders_every_figure_offline(tmp_path):
    path = tmp_path / "report.html"
    report = build_bundled(path)
    state, events = load(path)
    m = range(len(report.results.measures))
    expected = ({f"ranking-{k}" for k in m} | {f"distribution-{k}" for k in m} | {f"difference-{k}" for k in m}
                | {"precision-recall", "run-lengths"})
    check_page(state, events, path.resolve().as_uri(), expected)
    assert f"{report.results.summary()[0, 0]:.4f}" in state["text"]


@needs_chromium
def test_diversity_report_shows_the_intent_figures(tmp_path):
    from cranfield.render.report import Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(str(DATA / "web2012.diversity.qrels.gz"),
                        [str(DATA / "web2012.ql.run.gz"), str(DATA / "web2012.rm.run.gz")], ["alpha-nDCG@20"])
    path = tmp_path / "div.html"
    report.save(path)
    state, events = load(path)
    check_page(state, events, path.resolve().as_uri(),
               {"ranking-0", "distribution-0", "precision-recall", "intent-coverage", "intent-recall"})


@needs_chromium
def test_a_run_tagged_script_is_text_and_runs_nothing(tmp_path):
    from cranfield.render.report import Report

    evil = retagged(ROBUST / "input.pircRBa1.gz", tmp_path / "evil.run", SCRIPT_TAG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(str(ROBUST / "qrels.txt.gz"), [str(evil), str(ROBUST / "input.uic0301.gz")],
                        ["AP", "nDCG@10"], baseline=SCRIPT_TAG)
    path = tmp_path / "robust.html"
    report.save(path)
    assert SCRIPT_TAG not in path.read_text()
    state, events = load(path)
    check_page(state, events, path.resolve().as_uri(), {"ranking-0", "difference-1", "precision-recall"})
    assert SCRIPT_TAG in state["text"]  # shown as text, in the table and settings


READER_STATE = """JSON.stringify((() => {
  const order = [...document.querySelectorAll('main > section')].map(s => s.id);
  const pairs = document.querySelector('#results details');
  const topics = document.querySelector('table.topics').closest('details');
  const marks = [...document.querySelectorAll('#results .better, #results .worse')].map(e => ({
    cls: e.className, text: e.textContent, label: e.getAttribute('aria-label') || '', title: e.title,
    color: getComputedStyle(e).color}));
  const titles = id => [...document.querySelectorAll('#' + id + ' svg title')].map(t => t.textContent);
  const first = document.querySelector('table.results tbody tr td');
  return {order: order, pairsOpen: pairs ? pairs.open : null, topicsOpen: topics.open, marks: marks,
          differenceTitles: titles('difference-0'), coverageTitles: titles('intent-coverage'),
          firstRun: first.textContent, firstRunTitle: first.querySelector('span').title,
          topicRows: document.querySelector('table.topics').querySelectorAll('tbody tr').length};
})())"""


@needs_chromium
def test_the_page_reads_results_first_with_marks_tooltips_and_tables(tmp_path):
    """Issue #29 item 6, checked in the live page (screenshots in ``tmp_path``): results first and
    settings last; the per-pair table open; ▲/▼ in green/red with an aria-label (not colour alone);
    every topic's difference bar a tooltip with its id; the per-topic table collapsed; the intent
    heat map's columns labelled topic:intent (nav|inf); run labels without the shared tag and
    extension."""
    from cranfield.render.report import Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(str(DATA / "web2012.diversity.qrels.gz"),
                        [str(DATA / "web2012.ql.run.gz"), str(DATA / "web2012.rm.run.gz")],
                        ["alpha-nDCG@20", "ERR-IA@20"], baseline=0, correction="none",
                        intent_types=str(ROOT / "tests" / "data" / "web2012" / "full-topics.xml"))
    path = tmp_path / "reader.html"
    report.save(path)
    browser = Browser()
    try:
        browser.open(path.resolve().as_uri(), width=1200, height=1500)
        state = json.loads(browser.evaluate(READER_STATE))
        browser.screenshot(tmp_path / "reader-top.png")
        browser.screenshot(tmp_path / "reader-results.png", "#results")
        browser.screenshot(tmp_path / "reader-differences.png", "#difference-0")
        browser.evaluate("document.querySelector('table.topics').closest('details').open = true")
        browser.screenshot(tmp_path / "reader-topic-table.png", "table.topics")
        browser.screenshot(tmp_path / "reader-intents.png", "#intent-coverage")
        browser.screenshot(tmp_path / "reader-settings.png", "#settings")
    finally:
        browser.close()
    assert state["order"][0] == "results" and state["order"][-1] == "settings", state["order"]
    assert state["pairsOpen"] is True and state["topicsOpen"] is False
    significant = report.comparisons[0].significant.any() or report.comparisons[1].significant.any()
    assert bool(state["marks"]) == bool(significant)
    for mark in state["marks"]:
        assert mark["text"] in "▲▼" and "significantly" in mark["label"] and "significantly" in mark["title"]
        assert mark["color"] == ("rgb(26, 127, 55)" if "better" in mark["cls"] else "rgb(207, 34, 46)")
    topics = report.results.topics
    assert len(state["differenceTitles"]) == len(topics) and state["topicRows"] == len(topics)
    assert {t.split(":")[0].removeprefix("topic ") for t in state["differenceTitles"]} == set(topics)
    assert state["coverageTitles"] and all(t.endswith((" (nav)", " (inf)")) for t in state["coverageTitles"])
    assert any(t.endswith("(nav)") for t in state["coverageTitles"])
    assert state["firstRun"].startswith("web2012.ql") and state["firstRunTitle"] == "indri#web2012.ql.run.gz"
    assert all((tmp_path / f"reader-{n}.png").stat().st_size > 1000 for n in ("top", "results", "differences",
                                                                               "topic-table", "intents", "settings"))


if __name__ == "__main__":  # the README screenshot
    if CHROMIUM is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "report.png")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        build_bundled(page)
        browser = Browser()
        try:
            browser.open(page.resolve().as_uri(), width=1200, height=1500)
            browser.screenshot(out)
        finally:
            browser.close()
    print(f"wrote {out}")
