/**
 * NVIDIA's OpenCL (driver 580, H200) returned 7 where -32754 is right for one int16 element of
 * test/elementwise-narrow-integers.test.ts: `Math.abs(x) + Math.max(x * y, y) - Math.min(-x, y)
 * + Math.min(x | y, 2)` at x = -32768, y = 7. This script builds the generated expression and
 * variants of its pieces as raw OpenCL on every OpenCL device, optimised and with
 * -cl-opt-disable, and prints each value against the wrapped-BigInt answer, to find which
 * piece the driver gets wrong.
 *
 *   npx tsx bench/repro-nvidia-int16-min.ts
 */
import type { OpenCLDevice } from '@loom/codegen-opencl';
import { testDevices } from '../test/support/devices.ts';

const X = 'in0[0]';
const Y = 'in1[0]';
/** [label, OpenCL int expression over short in0[0], in1[0], expected value at x=-32768, y=7]. */
const VARIANTS: readonly (readonly [string, string, number])[] = [
  [
    'generated',
    `(short)(int)((short)(int)((short)(int)((short)(int)(short)abs((int)${X}) + (short)max((int)(short)(int)(${X}*${Y}),(int)${Y})) - (short)min((int)(short)(int)-${X},(int)${Y})) + (short)min((int)(${X}|${Y}),(int)(short)2))`,
    -32754,
  ],
  ['x|y', `(int)(${X}|${Y})`, -32761],
  ['min(x|y,2)', `(short)min((int)(${X}|${Y}),(int)(short)2)`, -32761],
  ['min(x|y,2) no casts', `min((int)(${X}|${Y}), 2)`, -32761],
  ['ternary min', `((int)(${X}|${Y}) < 2 ? (int)(${X}|${Y}) : 2)`, -32761],
  ['abs(x)', `(short)abs((int)${X})`, -32768],
  ['max(x*y,y)', `(short)max((int)(short)(int)(${X}*${Y}),(int)${Y})`, 7],
  ['min(-x,y)', `(short)min((int)(short)(int)-${X},(int)${Y})`, -32768],
  [
    'head',
    `(short)(int)((short)(int)((short)(int)(short)abs((int)${X}) + (short)max((int)(short)(int)(${X}*${Y}),(int)${Y})) - (short)min((int)(short)(int)-${X},(int)${Y}))`,
    7,
  ],
  [
    'head + tail',
    `(short)(int)((short)(int)((short)(int)((short)(int)(short)abs((int)${X}) + (short)max((int)(short)(int)(${X}*${Y}),(int)${Y})) - (short)min((int)(short)(int)-${X},(int)${Y})) + (int)(${X}|${Y}))`,
    -32754,
  ],
  ['7 + min(x|y,2)', `(short)(int)(7 + (short)min((int)(${X}|${Y}),(int)(short)2))`, -32754],
  ['y + min(x|y,2)', `(short)(int)(${Y} + (short)min((int)(${X}|${Y}),(int)(short)2))`, -32754],
  // the suspect: wrapping -x (32768) back into short, then comparing
  ['wrap(-x)', `(int)(short)(int)-${X}`, -32768],
  ['min(wrap(-x),y) no outer cast', `min((int)(short)(int)-${X},(int)${Y})`, -32768],
  ['ternary min(wrap(-x),y)', `((int)(short)(int)-${X} < (int)${Y} ? (int)(short)(int)-${X} : (int)${Y})`, -32768],
  ['min(wrap(0 - x),y)', `(short)min((int)(short)(0 - (int)${X}),(int)${Y})`, -32768],
  ['min(wrap(-x) via uint,y)', `(short)min((int)(short)(ushort)(0u - (uint)${X}),(int)${Y})`, -32768],
  ['min(as_short(-x),y)', `(short)min((int)as_short((ushort)-(int)${X}),(int)${Y})`, -32768],
  ['min(shift-wrap(-x),y)', `(short)min((int)((uint)(-(int)${X}) << 16) >> 16,(int)${Y})`, -32768],
  ['min(wrap(x*-1),y)', `(short)min((int)(short)(int)(${X}*-1),(int)${Y})`, -32768],
  ['max(wrap(-x),y)', `(short)max((int)(short)(int)-${X},(int)${Y})`, 7],
  ['wrap(-x) < y', `(int)((int)(short)(int)-${X} < (int)${Y})`, 1],
  ['min(wrap(x+x),y)', `(short)min((int)(short)(int)(${X}+${X}),(int)${Y})`, 0],
  ['min(wrap(x-1),y)', `(short)min((int)(short)(int)(${X}-1),(int)${Y})`, 7],
  ['min(wrap(-x) , y) in short', `(short)min((short)(int)-${X},${Y})`, -32768],
  // how far the problem reaches: other negation-like forms, int8, unsigned
  ['wrap(5 - x)', `(int)(short)(int)(5 - ${X})`, -32763],
  ['wrap(y - x)', `(int)(short)(int)(${Y} - ${X})`, -32761],
  ['wrap(~x + 1)', `(int)(short)(int)(~${X} + 1)`, -32768],
  ['wrap8(-x8)', `(int)(char)(int)-in2[0]`, -128],
  ['wrapu16(-u)', `(int)(ushort)(int)-in3[0]`, 65535],
  ['shift-wrap(-x)', `(int)((uint)(-(int)${X}) << 16) >> 16`, -32768],
  ['shift-wrap8(-x8)', `(int)((uint)(-(int)in2[0]) << 24) >> 24`, -128],
];

const source = `__kernel void probe(__global const short *in0, __global const short *in1, __global const char *in2, __global const ushort *in3, __global int *out) {
${VARIANTS.map(([, e], k) => `  out[${k}] = ${e};`).join('\n')}
}`;

let failed = false;
for (const device of testDevices()) {
  if (device.target.name !== 'opencl') continue;
  const { context } = device as OpenCLDevice;
  for (const options of [[], ['-cl-opt-disable']]) {
    const program = context.buildProgram(source, options);
    const in0 = context.createBufferFrom(new Int16Array([-32768]));
    const in1 = context.createBufferFrom(new Int16Array([7]));
    const in2 = context.createBufferFrom(new Int8Array([-128]));
    const in3 = context.createBufferFrom(new Uint16Array([1]));
    const out = context.createBufferFrom(new Int32Array(VARIANTS.length));
    context.launch(
      program,
      'probe',
      [
        { kind: 'buffer', buffer: in0 },
        { kind: 'buffer', buffer: in1 },
        { kind: 'buffer', buffer: in2 },
        { kind: 'buffer', buffer: in3 },
        { kind: 'buffer', buffer: out },
      ],
      [1],
      [1],
    );
    const got = new Int32Array(VARIANTS.length);
    context.read(out, got);
    console.log(`${device.name} ${options.join(' ') || '(optimised)'}`);
    VARIANTS.forEach(([label, , want], k) => {
      const ok = got[k] === want;
      failed ||= !ok;
      console.log(`  ${ok ? 'ok  ' : 'DIFF'} ${label}: ${got[k]} (want ${want})`);
    });
  }
}
process.exit(failed ? 1 : 0);
