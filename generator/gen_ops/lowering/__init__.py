"""From a model to the views the templates print, one lowering per family
of outputs, and the leaves the lowerings share.

The lowerings (``lower_python``, ``lower_cpp``, ``lower_impl``,
``lower_docs``, ``lower_history``) import leaves only, never one another:

- ``names``: every Python name of generated code (Note [Keyword renaming]);
  ``imports``: the imports of a generated module; ``layout``: where every
  file goes;
- ``reg_op``: REG_OP's grammar (macros, dtype symbols, members);
  ``reg_op_chain``: an op's REG_OP chain as data; ``cpp_reserved``: the
  names C++ and the system headers reserve;
- ``signature``: a parameter of a generated function;
  ``builder_signature``: the builder's parameters and result;
  ``call_shapes``: calls of earlier releases (Note [Calls of earlier
  releases]); ``impl_bodies``: the bodies of the prototype and
  ``declare_launch_args``;
- ``words``: what generated docs say of dtypes and a parameter's history;
  ``dtype_table``: dtype constraints as the op tables spell them;
- ``facts``: what an op contributes to files it shares with others (data).

``targets`` is the one module that knows every lowering: which lowerings
render each output family (``LOWERINGS``), and an op's facts (``facts_of``).
"""
