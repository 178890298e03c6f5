#!/usr/bin/env python3
"""Loads .heapsnapshot files into a real Chrome DevTools Memory panel and reads back what it shows.

    Scripts/devtools/devtools_check.py PLAN.json [--output RESULT.json]

PLAN.json:
    {"snapshots": ["/abs/a.heapsnapshot", "/abs/b.heapsnapshot"],
     "screenshots": "/abs/folder",                                   (optional)
     "queries": [{"kind": "summary", "snapshot": 0},
                 {"kind": "inspect", "snapshot": 0, "id": 11, "depth": 8},
                 {"kind": "comparison", "snapshot": 1, "base": 0}]}

The result (JSON, on stdout or in --output) has "chromium" (the browser's version), "loads"
(per snapshot: seconds from the file to the Summary shown) and "results" (one per query: the
Summary's rows; an object's row and its Retainers; the Comparison's rows), and the screenshots
taken after each step. Exit status: 0 on success, 3 when no Chromium is found, 4 when the
frontend or a query failed (the message says which), 2 for a bad plan.

How: headless Chromium (Debian's /usr/lib/chromium/chromium, or $RETAINGRAPH_CHROMIUM) started
with --remote-debugging-pipe; a tab opens DevTools' own bundled frontend,
devtools://devtools/bundled/devtools_app.html; frontend.js, evaluated in that tab, shows the
Memory panel, hands each file to ProfilesPanel.loadFromFile (what "Load profile" calls once a
file is chosen) and reads the panel's data grids. The file's bytes reach the tab through
Runtime.evaluate in 4 MB pieces: DOM.setFileInputFiles, which works on an ordinary page, leaves
the frontend's own file input empty (checked on Chromium 156, devtools:// and http-served).
"""
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_pipe import Browser, BrowserNotFound, ProtocolError  # noqa: E402

FRONTEND = "devtools://devtools/bundled/devtools_app.html"
CHUNK = 4 << 20
VERBOSE = bool(os.environ.get("RETAINGRAPH_DEVTOOLS_VERBOSE"))


def note(text):
    if VERBOSE:
        print(f"devtools_check: {text}", file=sys.stderr, flush=True)


def screenshot(browser, session, folder, name):
    if not folder:
        return None
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".png")
    shot = browser.call("Page.captureScreenshot", {"format": "png"}, session)
    with open(path, "wb") as file:
        file.write(base64.b64decode(shot["data"]))
    return path


def open_frontend(browser):
    session = browser.open_page(FRONTEND)
    helpers = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "frontend.js")).read()
    deadline = time.monotonic() + 120
    while True:  # the frontend's modules load asynchronously: retry until they import
        try:
            ready = browser.evaluate(session, "document.readyState === 'complete' && "
                                     "typeof window.Main !== 'undefined'")
            if ready and browser.evaluate(session, helpers) and \
                    browser.evaluate(session, "__retainGraph.ready()"):
                return session
        except ProtocolError:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise ProtocolError("the DevTools frontend did not load within 120 s")
        time.sleep(0.1)


def load(browser, session, path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    browser.evaluate(session, "__retainGraph.startFile()")
    for start in range(0, len(text), CHUNK):
        browser.evaluate(session, "__retainGraph.addChunk(%s)" % json.dumps(text[start:start + CHUNK]))
    return browser.evaluate(
        session, "__retainGraph.loadFile(%s)" % json.dumps(os.path.basename(path)), timeout=900)


def run(plan):
    folder = plan.get("screenshots")
    if folder:
        os.makedirs(folder, exist_ok=True)
    browser = Browser(log_path=os.path.join(folder, "chromium.log") if folder else None)
    try:
        version = browser.call("Browser.getVersion")["product"]
        session = open_frontend(browser)
        loads = []
        for index, path in enumerate(plan["snapshots"]):
            note(f"loading {path}")
            loaded = load(browser, session, path)
            loaded["screenshot"] = screenshot(browser, session, folder, f"summary-{index}")
            loads.append(loaded)
        results = []
        for number, query in enumerate(plan.get("queries", [])):
            kind, index = query["kind"], query["snapshot"]
            note(f"query {query}")
            if kind == "summary":
                value = browser.evaluate(session, f"__retainGraph.summary({index})", timeout=300)
                name = f"{number:02d}-summary-{index}"
            elif kind == "inspect":
                value = browser.evaluate(session, "__retainGraph.inspect(%d, %d, %d)" % (
                    index, query["id"], query.get("depth", 8)), timeout=300)
                name = f"{number:02d}-retainers-{index}-at-{query['id']}"
            elif kind == "comparison":
                value = browser.evaluate(session, "__retainGraph.comparison(%d, %d)" % (
                    index, query["base"]), timeout=300)
                name = f"{number:02d}-comparison-{index}-vs-{query['base']}"
            else:
                raise ValueError(f"unknown query kind {kind!r}")
            results.append({"query": query, "value": value,
                            "screenshot": screenshot(browser, session, folder, name)})
        return {"chromium": version, "loads": loads, "results": results}
    finally:
        browser.close()


def main(arguments):
    if not arguments or arguments[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    output = None
    if "--output" in arguments:
        output = arguments[arguments.index("--output") + 1]
    try:
        with open(arguments[0]) as file:
            plan = json.load(file)
    except (OSError, ValueError) as error:
        print(f"devtools_check: cannot read the plan: {error}", file=sys.stderr)
        return 2
    try:
        result = run(plan)
    except BrowserNotFound as error:
        print(f"devtools_check: {error}", file=sys.stderr)
        return 3
    except (ProtocolError, OSError, KeyError, ValueError) as error:
        print(f"devtools_check: {error}", file=sys.stderr)
        return 4
    text = json.dumps(result, indent=1)
    if output:
        with open(output, "w") as file:
            file.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
