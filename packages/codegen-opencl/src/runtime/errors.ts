/**
 * OpenCL reports failures as negative integers. Here they become `OpenCLError`s (a `LoomError`) that
 * name the call and the code as the header spells it, and, for a failed build, carry the compiler's
 * log with the offending source line shown under it.
 */
import { LoomError, type SourceSpan } from '@loom/core';
import { CL_SUCCESS } from './constants.ts';

const ERROR_NAMES: Record<number, string> = {
  [-1]: 'CL_DEVICE_NOT_FOUND',
  [-2]: 'CL_DEVICE_NOT_AVAILABLE',
  [-3]: 'CL_COMPILER_NOT_AVAILABLE',
  [-4]: 'CL_MEM_OBJECT_ALLOCATION_FAILURE',
  [-5]: 'CL_OUT_OF_RESOURCES',
  [-6]: 'CL_OUT_OF_HOST_MEMORY',
  [-7]: 'CL_PROFILING_INFO_NOT_AVAILABLE',
  [-8]: 'CL_MEM_COPY_OVERLAP',
  [-9]: 'CL_IMAGE_FORMAT_MISMATCH',
  [-10]: 'CL_IMAGE_FORMAT_NOT_SUPPORTED',
  [-11]: 'CL_BUILD_PROGRAM_FAILURE',
  [-12]: 'CL_MAP_FAILURE',
  [-13]: 'CL_MISALIGNED_SUB_BUFFER_OFFSET',
  [-14]: 'CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST',
  [-15]: 'CL_COMPILE_PROGRAM_FAILURE',
  [-16]: 'CL_LINKER_NOT_AVAILABLE',
  [-17]: 'CL_LINK_PROGRAM_FAILURE',
  [-18]: 'CL_DEVICE_PARTITION_FAILED',
  [-19]: 'CL_KERNEL_ARG_INFO_NOT_AVAILABLE',
  [-30]: 'CL_INVALID_VALUE',
  [-31]: 'CL_INVALID_DEVICE_TYPE',
  [-32]: 'CL_INVALID_PLATFORM',
  [-33]: 'CL_INVALID_DEVICE',
  [-34]: 'CL_INVALID_CONTEXT',
  [-35]: 'CL_INVALID_QUEUE_PROPERTIES',
  [-36]: 'CL_INVALID_COMMAND_QUEUE',
  [-37]: 'CL_INVALID_HOST_PTR',
  [-38]: 'CL_INVALID_MEM_OBJECT',
  [-39]: 'CL_INVALID_IMAGE_FORMAT_DESCRIPTOR',
  [-40]: 'CL_INVALID_IMAGE_SIZE',
  [-41]: 'CL_INVALID_SAMPLER',
  [-42]: 'CL_INVALID_BINARY',
  [-43]: 'CL_INVALID_BUILD_OPTIONS',
  [-44]: 'CL_INVALID_PROGRAM',
  [-45]: 'CL_INVALID_PROGRAM_EXECUTABLE',
  [-46]: 'CL_INVALID_KERNEL_NAME',
  [-47]: 'CL_INVALID_KERNEL_DEFINITION',
  [-48]: 'CL_INVALID_KERNEL',
  [-49]: 'CL_INVALID_ARG_INDEX',
  [-50]: 'CL_INVALID_ARG_VALUE',
  [-51]: 'CL_INVALID_ARG_SIZE',
  [-52]: 'CL_INVALID_KERNEL_ARGS',
  [-53]: 'CL_INVALID_WORK_DIMENSION',
  [-54]: 'CL_INVALID_WORK_GROUP_SIZE',
  [-55]: 'CL_INVALID_WORK_ITEM_SIZE',
  [-56]: 'CL_INVALID_GLOBAL_OFFSET',
  [-57]: 'CL_INVALID_EVENT_WAIT_LIST',
  [-58]: 'CL_INVALID_EVENT',
  [-59]: 'CL_INVALID_OPERATION',
  [-60]: 'CL_INVALID_GL_OBJECT',
  [-61]: 'CL_INVALID_BUFFER_SIZE',
  [-62]: 'CL_INVALID_MIP_LEVEL',
  [-63]: 'CL_INVALID_GLOBAL_WORK_SIZE',
  [-64]: 'CL_INVALID_PROPERTY',
  [-65]: 'CL_INVALID_IMAGE_DESCRIPTOR',
  [-66]: 'CL_INVALID_COMPILER_OPTIONS',
  [-67]: 'CL_INVALID_LINKER_OPTIONS',
  [-68]: 'CL_INVALID_DEVICE_PARTITION_COUNT',
  [-69]: 'CL_INVALID_PIPE_SIZE',
  [-70]: 'CL_INVALID_DEVICE_QUEUE',
  [-71]: 'CL_INVALID_SPEC_ID',
  [-72]: 'CL_MAX_SIZE_RESTRICTION_EXCEEDED',
  // from extensions, but returned by the ICD loader itself
  [-1001]: 'CL_PLATFORM_NOT_FOUND_KHR',
};

