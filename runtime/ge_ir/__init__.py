"""The vocabulary the ge runtime and gen-ops share: GE's data types, formats
and attr types with their numbers and checks, named attrs, and the names
both must agree on.

This package imports nothing of ``ge`` (nor anything heavy), so gen-ops can
read it without importing the runtime, next to another ``ge`` (CANN's own,
on an Ascend host). The runtime re-exports its public names from
``ge.graph``. gen-ops fingerprints the whole package for its no-change fast
path.
"""
