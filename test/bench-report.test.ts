/**
 * bench/report.ts on a run's JSON lines: issue 30's targets, each met, missed or not measured, from
 * Loom's lines beside PyTorch's (bench/hgemm.ts's products against bench/torch_hgemm.py's, the sums
 * against torch.sum, the roofline's predictions against its measurements).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('..', import.meta.url));
const line = (o: object) => JSON.stringify({ unit: 'TFLOP/s', date: '2026-12-05', device: 'GPU', ...o });

test("issue 30's rows: the tensor cores' best product against PyTorch's, sums, the roofline", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-report-'));
  const run = path.join(dir, 'run.jsonl');
  writeFileSync(
    run,
    [
      // two TF32 products: the faster is the row's
      line({ bench: 'matmul', backend: 'cuda', case: 'wgmma tf32 (tensor cores)', size: 4096, value: 314.4 }),
      line({ bench: 'matmul', backend: 'cuda', case: 'sgemm tf32 (tensor cores)', size: 4096, value: 60 }),
      line({ bench: 'matmul', backend: 'torch', case: 'sgemm tf32', size: 4096, value: 400 }),
      // half precision below the bar
      line({ bench: 'matmul', backend: 'cuda', case: 'wgmma half out (tensor cores)', size: 4096, value: 500 }),
      line({ bench: 'matmul', backend: 'torch', case: 'hgemm half out', size: 4096, value: 760 }),
      line({ bench: 'computations', backend: 'opencl', case: 'reduce all', size: 2 ** 26, value: 4039, unit: 'GB/s' }),
      line({ bench: 'computations', backend: 'torch', case: 'reduce all', size: 2 ** 26, value: 3881, unit: 'GB/s' }),
      // the roofline: predicted 1.1 ms for a measured 1.0 (within 25%) and 2.0 for 1.0 (not); a matmul's is not held to it
      line({
        bench: 'roofline',
        backend: 'opencl',
        case: 'sgemm (tuned)',
        size: 1,
        value: 1,
        unit: 'ms',
        reference: 'predicted',
        referenceValue: 3,
      }),
      line({
        bench: 'roofline',
        backend: 'opencl',
        case: 'pointwise add',
        size: 1,
        value: 1,
        unit: 'ms',
        reference: 'predicted',
        referenceValue: 1.1,
      }),
      line({
        bench: 'roofline',
        backend: 'webgpu',
        case: 'pointwise add',
        size: 1,
        value: 1,
        unit: 'ms',
        reference: 'predicted',
        referenceValue: 2,
      }),
      'a notice, not a record',
    ].join('\n'),
  );
  const report = spawnSync(process.execPath, ['--import', 'tsx', 'bench/report.ts', run, `--out=${dir}`], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.is(report.status, 0, report.stderr);
  const md = readFileSync(path.join(dir, 'BENCHMARKS.md'), 'utf8');
  const row = (start: string) => md.split('\n').find((l) => l.startsWith(`| ${start}`)) ?? `(no row '${start}')`;
  assert.match(
    row('TF32 SGEMM 4096³, cuda (issue 30)'),
    '| 314.4 TFLOP/s, 0.786x cuBLAS with TF32 on (400 TFLOP/s); wgmma tf32 (tensor cores) | yes |',
  );
  assert.match(row('HGEMM (float16 factors) 4096³, cuda (issue 30)'), '0.658x torch.matmul in half precision');
  assert.match(row('HGEMM (float16 factors) 4096³, cuda (issue 30)'), /\| no \|$/);
  assert.match(row('bfloat16 GEMM 4096³, cuda (issue 30)'), '|  | not measured |');
  assert.match(row('full sum of 2^26, opencl (issue 30)'), '| 4039 GB/s, 1.041x torch.sum | yes |');
  assert.match(row('roofline, opencl (issue 30)'), 'predicted / measured 1.1 | yes |');
  assert.match(row('roofline, webgpu (issue 30)'), 'predicted / measured 2 | no |');
});

test.run();
