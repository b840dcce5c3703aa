import { wgmmaHgemmKernel } from '../examples/hgemm-wgmma.ts';
import { generateCode } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
const knl = wgmmaHgemmKernel(4096, { warpgroups: 2, columns: 256, tileK: 64, stages: 4, ahead: 2, bulkCopies: true, swizzled: true });
console.log(generateCode(knl, cudaTarget()).code ?? generateCode(knl, cudaTarget()));
