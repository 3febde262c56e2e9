"""The ``gen-ops`` commands, one module each (Note [Command layer] in
``base``): ``render`` (the default), ``validate``, ``new``, ``schema``,
``importing`` (``gen-ops import``), ``roundtrip``, ``package``,
``release``, ``compat``, ``changelog`` (these three share
``history_options``) and ``completion``. ``registry`` lists them,
``runner`` runs one, ``report`` prints diagnostics."""
