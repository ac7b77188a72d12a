"""The dashboard: a Streamlit app that reads the warehouse, like the command line's read-only
verbs (``status``, ``problems``), and never writes it (docs/DASHBOARD.md).

Nothing is imported here: :mod:`flows.dashboard.command` (the ``graduatoria dashboard`` verb)
must load with the standard library alone, so that ``graduatoria --help`` stays fast.
"""
