"""memory-system: Markdown memory in ``.agents/memory/`` (project) and ``~/.agents/memory/`` (user).

Nothing is imported here, so hooks pay only for the modules they use. Modules:

- ``api``       public entry points: remember, build_recall, search, forget, organize (SaveResult)
- ``save``      the save path behind ``api.remember`` (duplicate rules); not imported by recall
- ``index``     MEMORY.md parse/render (``- [type] summary → topic-file.md``; ≤150 chars, ≤200 lines)
- ``topics``    topic files: frontmatter (tiny stdlib parser), one ``## date summary`` section per memory
- ``store``     one memory folder: lock, atomic writes, backups of damaged files, index rebuild
- ``classify``  type and topic from the wording (English + Japanese)
- ``contradict`` deterministic contradiction detector (supersede instead of sitting beside)
- ``guard``     what may not be stored (secrets, transcripts, long code, over-long text)
- ``recall``    SessionStart text: ranked, within budget, fenced and redacted (stdlib only)
- ``search``    one ``path:line`` hit per memory, cut off by relevance (kioku.retrieval.hybrid, .vectors)
- ``organize``  report / propose / ``--apply`` merges and archiving; ``forget``
- ``edit``      edit a memory's text or type, restore it from the archive (the web UI's writes)
- ``textutil``  normalisation, tokens for near-duplicates, summaries, time keys
"""
