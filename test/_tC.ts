import { generateCode } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { matmulKernel } from '../examples/matmul.ts';
const cfg = {
  tileM: 128,
  tileN: 128,
  regM: 8,
  regN: 8,
  tileK: 16,
  layout: 'strided',
  prefetch: true,
  unrollK: false,
  vectorWidth: 4,
  doubleBuffered: true,
  asyncCopies: true,
} as const;
import { addDtypes } from '@loom/core';
console.log(generateCode(addDtypes(matmulKernel(cfg, 4096), { a: 'float32', b: 'float32' }), cudaTarget()).code);
