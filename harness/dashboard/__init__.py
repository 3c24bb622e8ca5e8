"""The static dashboard: HTML pages with server-side SVG charts, built from the history DB.

``data`` (trends), ``stages`` (stage curves), ``watch`` (level changes, verdict per workload) and ``best`` gather
what the pages show, ``svg`` draws charts, ``site`` renders ``templates/`` (jinja2).  No JavaScript, no network.
"""
