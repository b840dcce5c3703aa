// refused: LoomError: instruction 'insn' is C code (cInstruction), which the js target cannot run: only targets that compile C run it (OpenCL, CUDA, C)
