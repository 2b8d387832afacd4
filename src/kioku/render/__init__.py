"""Agent "Memory Configuration" sections: presets, Jinja rendering, parsing back, splicing.

- ``kioku.render.spec``: ``SectionConfig`` and validation of criteria/categories/agent names.
- ``kioku.render.section``: ``render_section``, ``parse_section`` (used by the evaluator).
- ``kioku.render.splice``: ``splice(path, section_text)`` between the managed markers.
- ``kioku.render.presets``: ``PRESETS``, ``get_preset``.
- ``kioku.render.templating``: the Jinja environment (StrictUndefined) and the templates folder.

No eager imports here: the evaluator imports ``parse_section`` without loading jinja2.
"""
