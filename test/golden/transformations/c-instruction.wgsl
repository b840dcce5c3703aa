// refused: LoomError: instruction 'insn' is C code (cInstruction), which the wgsl target cannot run: only targets that compile C run it (OpenCL, CUDA, C)
