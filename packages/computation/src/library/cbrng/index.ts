/**
 * Counter-based random numbers (Reikna's `cbrng`): bijections, keys, samplers, and the
 * computations that run them (the README's "Random numbers").
 */
export { philox, threefry, type Bijection } from './bijections.ts';
export { bijectionComputation } from './bijection-computation.ts';
export { keyGenerator, type KeyGenerator, type Seed } from './key-generator.ts';
export { uniformInteger, uniformFloat, normalBm, gamma, vonmises, type Sampler, type RawWords } from './samplers.ts';
export { cbrng, CBRNG, type RandomsType } from './cbrng.ts';
export type { WordDtype } from './words.ts';
