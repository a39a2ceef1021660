"""``kenning ui``: a local web inspector of one data directory, served on this machine only.

``app`` holds who may use it (the printed token, a session cookie, a form token on every change,
the Host and Origin check of ``kenning.httpguard``) and how a page is served; one module per part
of the store renders its pages: ``memories`` (list, search, one item, its changes), ``skills``
(library, versions, the review queue of drafts) and ``records`` (hot memory, notes, audit, stats).
Every change is a call of the library, the same the CLI makes.

Needs the ``ui`` extra (``pip install 'kenning[ui]'``: Starlette, uvicorn, Jinja2).
"""
