/**
 * The kernel of loopy's test_trace_assignments and what its trace prints, for its port
 * (test_loopy.py.trace.test.ts). OpenCL, CUDA and C print with `printf`, which the test reads
 * from a child process (`printCFamilyTraces`, child-stdout.ts).
 */
import { makeKernel, run, setOptions, tagInames, type LoopKernel } from '@loom/core';
import { testDevices } from './devices.ts';
import { printsWithPrintf } from './void-calls.ts';

/** The two options loopy's test is parametrized over. */
export const TRACE_OPTIONS = ['traceAssignments', 'traceAssignmentValues'] as const;
export type TraceOption = (typeof TRACE_OPTIONS)[number];

/** loopy's kernel, tagged and with the option set; `name` tells apart the kernels a child process runs. */
export function traceKernel(option: TraceOption, name = 'loopy_kernel'): LoopKernel {
  const knl = tagInames(makeKernel('{[i,j]: 0<=i,j<2}', 'foo[i,j] = i+j', undefined, { name }), {
    i: 'g.0',
    j: 'l.0',
  });
  return setOptions(knl, { [option]: true });
}

/** The lines the kernel `name` prints, sorted (work-groups may run in any order): loopy's format. */
export function expectedTrace(option: TraceOption, name = 'loopy_kernel'): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 2; i++)
    for (let j = 0; j < 2; j++)
      lines.push(
        `${name}.insn[gid0=${i}][lid0=${j}]: foo[${i},${j}]${option === 'traceAssignmentValues' ? ` = ${i + j}` : ''}`,
      );
  return lines.sort();
}

/** The kernel's name for a device (its index in `testDevices()`) and option, in the child's output. */
export const childKernelName = (device: number, option: TraceOption) => `${option}_${device}`;

/** What `foo` holds after a run: `i + j`. */
export const FOO = [0, 1, 1, 2];

/**
 * Run in a child process: the kernel with each option on each device whose code is C, which
 * print the traces; then `foo <name> [values]` for each run, which the test checks too.
 */
export async function printCFamilyTraces(): Promise<void> {
  const results: string[] = [];
  for (const [k, device] of testDevices().entries()) {
    if (!printsWithPrintf(device)) continue;
    for (const option of TRACE_OPTIONS) {
      const name = childKernelName(k, option);
      const foo = (await run(traceKernel(option, name), device, {})).foo as Int32Array;
      results.push(`foo ${name} ${JSON.stringify([...foo])}`);
    }
  }
  // after every run: the C library's buffered lines come out when the process ends
  console.log(results.join('\n'));
}
