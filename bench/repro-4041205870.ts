/**
 * Differential seed 4041205870: two local-memory reduction trees, one in each branch of an
 * if/else inside a sequential loop. PoCL 3.1 miscompiled the optimised build (work-item 0 skipped
 * the i >= 2 branch's last stage and store); Loom now builds such kernels with -cl-opt-disable
 * on PoCL (packages/codegen-opencl/src/pocl-barrier-guard.ts).
 *
 * Runs the kernel through `run` on every device present and, on each OpenCL device, also the
 * generated source built as the driver likes (optimised, no workaround), to see whether another
 * driver (NVIDIA's) has the same problem. Prints each result against the CPU device's; exits 1
 * on any disagreement but the known one (PoCL's optimised build).
 *
 *   npx tsx bench/repro-4041205870.ts
 */
import { generateCode, requireConstantLocalSize, run } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import type { OpenCLDevice } from '@loom/codegen-opencl';
import { isPocl } from '../packages/codegen-opencl/src/pocl-barrier-guard.ts';
import { testDevices } from '../test/support/devices.ts';
import { twoTreesInBranches } from '../test/support/two-trees-in-branches.ts';

const knl = twoTreesInBranches();

const c = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
const n = c.length / 2;
const want = [...((await run(knl, cpuDevice(), { c })).out as Float32Array)];
const show = (xs: readonly number[]) => `[${xs.join(', ')}]`;
console.log(`CPU device:  ${show(want)}`);

let failed = false;
/** Prints a result against the CPU device's; a disagreement fails the script unless `known`. */
const report = (label: string, got: readonly number[], known = false) => {
  const ok =
    got.length === want.length && got.every((x, k) => x === want[k] || (Number.isNaN(x) && Number.isNaN(want[k])));
  failed ||= !ok && !known;
  console.log(
    `${ok ? 'ok  ' : 'DIFF'} ${label}: ${show(got)}${!ok && known ? '  (known PoCL miscompilation, worked around in run)' : ''}`,
  );
};

for (const device of testDevices()) {
  if (device.name.startsWith('CPU')) continue;
  report(`${device.name} (run)`, [...((await run(knl, device, { c })).out as Float32Array)]);
  if (device.target.name !== 'opencl') continue;
  // the generated source as the driver builds it by default: no -cl-opt-disable
  const { context } = device as OpenCLDevice;
  const code = generateCode(knl, device.target);
  const [kernel] = code.kernels;
  const program = context.buildProgram(code.code, []);
  const cBuffer = context.createBufferFrom(c);
  const outBuffer = context.createBufferFrom(new Float32Array(2 * n).fill(Number.NaN));
  // one work-group: the tree is the only parallel axis
  const local = requireConstantLocalSize(
    kernel.name,
    kernel.grid.localSize,
    'this repro launches its one group by hand',
  );
  context.launch(
    program,
    kernel.entryPoint,
    [
      { kind: 'buffer', buffer: cBuffer },
      { kind: 'scalar', dtype: 'int32', value: n },
      { kind: 'buffer', buffer: outBuffer },
    ],
    local,
    local,
  );
  const got = new Float32Array(2 * n);
  context.read(outBuffer, got);
  report(`${device.name} (optimised build, no workaround)`, [...got], isPocl(context.info));
}
process.exit(failed ? 1 : 0);
