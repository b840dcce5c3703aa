/**
 * What the auto-scheduling tests share: small untransformed kernels (matmul, row sums, a transpose,
 * a 5-point stencil) with plain-JavaScript references, a made-up device profile, and the tiny
 * budgets and samples the searches run with on the CPU device and PoCL.
 */
import * as assert from 'uvu/assert';
import { addDtypes, makeKernel, run, type Device, type DeviceProfile, type LoopKernel } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { randomFloat32 } from './devices.ts';

export const PROFILE: DeviceProfile = { device: 'test', bandwidth: 1e11, flopRate: 1e12, launchOverhead: 1e-5 };

export const cpu = cpuDevice();

export const small = { budget: 1, measure: 2, profile: PROFILE, checkDevice: cpu, space: { candidates: 6 } } as const;

export interface Case {
  readonly name: string;
  readonly domain: string;
  readonly code: string;
  readonly sizes: Record<string, number>;
  readonly inputs: (sizes: Record<string, number>) => Record<string, Float32Array>;
  /** The expected outputs, from plain JavaScript. */
  readonly reference: (inputs: Record<string, Float32Array>, sizes: Record<string, number>) => Record<string, number[]>;
}

export const CASES: Case[] = [
  {
    name: 'matmul',
    domain: '{ [i,j,k]: 0<=i,j,k<n }',
    code: 'c[i, j] = sum(k, a[i, k]*b[k, j])',
    sizes: { n: 20 },
    inputs: ({ n }) => ({ a: randomFloat32(n! * n!, 1), b: randomFloat32(n! * n!, 2) }),
    reference: ({ a, b }, { n }) => {
      const c: number[] = [];
      for (let i = 0; i < n!; i++)
        for (let j = 0; j < n!; j++) {
          let s = 0;
          for (let k = 0; k < n!; k++) s += a![i * n! + k]! * b![k * n! + j]!;
          c.push(s);
        }
      return { c };
    },
  },
  {
    name: 'row sums',
    domain: '{ [i,j]: 0<=i<n and 0<=j<m }',
    code: 's[i] = sum(j, a[i, j])',
    sizes: { n: 20, m: 36 },
    inputs: ({ n, m }) => ({ a: randomFloat32(n! * m!, 3) }),
    reference: ({ a }, { n, m }) => ({
      s: Array.from({ length: n! }, (_, i) => a!.slice(i * m!, (i + 1) * m!).reduce((x, y) => x + y, 0)),
    }),
  },
  {
    name: 'transpose',
    domain: '{ [i,j]: 0<=i<n and 0<=j<m }',
    code: 'b[j, i] = a[i, j]',
    sizes: { n: 24, m: 40 },
    inputs: ({ n, m }) => ({ a: randomFloat32(n! * m!, 4) }),
    reference: ({ a }, { n, m }) => ({
      b: Array.from({ length: n! * m! }, (_, k) => a![(k % n!) * m! + Math.floor(k / n!)]!),
    }),
  },
  {
    name: 'stencil',
    domain: '{ [i,j]: 1<=i<n-1 and 1<=j<m-1 }',
    code: 'u[i, j] = a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1] - 4*a[i, j]',
    sizes: { n: 18, m: 34 },
    // u's shape is inferred from what is written: (n - 1) x (m - 1), its row and column 0 left as passed
    inputs: ({ n, m }) => ({ a: randomFloat32(n! * m!, 5), u: new Float32Array((n! - 1) * (m! - 1)) }),
    reference: ({ a }, { n, m }) => ({
      u: Array.from({ length: (n! - 1) * (m! - 1) }, (_, k) => {
        const i = Math.floor(k / (m! - 1));
        const j = k % (m! - 1);
        if (i < 1 || j < 1) return 0;
        const at = (x: number, y: number) => a![x * m! + y]!;
        return at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4 * at(i, j);
      }),
    }),
  },
];

export const coreKernel = (c: Case): LoopKernel =>
  addDtypes(makeKernel(c.domain, c.code, undefined, { name: c.name.replace(/\W/g, '_') }), {
    a: 'float32',
    ...(c.name === 'matmul' ? { b: 'float32' } : {}),
    ...(c.name === 'stencil' ? { u: 'float32' } : {}),
  });

/** What `knl` computes on `device` at the case's sizes, against plain JavaScript. */
export async function checkResults(c: Case, knl: LoopKernel, device: Device, what: string): Promise<void> {
  const inputs = c.inputs(c.sizes);
  const got = await run(knl, device, { ...inputs, ...c.sizes });
  for (const [name, want] of Object.entries(c.reference(inputs, c.sizes))) {
    const out = got[name] as Float32Array;
    assert.is(out.length, want.length, `${what}: ${name}'s length`);
    want.forEach((v, k) => {
      if (Math.abs(out[k]! - v) > 1e-4 * (1 + Math.abs(v)))
        assert.unreachable(`${what}: ${name}[${k}] is ${out[k]}, not ${v}`);
    });
  }
}

export const dtypesOf = (knl: LoopKernel) =>
  Object.fromEntries(knl.args.filter((a) => a.dtype !== undefined).map((a) => [a.name, a.dtype!]));
