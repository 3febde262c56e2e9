"""What every room of gen-ops stands on; imports nothing else of gen-ops.

- ``diagnostics``: every diagnostic code (``CODES``), a diagnostic's
  format, ``Sink`` and ``suggest``; ``diagnostics_json``: the JSON report;
- ``charset``: which characters spec text and outputs may hold (Note
  [Invisible characters]);
- ``untrusted``: the one reader of files a user did not write (Note
  [Untrusted files]);
- ``resources``: where the templates and the JSON Schema are, and the
  schema copy beside the specs (Note [Schema copy]);
- ``fingerprint``: the digest of gen-ops' own code, which every cache
  between runs is keyed on;
- ``jsonstr``: JSON strings for the files written line by line;
- ``collector``: the cycle collector paused while specs load;
- ``interrupts``: signals as exceptions, held while outputs are renamed in.
"""