/** The header's name for an error code, e.g. `CL_INVALID_VALUE`, or `CL error -1234` for an unknown one. */
export function errorName(code: number): string {
  return ERROR_NAMES[code] ?? `CL error ${code}`;
}

/** An OpenCL call returned an error code. */
export class OpenCLError extends LoomError {
  constructor(
    /** The API function that failed, e.g. `clBuildProgram`. */
    readonly call: string,
    /** The code it returned, e.g. -11. */
    readonly code: number,
    /** What the runtime was doing, appended to the message (which kernel, which argument). */
    detail?: string,
    span?: SourceSpan,
  ) {
    super(`OpenCL call ${call} failed: ${errorName(code)}${detail ? `\n${detail}` : ''}`, span);
  }

  /** The header's name for `code`, e.g. `CL_OUT_OF_RESOURCES` (`CL error -1234` for an unknown code). */
  get codeName(): string {
    return errorName(this.code);
  }
}

/** A program did not compile; `buildLog` is the compiler's output, as the driver gave it. */
export class OpenCLBuildError extends OpenCLError {
  constructor(
    code: number,
    /** The compiler's output, as the driver gave it. */
    readonly buildLog: string,
    source: string,
  ) {
    const span = firstErrorSpan(buildLog, source);
    super('clBuildProgram', code, `${describeLog(buildLog)}${span ? '\nthe first error in the source:' : ''}`, span);
  }
}

/** Throws an `OpenCLError` unless `code` is CL_SUCCESS. `detail` is only evaluated on failure. */
export function check(call: string, code: number, detail?: () => string): void {
  if (code !== CL_SUCCESS) throw new OpenCLError(call, code, detail?.());
}

/** Runs a creating call (one with an `errcode_ret`) and returns the handle it made, or throws. */
export function created<T>(call: string, make: (error: Int32Array) => T | null, detail?: () => string): T {
  const error = new Int32Array(1);
  const handle = make(error);
  if (error[0] !== CL_SUCCESS || handle === null || handle === undefined) {
    // a driver that returns NULL without setting an error code is treated as out of resources
    throw new OpenCLError(call, error[0] !== CL_SUCCESS ? error[0] : -5, detail?.());
  }
  return handle;
}

function describeLog(log: string): string {
  const trimmed = log.trim();
  return trimmed ? `build log:\n${indent(trimmed)}` : 'the build log is empty';
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * Where the compiler says the first error is, as a span that lets `LoomError` print that source line
 * with a caret. Clang-based compilers write `<file>:LINE:COLUMN: error: ...` (NVIDIA, Intel, AMD);
 * PoCL puts the severity first, `error: <file>:LINE:COLUMN: ...`. Both are lines that mention an
 * error and hold a `:LINE:COLUMN:` position.
 */
function firstErrorSpan(log: string, source: string): SourceSpan | undefined {
  const errorLine = log.split('\n').find((l) => /\berror\b/i.test(l) && /:\d+:\d+:/.test(l));
  const match = errorLine && /:(\d+):(\d+):/.exec(errorLine);
  if (!match) return undefined;
  const line = Number(match[1]);
  const column = Number(match[2]);
  let start = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf('\n', start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  const lineEnd = source.indexOf('\n', start) < 0 ? source.length : source.indexOf('\n', start);
  const offset = Math.min(start + Math.max(0, column - 1), lineEnd);
  return { text: source, start: offset, end: offset + 1 };
}
