/**
 * Writes the OpenCL C of examples/matmul.ts's SGEMM for one configuration and order n, and the
 * launch shape, for profile.sh (Nsight Compute profiles CUDA only: the same source goes through
 * nvcc with opencl-in-cuda.h).
 *
 *   node --import tsx bench/ncu/emit-sgemm.ts --config='{...}' --n=4096 --out=DIR
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { addDtypes, generateCode } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { matmulKernel, workGroupOf, type MatmulConfig } from '../../examples/matmul.ts';
import { numberFlag, parseOptions } from '../lib/cli.ts';

const options = parseOptions();
const config = JSON.parse(options.flags.get('config') ?? '{}') as MatmulConfig;
const n = numberFlag(options, 'n', 4096);
const out = options.flags.get('out') ?? '.';
const knl = addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' });
const { along0, along1 } = workGroupOf(config);
mkdirSync(out, { recursive: true });
// reqd_work_group_size is OpenCL's; CUDA takes the block shape at launch
writeFileSync(
  `${out}/kernel.cl`,
  generateCode(knl, openclTarget()).code.replace(/__attribute__ \(\(reqd_work_group_size\([^)]*\)\)\) /, ''),
);
writeFileSync(`${out}/shape.sh`, `N=${n} TILE_M=${config.tileM} TILE_N=${config.tileN} WG0=${along0} WG1=${along1}\n`);
