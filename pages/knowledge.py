"""Placeholder until the page is written."""

from nemori_ui.ui.layout import page_setup

page_setup("knowledge")
