// refused: LoomError: argument 'a' has dtype float64: WGSL has no 64-bit floats; use float32, or run on the OpenCL or CPU device, which support float64
