"""What each inspector page shows, computed without any UI: tables, series and texts.

Pages call these and only render; tests check them directly.
"""
