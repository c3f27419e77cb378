"""Presenter mode for the Live page and the demo: the page across the whole screen in large
type, a banner at each moment worth stopping on, the newest decision scrolled into view, and
Space / R on the keyboard for the page's Step and Restart buttons.

A toggle turns it on; `?present=1` in the address does too, so a presenter can bookmark it.
Streamlit has no key bindings of its own. The streamlit-shortcuts component, which adds them,
also fires on keys typed into a text field, so R in the message box or in a select box's
search would restart the script: the few lines of script here leave typing alone.
"""

from __future__ import annotations

import json

import streamlit as st

from ..core.presenter_banners import Banner
from .safe import html_text

PARAM = "present"
TOGGLE = "presenter_toggle"
COLOURS = {"predicted": ("#e7f5ff", "#1c7ed6"), "conflict": ("#fff5f5", "#e03131")}

# the sidebar away and the page across the screen; every size in rem grows with the root
LOOK = """<style>
html { font-size: 20px !important; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"] { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: none !important;
  padding: 1.5rem 1.5rem 1rem 1.5rem !important; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.5rem; padding: 0; }
[data-testid="stMetricValue"] { font-size: 1.6rem; }
/* the scripts' elements hold nothing to see: no gap for them */
[data-testid="stElementContainer"]:has(.presenter-script) { display: none; }
</style>"""

# one listener for the page's life; it reads the keys of the buttons from the page each time,
# so a page drawn without them (presenter mode off, another page) reacts to no key
KEYS_SCRIPT = """<script>
(() => {
  if (window.__presenterKeys) return;
  window.__presenterKeys = true;
  document.addEventListener("keydown", (e) => {
    const spec = document.querySelector(".presenter-keys");
    if (!spec || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const t = e.target;
    const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)
                         || t.getAttribute("role") === "slider");
    if (typing) return;
    const key = JSON.parse(spec.dataset.keys)[e.key.toLowerCase()];
    if (!key) return;
    e.preventDefault();
    // a focused button would take a Space as a click of its own
    if (t && t.tagName === "BUTTON") t.blur();
    const button = document.querySelector(`.st-key-${key} button`);
    if (button && !button.disabled) button.click();
  });
})();
</script>"""

# the moment changed: bring its element into view, scrolling no further than needed
SCROLL_SCRIPT = """<script>
(() => {
  const anchor = document.querySelector(TARGET);
  if (!anchor || window.__presenterShown === MOMENT) return;
  window.__presenterShown = MOMENT;
  const box = anchor.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight)
    anchor.scrollIntoView({block: "nearest", behavior: "smooth"});
})();
</script>"""


def presenter_toggle(where=st) -> bool:
    """The toggle, on at first when the address says `?present=1`; the address follows it."""
    if TOGGLE not in st.session_state:
        st.session_state[TOGGLE] = st.query_params.get(PARAM) == "1"
    on = where.toggle("Presenter mode", key=TOGGLE,
                      help="Full width, large type, a banner at each moment worth stopping on; "
                           "Space steps, R restarts. Bookmark it with ?present=1")
    if on and st.query_params.get(PARAM) != "1":
        st.query_params[PARAM] = "1"
    elif not on and PARAM in st.query_params:
        del st.query_params[PARAM]
    if on:
        st.html(LOOK)
    return on


def key_bindings(keys: dict[str, str], where=st) -> None:
    """Each key (" " for Space, "r") clicks the button of that widget key while it is enabled."""
    where.html(f"<div class='presenter-script presenter-keys' hidden "
               f"data-keys='{html_text(json.dumps(keys))}'></div>{KEYS_SCRIPT}",
               unsafe_allow_javascript=True)


def scroll_to(target: str, moment: str) -> None:
    """When `moment` changes (a new window closed, the next fact was stepped to), scroll the
    first element matching the CSS selector `target` into view."""
    script = (SCROLL_SCRIPT.replace("TARGET", json.dumps(target))
              .replace("MOMENT", json.dumps(moment)))
    st.html(f"<div class='presenter-script' hidden></div>{script}",
            unsafe_allow_javascript=True)


def is_presenting() -> bool:
    return bool(st.session_state.get(TOGGLE))


def banner_html(banner: Banner) -> str:
    back, edge = COLOURS[banner.kind]
    lines = "".join(f"<li>{html_text(line)}</li>" for line in banner.lines_to_show())
    return (f"<div class='presenter-banner banner-{banner.kind}' style='background:{back};"
            f"border-left:0.4rem solid {edge};border-radius:0.4rem;padding:0.5rem 0.9rem;"
            f"margin:0 0 0.5rem 0'><span style='font-weight:700;font-size:1.15em;color:{edge}'>"
            f"{html_text(banner.title)}</span> {html_text(banner.note)}"
            f"<ul style='margin:0.2rem 0 0 0'>{lines}</ul></div>")


def show_banners(banners: list[Banner]) -> None:
    if banners:
        st.html("".join(banner_html(b) for b in banners))
