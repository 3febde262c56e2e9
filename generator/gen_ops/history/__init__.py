"""Releases that never break callers: GE's history registry
(docs/releases.md; GE's side in docs/ge-compat.md, "History registry").

One module per step:

- ``dates``: release dates as GE reads them, and their day numbers;
- ``jsonfile``: a registry file's JSON and where a value of it stands;
- ``records``: one op of one release (``OpRecord``), read and checked as
  GE's reader checks an ``operators.json`` entry; the current specs become
  records through the history export;
- ``registry``: the layout, reading ``index.json`` and ``metadata.json``
  with GE's reader rules (H101 to H106);
- ``operators``: reading a release's ``operators.json`` (H107, H108);
- ``window``: which releases a check compares with;
- ``recording``: ``gen-ops release``, writing a release (H201);
- ``rules``: every compatibility rule: code, verdict, what to do instead;
- ``diff``: which changes between two records fire which rule;
- ``compat``: ``gen-ops compat``, every release of the window against the
  current specs, with the spec's ``breaking:`` marks (H3xx, H4xx, H501);
- ``changelog``: ``gen-ops changelog``, release by release, in Markdown.

The three commands' command lines are ``gen_ops.commands.release``,
``compat`` and ``changelog``.
"""
