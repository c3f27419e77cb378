"""Security: the API key is never written, exports stay where asked, uploads are bounded, and
uploaded text is shown as text, never rendered as markdown or HTML."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import InputError
from nemori_ui.core.export import run_document, safe_output_path, write_export
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.transcripts import DEFAULT_MAX_BYTES, load_transcript, parse_transcript
from nemori_ui.ui.layout import PAGES
from tests.app_jobs import jobs_done
from tests.conftest import ROOT
from tests.llm_responder import respond

APP = str(ROOT / "app.py")
SERVER_WANTS = "the-key-the-server-wants"
HOSTILE = "<script>alert(1)</script> **bold** [link](http://x) <img src=x onerror=alert(1)>"
TRANSCRIPT = "\n".join(
    f"[2024-03-04 18:{i:02d}] {'Maya' if i % 2 == 0 else '<b>Jonas</b>'}: {text}"
    for i, text in enumerate([
        f"I booked the Lisbon flights for April. {HOSTILE}", "Which race is it?",
        f"The Lisbon half marathon, my first. {HOSTILE}", "How long have you trained?",
        "Since January, three runs a week with the club.", "Do you run alone on Sundays?",
        f"No, the club meets by the river at seven. {HOSTILE}", "A good routine.",
        "My knee hurt after training yesterday.", "Did you see a doctor?",
        f"The physio said rest for a week. {HOSTILE}", "Rest is wise before April."]))


# -- the API key ---------------------------------------------------------------------------------

def through_environment(key: str, url: str, home: Path, monkeypatch) -> str:
    """OPENAI_API_KEY / OPENAI_BASE_URL, and embeddings from the server too."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    config = PipelineConfig(backend="openai", model="test-model", embedder="openai")
    return run_in_process(config, home, {})


def through_argument(key: str, url: str, home: Path, monkeypatch) -> str:
    config = PipelineConfig(backend="openai", model="test-model", base_url=url)
    return run_in_process(config, home, {"api_key": key})


def run_in_process(config: PipelineConfig, home: Path, options: dict) -> str:
    store = open_store(home)
    try:
        clients = build_clients(config, store, RunEnvironment(**options))
        conv = parse_transcript(TRANSCRIPT, source="chat.txt").conversations[0]
        run_id = start_run(store, conv, config, clients, source="chat.txt", fmt="text")
        try:
            run_windows(store, run_id, clients)
        except Exception as exc:  # noqa: BLE001 - a rejected key may stop the run: say how
            return f"{type(exc).__name__}: {exc}"
        return ""
    finally:
        store.close()


