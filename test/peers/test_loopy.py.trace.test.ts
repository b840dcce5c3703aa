/**
 * Port of loopy's test/test_loopy.py::test_trace_assignments: the kernel options
 * `traceAssignments` and `traceAssignmentValues` (loopy's trace_assignments,
 * trace_assignment_values) print a line per assignment run, in loopy's format. loopy only runs
 * the kernel; here the printed lines and the values written are checked on every device whose
 * code prints (OpenCL, CUDA and C through printf, read from a child process; the CPU device
 * through console.log), and WebGPU, whose code cannot print, refuses the kernel before it runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, LoomError, run } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { stdoutOf } from '../support/child-stdout.ts';
import { testDevices } from '../support/devices.ts';
import { childKernelName, expectedTrace, FOO, TRACE_OPTIONS, traceKernel } from '../support/trace.ts';
import { printsWithPrintf } from '../support/void-calls.ts';

/** What the C-family devices printed (one child process for the whole file). */
let printed: string[] | undefined;
const printedLines = () => {
  printed ??= stdoutOf('test/support/trace.ts', 'printCFamilyTraces').split('\n');
  return printed;
};

/** What `f` printed through console.log while it ran. */
async function consoleLines(f: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  try {
    await f();
  } finally {
    console.log = log;
  }
  return lines;
}

for (const [k, device] of testDevices().entries()) {
  test(`${device.name}: test_trace_assignments`, async () => {
    for (const option of TRACE_OPTIONS) {
      const knl = traceKernel(option);
      if (!device.target.prints) {
        assert.throws(
          () => generateCode(knl, device.target),
          (e: unknown) =>
            e instanceof LoomError && e.message.includes(`option ${option}`) && /cannot print/.test(e.message),
        );
        continue;
      }
      const code = generateCode(knl, device.target).code;
      if (printsWithPrintf(device)) {
        const format = `printf("loopy_kernel.insn[gid0=%d][lid0=%d]: foo[%d,%d]${option === 'traceAssignmentValues' ? ' = %d' : ''}\\n"`;
        assert.ok(code.includes(format), code);
        const name = childKernelName(k, option);
        assert.equal(
          printedLines()
            .filter((l) => l.startsWith(`${name}.`))
            .sort(),
          expectedTrace(option, name),
        );
        assert.ok(printedLines().includes(`foo ${name} ${JSON.stringify(FOO)}`), `foo of ${name}`);
      } else {
        assert.ok(code.includes('console.log('), code);
        let foo: Int32Array | undefined;
        const lines = await consoleLines(async () => {
          foo = (await run(knl, device, {})).foo as Int32Array;
        });
        assert.equal(lines.sort(), expectedTrace(option));
        assert.equal([...foo!], FOO);
      }
    }
  });
}

test('test_trace_assignments: CUDA code (no CUDA device here to run it)', () => {
  for (const option of TRACE_OPTIONS) {
    const code = generateCode(traceKernel(option), cudaTarget()).code;
    const format = `printf("loopy_kernel.insn[gid0=%d][lid0=%d]: foo[%d,%d]${option === 'traceAssignmentValues' ? ' = %d' : ''}\\n"`;
    assert.ok(code.includes(format), code);
  }
});

test('test_trace_assignments: the trace comes before an assignment, its value after', () => {
  const cpu = testDevices()[0];
  const order = (option: (typeof TRACE_OPTIONS)[number]) => {
    const code = generateCode(traceKernel(option), cpu.target).code;
    return code.indexOf('console.log(') < code.indexOf('foo[');
  };
  assert.ok(order('traceAssignments'), 'printed first, so that the last line names an assignment that crashed');
  assert.not.ok(order('traceAssignmentValues'), 'printed after, with the value written');
});

test.run();
