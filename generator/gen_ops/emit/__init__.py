"""Text out, and files written: rendering the views, and writing a run's
outputs in one transaction.

Rendering:

- ``render``: the Jinja2 environment and its filters; ``pyformat``:
  black-stable Python without running black on every file (Note
  [Black-stable templates]); ``literals``: values and text in Python, C++,
  JSON and Markdown, so nothing escapes its literal;
- ``outputs``: what a run produces (``OutputFile``, ``Shared``, ``Target``).

Writing:

- ``writer``: the manifest, the plan and ``--check``'s drift;
  ``transaction``: one transaction per run (Note [One transaction], Note
  [Write rule]); ``staging``: staging files with few system calls;
  ``journal``: the journal, read back only when gen-ops can prove it wrote
  it (Note [Journal proof]); ``confined``: a tree's folders opened without
  following symlinks; ``locking``: one writing run per tree (Note [Tree
  lock]);
- ``state``: the no-change fast path and the state file (Note [Known
  digests]);
- ``package_layout``: the files of an op library's wheel.
"""
