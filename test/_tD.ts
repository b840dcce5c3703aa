import { generateCode } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { hgemmKernel, tf32Kernel, HGEMM_CONFIGS, TF32_CONFIGS } from '../examples/hgemm.ts';
for (const c of HGEMM_CONFIGS.filter((c) => c.asyncCopies)) {
  const code = generateCode(hgemmKernel(4096, c), cudaTarget()).code;
  console.log(
    JSON.stringify(c),
    (code.match(/loom_copy_async_16\(/g) || []).length,
    (code.match(/loom_copy_async_4\(/g) || []).length,
    code.match(/__shared__[^;]*;/g),
  );
}
for (const c of TF32_CONFIGS.filter((c) => c.asyncCopies)) {
  const code = generateCode(tf32Kernel(4096, c), cudaTarget()).code;
  console.log(
    JSON.stringify(c),
    (code.match(/loom_copy_async_16\(/g) || []).length,
    (code.match(/loom_copy_async_4\(/g) || []).length,
  );
}
