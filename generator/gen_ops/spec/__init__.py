"""From a spec file to its model: finding the files, reading the YAML with
positions, checking its structure, and the model a valid spec becomes.

- ``discovery``: which files are specs, and each one's project root (Note
  [Project root]); ``display`` for paths in messages;
- ``source``: YAML 1.2 values and where each stands (``Positions``,
  ``YamlPath``); duplicate keys, features specs never need;
- ``schema_check``: structure, by the shipped JSON Schema, every failure
  a located diagnostic; ``fastschema``: the fast "surely valid" for it
  (Note [Fast schema path]);
- ``model``: the spec after validation (``OpSpec``, frozen dataclasses),
  built by ``semantics``;
- ``spec_cache``: the models of valid specs kept between runs of the
  history commands (Note [Spec cache]).

The meaning checks are ``gen_ops.semantics``.
"""
