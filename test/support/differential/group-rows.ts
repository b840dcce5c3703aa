/**
 * Differential cases for a work-group a row (`groupRows`): a row's reduction written to a global
 * argument by one work-item and read back by the whole group (`r[i] = max(k, x[i, k])`, then
 * `y[i, j] = x[i, j] - r[i]`, perhaps through a second reduction that reads it), each row's loops
 * split over the same l.0 work-items and the rows on g.0. The barrier between them must fence
 * global memory, and the arrays must not be restrict pointers: NVIDIA's compilers moved the reads
 * of `r` above the barrier, and the group's other work-items read stale values. Values are small
 * integers, so every sum is exact in any order; compared with plain JS on every device.
 *
 * With `heldRows`, some rows are held in registers as autoSchedule's held rows are: the row's
 * length a multiple of the group's (at most 3 steps), each row's loop split with its steps
 * unrolled, the rows' work-items made one iname, and x's row read once into private memory by
 * `extractSubst` + `precompute` over the step (held-rows.ts). A quarter of the cases take groups of
 * 8 or 16 work-items: one or two of lavapipe's subgroups, whose reductions stay in registers; and
 * some keep the maximum in a private temporary that every work-item reads (`rt`), besides `r`; and
 * some stack 2 to 8 rows in a group along l.1 (each row a subgroup where l.0 is one).
 */
import {
  addDtypes,
  extractSubst,
  makeKernel,
  precompute,
  renameInames,
  run,
  splitIname,
  tagInames,
  type Device,
} from '@loom/core';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';

/** What one seed ran, and every disagreement (empty: none). */
export interface GroupRowsResult {
  readonly seed: number;
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

const REDUCE = {
  sum: (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0),
  max: (xs: readonly number[]) => Math.max(...xs),
  min: (xs: readonly number[]) => Math.min(...xs),
} as const;
const COMBINE = { '+': (a: number, b: number) => a + b, '-': (a: number, b: number) => a - b } as const;

export async function runGroupRowsCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<GroupRowsResult> {
  if (!features.has('groupRows')) return { seed, ran: [], findings: [] };
  const rng = new Rng(seed ^ 0x6a0c5);
  const drawnGroup = rng.pick([32, 64, 128, 256]);
  const n = rng.int(1, 40);
  // drawn from a stream of its own, so that the cases without it stay what they were
  const heldRng = new Rng(seed ^ 0x4e1d);
  const held = features.has('heldRows') && heldRng.chance(0.5);
  // a quarter of the cases in a group of one small subgroup (lavapipe's 8) or two: its reductions in registers
  const group = heldRng.chance(0.25) ? heldRng.pick([8, 16]) : drawnGroup;
  const drawnM = rng.int(1, 3 * group);
  const m = held ? group * heldRng.int(1, 3) : drawnM;
  // the maximum kept in a private temporary every work-item reads (a reduction whose readers are all of them)
  const inRegister = heldRng.chance(0.3);
  // rows side by side along l.1 (2 to 8 of them, the last group partly past n), where rows are not held
  const stacked = !held && group <= 32 && heldRng.chance(0.4) ? heldRng.pick([2, 4, 8]) : 1;
  const result = inRegister ? 'rt' : 'r[i]';
  const op = rng.pick(['sum', 'max', 'min'] as const);
  const combine = rng.pick(['+', '-'] as const);
  // a second reduction reading the first, as softmax's sum reads its maximum
  const second = rng.chance(0.5);
  const instructions = [
    ...(inRegister
      ? [`<float32> rt = ${op}(k, x[i, k]) {id=rt}`, 'r[i] = rt {id=r, dep=rt}']
      : [`r[i] = ${op}(k, x[i, k]) {id=r}`]),
    ...(second ? [`t[i] = sum(l, x[i, l] * ${result}) {id=t, dep=r}`] : []),
    `y[i, j] = x[i, j] ${combine} ${result}${second ? ' + t[i]' : ''} {dep=${second ? 't' : 'r'}}`,
  ];
  const domain = `{ [i, j, k${second ? ', l' : ''}]: 0<=i<${n} and 0<=j,k${second ? ',l' : ''}<${m} }`;
  let knl = addDtypes(makeKernel(domain, instructions.join('\n')), {
    x: 'float32',
    r: 'float32',
    ...(second ? { t: 'float32' } : {}),
  });
  knl =
    stacked > 1 ? splitIname(knl, 'i', stacked, { outerTag: 'g.0', innerTag: 'l.1' }) : tagInames(knl, { i: 'g.0' });
  const rowInames = ['j', 'k', ...(second ? ['l'] : [])];
  for (const row of rowInames)
    knl = splitIname(knl, row, group, { innerTag: 'l.0', ...(held ? { outerTag: 'unr' } : {}) });
  if (held) {
    knl = renameInames(
      knl,
      rowInames.map((r) => `${r}_inner`),
      'lane',
    );
    knl = extractSubst(knl, 'x_row', `x[i, ${group}*x_step + lane]`, 'x_step');
    knl = precompute(
      knl,
      'x_row',
      rowInames.map((r) => `${r}_outer`),
      { storageAxes: ['x_step'], fetchOuterInames: ['i', 'lane'], temporaryAddressSpace: 'private', defaultTag: 'unr' },
    );
  }
  const rowsOn = stacked > 1 ? `i split by ${stacked} onto g.0 and l.1` : 'i on g.0';
  const source = `${domain} ${instructions.join('; ')}, ${rowsOn}, rows split by ${group} on l.0${held ? ', x held in registers' : ''}`;

  // at most 4 in magnitude: the second sum stays below 2^24, exact in float32 in any order
  const x = Float32Array.from({ length: n * m }, () => rng.int(-4, 4));
  const rows = Array.from({ length: n }, (_, i) => Array.from(x.subarray(i * m, (i + 1) * m)));
  const r = rows.map((row) => REDUCE[op](row));
  const t = rows.map((row, i) => REDUCE.sum(row.map((v) => v * r[i]!)));
  const y = rows.flatMap((row, i) => row.map((v) => COMBINE[combine](v, r[i]!) + (second ? t[i]! : 0)));

  const ran: string[] = [];
  const findings: string[] = [];
  for (const device of devices) {
    ran.push(`${device.name}: ${source}`);
    const out = await run(knl, device, {
      x,
      r: new Float32Array(n),
      ...(second ? { t: new Float32Array(n) } : {}),
    }).catch((e: Error) => e);
    if (out instanceof Error) {
      findings.push(`${device.name}: ${source} threw ${out.message}`);
      continue;
    }
    const got = out.y as Float32Array;
    const bad = y.findIndex((v, k) => got[k] !== v);
    if (bad >= 0) findings.push(`${device.name}: ${source}: y[${bad}] is ${got[bad]}, not ${y[bad]} (seed ${seed})`);
  }
  return { seed, ran, findings };
}
