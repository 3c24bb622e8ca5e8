"""The static dashboard: HTML pages with server-side SVG charts, built from the history DB.

Layer: above ``harness.results`` and ``harness.analysis``, below the front doors; schedule
figures come from each backend's traits.  ``data`` gathers what the pages show, ``svg`` draws charts as SVG text,
``site`` writes the pages.  No JavaScript, no network: the site opens from ``file://``.
"""
