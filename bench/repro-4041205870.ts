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
import { fixParameters, generateCode, globalArg, makeKernel, mapDomain, prioritizeLoops, run, splitIname } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import type { OpenCLDevice } from '@loom/codegen-opencl';
import { isPocl } from '../packages/codegen-opencl/src/pocl-barrier-guard.ts';
import { testDevices } from '../test/support/devices.ts';

let knl = makeKernel(
  '{ [i,k]: 0<=i<n and 0<=k<m }',
  `
if (i >= 2)
  out[i] = sum(k, i) - imag(c[i])
else
  out[i] = (1 - c[i]) * sum(k, i)
end
`,
  [globalArg('c', { shape: ['n'], dtype: 'complex64' }), '...'],
  { assumptions: 'n >= 1 and m >= 1' },
);
knl = mapDomain(knl, '{ [k] -> [k_mo, k_mi] : 0 <= k_mi < 4 and k = 4*k_mo + k_mi }');
knl = fixParameters(knl, { m: 3 });
knl = splitIname(knl, 'k_mi', 1, { outerTag: 'l.0' });
knl = mapDomain(knl, '{ [k_mo] -> [k_mo_mo, k_mo_mi] : 0 <= k_mo_mi < 4 and k_mo = 4*k_mo_mo + k_mo_mi }');
knl = prioritizeLoops(knl, 'k_mi_inner,k_mo_mo,k_mo_mi');

const c = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
const n = c.length / 2;
const want = [...((await run(knl, cpuDevice(), { c })).out as Float32Array)];
const show = (xs: readonly number[]) => `[${xs.join(', ')}]`;
console.log(`CPU device:  ${show(want)}`);

let failed = false;
/** Prints a result against the CPU device's; a disagreement fails the script unless `known`. */
const report = (label: string, got: readonly number[], known = false) => {
  const ok = got.length === want.length && got.every((x, k) => x === want[k] || (Number.isNaN(x) && Number.isNaN(want[k])));
  failed ||= !ok && !known;
  console.log(`${ok ? 'ok  ' : 'DIFF'} ${label}: ${show(got)}${!ok && known ? '  (known PoCL miscompilation, worked around in run)' : ''}`);
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
  const local = [...kernel.grid.localSize]; // one work-group: the tree is the only parallel axis
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
