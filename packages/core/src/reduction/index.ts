/**
 * Reductions: the operations (operations.ts, with the built-ins of builtins.ts loaded here,
 * so that whoever asks the registry finds them) and `registerReduction` (register.ts).
 */
import './builtins.ts';

export { findReductionOperation, isReductionName, reductionNames, reductionOperation, reductionRegistryVersion, type ReductionOperation } from './operations.ts';
export { registerReduction, type ReductionDefinition } from './register.ts';
