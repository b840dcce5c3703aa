/**
 * One NVRTC compile: CUDA C++ source and options in, the image the driver loads (a cubin,
 * or PTX for a device newer than NVRTC) and the compile log out. A compile error is a
 * `CudaCompileError` with the log and the line it blames.
 */
import { NVRTC_ERROR_COMPILATION, NVRTC_SUCCESS } from './constants.ts';
import { CudaCompileError, NvrtcError } from './errors.ts';
import type { Nvrtc, NvrtcApi } from './nvrtc.ts';

/** What NVRTC made of a source: the image for `cuModuleLoadData`, and its log (warnings, usually empty). */
export interface CompiledImage {
  readonly image: Uint8Array;
  readonly output: 'cubin' | 'ptx';
  readonly log: string;
}

/** The name NVRTC gives the source in its messages: `loom.cu(12): error: ...`. */
const SOURCE_NAME = 'loom.cu';

/** Compiles `source` with `options` (the architecture among them) into the image of `output`. */
export function compileImage(
  nvrtc: Nvrtc,
  source: string,
  options: readonly string[],
  output: 'cubin' | 'ptx',
): CompiledImage {
  const { api } = nvrtc;
  const cell = new BigUint64Array(1);
  check(api, 'nvrtcCreateProgram', api.nvrtcCreateProgram(cell, source, SOURCE_NAME, 0, null, null));
  const program = cell[0];
  try {
    const code = api.nvrtcCompileProgram(program, options.length, [...options]);
    const log = programLog(api, program);
    if (code === NVRTC_ERROR_COMPILATION)
      throw new CudaCompileError(code, api.nvrtcGetErrorString(code), log, source, options);
    check(api, 'nvrtcCompileProgram', code, `options: ${options.join(' ')}${log.trim() ? `\n${log.trim()}` : ''}`);
    const image =
      output === 'cubin'
        ? readBytes(api, program, 'nvrtcGetCUBIN', api.nvrtcGetCUBINSize, api.nvrtcGetCUBIN)
        : readBytes(api, program, 'nvrtcGetPTX', api.nvrtcGetPTXSize, api.nvrtcGetPTX);
    return { image, output, log };
  } finally {
    // nobody to report a failure to here: the result is deliberately ignored
    api.nvrtcDestroyProgram(new BigUint64Array([program]));
  }
}

function programLog(api: NvrtcApi, program: bigint): string {
  const bytes = readBytes(api, program, 'nvrtcGetProgramLog', api.nvrtcGetProgramLogSize, api.nvrtcGetProgramLog);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** The size-then-bytes protocol of NVRTC's getters (a PTX or a log ends in a NUL, kept: the driver wants it). */
function readBytes(
  api: NvrtcApi,
  program: bigint,
  call: string,
  size: (program: bigint, size: BigUint64Array) => number,
  get: (program: bigint, into: Uint8Array) => number,
): Uint8Array {
  const cell = new BigUint64Array(1);
  check(api, `${call}Size`, size.call(api, program, cell));
  const bytes = new Uint8Array(Number(cell[0]));
  if (bytes.length > 0) check(api, call, get.call(api, program, bytes));
  return bytes;
}

function check(api: NvrtcApi, call: string, code: number, detail?: string): void {
  if (code !== NVRTC_SUCCESS) throw new NvrtcError(call, code, api.nvrtcGetErrorString(code), detail);
}
