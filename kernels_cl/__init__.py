"""OpenCL C kernel sources, loaded with importlib.resources (see warpkit.runtime.load_source)."""
