/**
 * CUDA and NVRTC report failures as integer codes. Here they become `LoomError`s that name
 * the call and the code as the driver spells it (`CUDA_ERROR_INVALID_VALUE`), with its own
 * description; a failed compile carries NVRTC's log with the offending source line shown
 * under it, as OpenCL's build errors do.
 */
import { LoomError, type SourceSpan } from '@loom/core';
import type { DriverApi } from './driver.ts';
import type { Koffi } from './native.ts';
import { CUDA_SUCCESS, STICKY_ERRORS } from './constants.ts';

/** A call of the CUDA driver API failed. */
export class CudaError extends LoomError {
  constructor(
    /** The API function that failed, e.g. `cuMemAlloc_v2`. */
    readonly call: string,
    /** The CUresult it returned, e.g. 2. */
    readonly code: number,
    /** The header's name for the code, e.g. `CUDA_ERROR_OUT_OF_MEMORY` (`CUDA error 1234` for an unknown one). */
    readonly codeName: string,
    /** The driver's description of the code, and what the runtime was doing. */
    detail: string,
  ) {
    super(`CUDA call ${call} failed: ${codeName}${detail ? `\n${detail}` : ''}`);
  }
}

/** The driver's name and description of a CUresult, for messages. */
export function describeResult(api: DriverApi, koffi: Koffi, code: number): { name: string; description: string } {
  const text = new BigUint64Array(1);
  const read = (get: (code: number, out: BigUint64Array) => number) => {
    text[0] = 0n;
    return get(code, text) === CUDA_SUCCESS && text[0] !== 0n ? koffi.decode.string(text[0]) : undefined;
  };
  return { name: read(api.cuGetErrorName) ?? `CUDA error ${code}`, description: read(api.cuGetErrorString) ?? '' };
}

/** Makes the `CudaError` for `code` returned by `call`; `detail` says what the runtime was doing. */
export function cudaError(api: DriverApi, koffi: Koffi, call: string, code: number, detail?: string): CudaError {
  const { name, description } = describeResult(api, koffi, code);
  const lines = [description, detail];
  if (STICKY_ERRORS.has(code)) {
    lines.push(
      'a kernel failed on the device, and the CUDA context cannot be used any more in this process: dispose the device',
    );
  }
  return new CudaError(call, code, name, lines.filter(Boolean).join('\n'));
}

/** A call of NVRTC failed. */
export class NvrtcError extends LoomError {
  constructor(
    /** The NVRTC function that failed, e.g. `nvrtcCompileProgram`. */
    readonly call: string,
    /** The nvrtcResult it returned, e.g. 6. */
    readonly code: number,
    /** NVRTC's name for the code, e.g. `NVRTC_ERROR_COMPILATION`. */
    readonly codeName: string,
    detail?: string,
    span?: SourceSpan,
  ) {
    super(`NVRTC call ${call} failed: ${codeName}${detail ? `\n${detail}` : ''}`, span);
  }
}

/** CUDA source did not compile; `log` is NVRTC's output. */
export class CudaCompileError extends NvrtcError {
  constructor(
    code: number,
    codeName: string,
    /** NVRTC's output, as it gave it. */
    readonly log: string,
    source: string,
    options: readonly string[],
  ) {
    const span = firstErrorSpan(log, source);
    const trimmed = log.trim();
    const described = trimmed ? `compile log:\n${indent(trimmed)}` : 'the compile log is empty';
    super(
      'nvrtcCompileProgram',
      code,
      codeName,
      `${described}\noptions: ${options.join(' ')}${span ? '\nthe first error in the source:' : ''}`,
      span,
    );
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * Where NVRTC says the first error is, as a span that lets `LoomError` print that source line
 * with a caret. NVRTC writes `<name>(LINE): error: ...`, then the line itself and a line with
 * a `^` under the spot: the caret's column, found again in the source line, gives the column
 * (else the line's first character).
 */
export function firstErrorSpan(log: string, source: string): SourceSpan | undefined {
  const lines = log.split('\n');
  const at = lines.findIndex((l) => /\(\d+\): (catastrophic )?error\b/.test(l));
  if (at < 0) return undefined;
  const line = Number(/\((\d+)\): /.exec(lines[at])![1]);
  let start = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf('\n', start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  const end = source.indexOf('\n', start) < 0 ? source.length : source.indexOf('\n', start);
  const text = source.slice(start, end);
  const offset = start + caretColumn(text, lines[at + 1], lines[at + 2]);
  return { text: source, start: offset, end: Math.min(offset + 1, Math.max(end, offset + 1)) };
}

/** The column the log's caret points at in `sourceLine`, given the echoed line and the caret line under it. */
function caretColumn(sourceLine: string, echoed: string | undefined, caretLine: string | undefined): number {
  const firstNonBlank = Math.max(0, sourceLine.search(/\S/));
  if (echoed === undefined || caretLine === undefined || !/^\s*\^\s*$/.test(caretLine)) return firstNonBlank;
  const echoedText = echoed.trim();
  const where = echoedText ? sourceLine.indexOf(echoedText) : -1;
  if (where < 0) return firstNonBlank;
  const column = where + caretLine.indexOf('^') - echoed.search(/\S/);
  return column >= 0 && column < sourceLine.length ? column : firstNonBlank;
}
