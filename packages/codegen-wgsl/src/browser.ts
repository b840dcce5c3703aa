/**
 * @loom/codegen-wgsl in browsers (the package's `browser` export): the same API as in Node
 * (`index.ts`), where the WebGPU device finds its GPU in `navigator.gpu` by default. Nothing
 * here reaches the `webgpu` package or Node's modules, so bundlers need no flags for it.
 *
 * @module @loom/codegen-wgsl (browser)
 */
export * from './api.ts';
