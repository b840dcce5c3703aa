/**
 * @loom/codegen-opencl in browsers (the package's `browser` export): OpenCL C for Loom kernels,
 * to read, or to run where there is OpenCL. A browser has none, so there is no device here:
 * `openclDevice()` is undefined and `openclUnavailableReason()` says why. The host runtime
 * (`OpenCLContext` and the rest: native code, through koffi) is in the Node entry only.
 *
 * @module @loom/codegen-opencl (browser)
 */
export { openclTarget, generateOpenCL, type OpenCLExtra } from './target.ts';

/** No OpenCL in a browser: always `undefined`. */
export function openclDevice(): undefined {
  return undefined;
}

/** Why `openclDevice()` returned undefined. */
export function openclUnavailableReason(): string {
  return 'a browser has no OpenCL (the OpenCL device is native code, for Node through koffi)';
}
