/**
 * Writes the OpenCL C of examples/matmul.ts's SGEMM for one configuration and order n, and the
 * launch shape, for profile.sh (Nsight Compute profiles CUDA only: the same source goes through
 * nvcc with opencl-in-cuda.h); and its CUDA C (kernel.cu), whose registers `nvcc -cubin -Xptxas -v`
 * counts (bench/sgemm-configs.sh). A configuration the OpenCL target refuses (launch bounds,
 * asynchronous copies) writes the CUDA C alone.
 *
 *   node --import tsx bench/ncu/emit-sgemm.ts --config='{...}' --n=4096 --out=DIR
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { addDtypes, generateCode, LoomError } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
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
writeFileSync(`${out}/kernel.cu`, generateCode(knl, cudaTarget()).code);
// reqd_work_group_size is OpenCL's; CUDA takes the block shape at launch
try {
  const code = generateCode(knl, openclTarget()).code;
  writeFileSync(`${out}/kernel.cl`, code.replace(/__attribute__ \(\(reqd_work_group_size\([^)]*\)\)\) /, ''));
} catch (e) {
  // what OpenCL cannot spell (launch bounds, asynchronous copies): the CUDA C alone
  if (!(e instanceof LoomError)) throw e;
}
writeFileSync(`${out}/shape.sh`, `N=${n} TILE_M=${config.tileM} TILE_N=${config.tileN} WG0=${along0} WG1=${along1}\n`);
