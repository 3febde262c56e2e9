"""The CPU device: memory, kernels built from C with gcc, streams and launches.

See docs/runtime.md for the kernel ABI and what the device guards against.
"""
