"""The composition root: the one place that wires camera, table, link, buttons, web and café.

``companion run`` and ``companion demo`` call into this package; nothing else imports it,
so every other layer stays free of the concrete parts it is given.
"""