def through_command_line(key: str, url: str, home: Path, monkeypatch) -> str:
    transcript = home.parent / "chat.txt"
    transcript.write_text(TRANSCRIPT)
    env = {**os.environ, "OPENAI_API_KEY": key, "NEMORI_HOME": str(home)}
    env.pop("OPENAI_BASE_URL", None)
    out = []
    for args in (["run", str(transcript), "--backend", "openai", "--model", "test-model",
                  "--base-url", url, "--embedder", "openai"], ["runs"]):
        done = subprocess.run([sys.executable, "-m", "nemori_ui", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        out += [done.stdout, done.stderr]
    return "\n".join(out)


def through_run_page(key: str, url: str, home: Path, monkeypatch) -> str:
    """Typed into the Run page's password field, as a person would."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/run.py").run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("chat.txt", TRANSCRIPT.encode(), "text/plain").run()
    next(r for r in at.radio if r.label == "Backend").set_value("openai").run()
    labelled = {t.label: t for t in at.text_input}
    labelled["Model"].input("test-model").run()
    next(t for t in at.text_input if t.label.startswith("Base URL")).input(url).run()
    at.text_input(key="api_key").input(key).run()
    jobs_done(at.button(key="run_button").click().run())
    assert not at.exception, [e.value for e in at.exception]
    return "\n".join(strings(at._tree))


WAYS = {"environment": (through_environment, "sk-proj-NemoriLeakCheck-7f3c9a21e4b85d60"),
        "argument": (through_argument, "local-token-5d1e8b7a9c3f2046"),
        "command line": (through_command_line, "sk-NemoriCliCheck-0a9b8c7d6e5f4031"),
        "run page": (through_run_page, "page-typed-token-81d6c2e9f0a3b574")}


def leaks(key: str, folders: list[Path], texts: list[str]) -> list[str]:
    """Where the key, or its distinctive tail alone, can be read."""
    needles = [key.encode(), key[-12:].encode()]
    found = [str(f) for folder in folders for f in folder.rglob("*") if f.is_file()
             and any(n in f.read_bytes() for n in needles)]
    for f in folders:
        for table in f.rglob("*.parquet"):   # compressed: read it back
            if key[-12:] in json.dumps(pq.read_table(table).to_pylist()):
                found.append(str(table))
    return found + [t[:300] for t in texts if key[-12:] in t]


def export_all(home: Path, out: Path) -> None:
    store = open_store(home)
    try:
        for info in runs.list_runs(store):
            doc = run_document(store, info.id)
            for suffix in (".json", ".jsonl", ".parquet"):
                write_export(doc, out / f"{info.id}{suffix}")
    finally:
        store.close()


@pytest.mark.parametrize("way", list(WAYS))
def test_the_api_key_is_never_written(way, openai_server, isolated_home, tmp_path, caplog,
                                      monkeypatch):
    give, key = WAYS[way]
    caplog.set_level(logging.DEBUG)
    openai_server.responder = respond
    exports = tmp_path / "exports"
    # first the server wants another key and answers 401 quoting this one, then it accepts it
    for wanted in (SERVER_WANTS, key):
        openai_server.api_key = wanted
        said = give(key, openai_server.url, isolated_home, monkeypatch)
        export_all(isolated_home, exports)
        assert not leaks(key, [isolated_home, exports], [said, caplog.text]), (way, wanted)
    sent = [r.headers.get("authorization") for r in openai_server.requests]
    assert f"Bearer {key}" in sent, "the key was never used"
    store = open_store(isolated_home)
    assert any(r.status == "done" for r in runs.list_runs(store)), said
    store.close()


# -- export paths, upload size -------------------------------------------------------------------

@pytest.mark.parametrize("out", ["../x.json", "a/../../x.json", "/tmp/elsewhere/x.json",
                                 "link/x.json"])
def test_an_export_cannot_leave_the_folder_it_was_asked_into(out, tmp_path):
    base = tmp_path / "exports"
    base.mkdir()
    (base / "link").symlink_to(tmp_path)     # a link inside that points outside
    with pytest.raises(InputError, match="leaves the export folder"):
        safe_output_path(out, base)


def test_an_export_inside_the_folder_is_allowed(tmp_path):
    assert safe_output_path("runs/x.jsonl", tmp_path) == (tmp_path / "runs" / "x.jsonl").resolve()
    assert safe_output_path(tmp_path / "x.json", tmp_path) == (tmp_path / "x.json").resolve()
    with pytest.raises(InputError, match="export format"):
        safe_output_path("x.html", tmp_path)


def test_the_upload_limit_holds_in_the_app_and_the_importer(tmp_path):
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 1024 * 1024 == DEFAULT_MAX_BYTES
    too_big = b"Maya: hi\n" * (DEFAULT_MAX_BYTES // 9 + 1)
    with pytest.raises(InputError, match=r"big\.txt: file is 20\.0 MB, over the limit of 20\.0 MB"):
        parse_transcript(too_big, source="big.txt")
    (tmp_path / "big.txt").write_bytes(too_big)
    with pytest.raises(InputError, match="over the limit"):
        load_transcript(tmp_path / "big.txt")
    small = too_big[:90]
    fits = parse_transcript(small, source="s.txt", max_bytes=90)   # the limit itself is allowed
    assert len(fits.conversations[0].messages) == 10
    with pytest.raises(InputError, match="over the limit of 89 bytes"):
        parse_transcript(small, source="s.txt", max_bytes=89)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/run.py").run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("big.txt", too_big, "text/plain").run()
    assert [e.value.replace("\\", "") for e in at.error] == [
        "Cannot read this file. big.txt: file is 20.0 MB, over the limit of 20.0 MB"]


# -- uploaded text is text -----------------------------------------------------------------------

# Element fields shown as plain text whatever they hold; every other string is markdown.
# element paths whose strings are shown as plain text (a multiselect's options too)
PLAIN = re.compile(r"/(text|code|json|dataframe|arrow_data_frame|table)\.|/(multi)?select(box)?\."
                   r"|/text_input\.(default|value)")
MARKER = re.compile(r"alert\(1\)|onerror|bold|link|Jonas|img")
RAW = [re.compile(p, re.I) for p in (r"(?<!\\)<script", r"(?<!\\)<img", r"(?<!\\)<b>Jonas",
                                     r"(?<!\\)\*bold", r"(?<!\\)\[link(?<!\\)\]", r"\]\(http")]


def strings(node, path: str = "") -> list[str]:
    """Every string in the element tree, as `path | text`."""
    out = []
    proto = getattr(node, "proto", None)
    if proto is not None:
        def walk(x, p):
            if isinstance(x, str):
                out.append(f"{p} | {x}")
            elif isinstance(x, dict):
                for k, v in x.items():
                    walk(v, f"{p}.{k}")
            elif isinstance(x, list):
                for i, v in enumerate(x):
                    walk(v, f"{p}[{i}]")
        walk(MessageToDict(proto), path)
    for child in (getattr(node, "children", None) or {}).values():
        out += strings(child, f"{path}/{getattr(child, 'type', '?')}")
    return out


def unescaped(entry: str) -> bool:
    path, _, text = entry.partition(" | ")
    if not MARKER.search(text) or PLAIN.search(path):
        return False
    if path.endswith("plotly_chart.spec"):
        # plotly reads a few HTML tags in labels and hover text, and no markdown
        texts = json.dumps(json.loads(text), ensure_ascii=False)
        return bool(re.search(r"<(script|img|b>Jonas)", texts, re.I))
    return any(p.search(text) for p in RAW)


def test_uploaded_text_is_never_rendered_as_markdown_or_html(isolated_home):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/run.py").run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("**notes** <img src=x>.txt", TRANSCRIPT.encode(),
                                          "text/plain").run()
    jobs_done(at.button(key="run_button").click().run())
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    shown = 0
    for path, *_ in PAGES:
        at.switch_page(path).run()
        assert not at.exception, (path, [e.value for e in at.exception])
        found = strings(at._tree)
        shown += sum(bool(MARKER.search(s)) for s in found)
        bad = [s[:300] for s in found if unescaped(s)]
        assert not bad, (path, bad)
    assert shown, "the uploaded text was shown nowhere: the test would prove nothing"
