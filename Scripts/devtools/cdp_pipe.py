"""A headless Chromium and the Chrome DevTools Protocol over a pipe, with the standard library only.

Chromium's --remote-debugging-pipe reads protocol messages from file descriptor 3 and writes
them to descriptor 4, each a JSON text ended by a NUL byte. No port is opened, so nothing else
on the machine can connect to the browser, and no package is needed.
"""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome")


class BrowserNotFound(RuntimeError):
    """No Chromium binary was found."""


class ProtocolError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


def find_chromium():
    """The Chromium binary: $RETAINGRAPH_CHROMIUM, else Debian's, else one on PATH."""
    wanted = os.environ.get("RETAINGRAPH_CHROMIUM")
    for candidate in ([wanted] if wanted else []) + list(CANDIDATES):
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and os.access(path, os.X_OK):
            return path
    raise BrowserNotFound(
        "no Chromium found (tried $RETAINGRAPH_CHROMIUM, " + ", ".join(CANDIDATES) + "); "
        "install Debian's: apt-get install chromium")


class Browser:
    """A headless Chromium started for one run, ended (by its process id) when closed."""

    def __init__(self, width=1400, height=900, log_path=None):
        binary = find_chromium()
        self.profile = tempfile.mkdtemp(prefix="retaingraph-chromium-")
        browser_reads, we_write = os.pipe()
        we_read, browser_writes = os.pipe()

        def wire_descriptors():
            # In the child: the browser's ends on descriptors 3 and 4 (inheritable copies).
            read_end, write_end = os.dup(browser_reads), os.dup(browser_writes)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        arguments = [
            binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-dev-shm-usage",
            f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank",
        ]
        log = open(log_path or os.devnull, "w")
        self.process = subprocess.Popen(
            arguments, preexec_fn=wire_descriptors, close_fds=False,
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        os.close(browser_reads)
        os.close(browser_writes)
        self._read, self._write = we_read, we_write
        self._pending = b""
        self._next_id = 0
        self.events = []

    def call(self, method, params=None, session=None, timeout=120):
        """Sends one command and returns its result, keeping the events that arrive meanwhile."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._write, data):]
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._pending:
                raw, self._pending = self._pending.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") != self._next_id:
                    self.events.append(reply)
                    continue
                if "error" in reply:
                    raise ProtocolError(f"{method}: {reply['error']}")
                return reply["result"]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProtocolError(f"{method}: no answer within {timeout} s")
            if self.process.poll() is not None:
                raise ProtocolError(f"{method}: the browser exited ({self.process.returncode})")
            ready, _, _ = select.select([self._read], [], [], min(remaining, 1.0))
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise ProtocolError(f"{method}: the browser closed the pipe")
                self._pending += chunk

    def evaluate(self, session, expression, timeout=120):
        """Evaluates JavaScript in a page (awaiting a promise) and returns its JSON value."""
        result = self.call("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": True,
        }, session, timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise ProtocolError(f"page exception: {text}")
        return result["result"].get("value")

    def open_page(self, url):
        """Opens a page and attaches to it; returns the session id."""
        target = self.call("Target.createTarget", {"url": url})["targetId"]
        return self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def close(self):
        """Ends the browser this object started and removes its profile."""
        try:
            self.call("Browser.close", timeout=10)
        except (ProtocolError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for descriptor in (self._read, self._write):
            try:
                os.close(descriptor)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
