"""The browser tests' kept tab (tests/browser_session.py) starts each test clean: what one test
left in it (cookies, storage, dark media, its viewport) is gone for the next, and a test that
fails does not hand its tab on."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser_app import need_chromium, open_browser

LEFT = """() => [document.cookie, localStorage.getItem('left'), sessionStorage.getItem('left'),
  matchMedia('(prefers-color-scheme: dark)').matches, innerWidth]"""


class Page(BaseHTTPRequestHandler):
    def do_GET(self):   # noqa: N802 - the handler's name is fixed by http.server
        body = b"<!doctype html><title>kept</title><p>kept</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def origin():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_next_test_finds_the_tab_clean(origin):
    need_chromium()
    with open_browser(viewport=(900, 700)) as page:
        page.goto(origin)
        page.context.add_cookies([{"name": "left", "value": "1", "url": origin}])
        page.emulate_media(color_scheme="dark")
        page.evaluate("() => { localStorage.setItem('left', '1'); "
                      "sessionStorage.setItem('left', '1'); }")
        assert page.evaluate(LEFT) == ["left=1", "1", "1", True, 900]
        first = page
    with open_browser(viewport=(1000, 700)) as page:
        assert page is first, "the tab was not kept"
        page.goto(origin)
        assert page.evaluate(LEFT) == ["", None, None, False, 1000]


def test_a_failed_test_does_not_hand_on_its_tab(origin):
    need_chromium()
    with pytest.raises(AssertionError), open_browser(failure_shot=None) as page:
        failed = page
        raise AssertionError("the test failed")
    with open_browser() as page:
        assert page is not failed
    with open_browser() as page, open_browser(fresh=True) as other:
        assert other is not page and other.context is not page.context
