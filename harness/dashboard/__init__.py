"""The static dashboard: HTML pages with server-side SVG charts, built from the history DB.

Layer: above ``harness.results`` and ``harness.analysis``, below the front doors; schedule
figures come from each backend's traits.  ``data`` (trends), ``stages`` (stage curves and
schedule figures' records), ``watch`` (level changes, verdict per workload) and ``best`` (the
best-config table) gather what the pages show, ``svg`` draws charts as SVG text, ``site``
renders ``templates/`` (jinja2) into pages.  No JavaScript, no network: the site opens from
``file://``.
"""
