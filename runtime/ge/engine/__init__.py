"""Compiling and running graphs on the CPU device.

graph -> ``compiler.compile_graph`` (order, infer metadata, check dtypes,
plan memory, call ``compile``/``declare_launch_args`` and build task tables)
-> ``CompiledGraph.run`` (bind buffers, refresh addresses, launch / call
``execute``). ``ge.session.Session`` is the public face.
"""
