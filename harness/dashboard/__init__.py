"""The static dashboard: HTML pages with server-side SVG charts, built from the history DB.

Layer: above ``harness.analysis`` (it draws the Z3 schedule figures through it), below
the front doors.  ``data`` gathers what the pages show, ``svg`` draws charts as SVG text,
``site`` writes the pages.  No JavaScript, no network: the site opens from ``file://``.
"""
