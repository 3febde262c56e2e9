"""Meaning checks on structurally valid specs, and construction of the model.

Everything a spec may say beyond its shape is checked here, one module per
range of diagnostic codes, around a small shared context (``context``):

- ``names``: module, op type and element names; REG_OP members (E3xx, W901,
  W902, W904); ``text``: free text (E303);
- ``dtypes``: type variables, dtype names and named sets (E4xx, W903);
- ``elements``: inputs, outputs and graphs (E301, E305, E605, W907);
- ``attrs``: defaults and derived attrs (E5xx);
- ``rules``: count, derive and infer_meta rules (E6xx), parsed by
  ``rule_syntax``;
- ``reuse``: an output's ``reuse_input`` (E615-E617, W906);
- ``selftest``: reference, samples and tolerance (E621-E625);
- ``elementwise``: the element-wise expression (E631-E633);
- ``impl``: capabilities, launch arguments, the author path (E7xx);
- ``across``: rules between specs (E8xx);
- ``spec``: one spec through all of them, into its OpSpec.

Problems are collected, never raised; a spec with an error yields no model.
"""

from gen_ops.semantics.across import Claim, Names, check_across, claim
from gen_ops.semantics.spec import check_spec

__all__ = ["Claim", "Names", "check_across", "check_spec", "claim"]
