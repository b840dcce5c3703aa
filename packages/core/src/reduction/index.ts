/**
 * Reductions: the registry of operations, built-ins loaded (registry.ts), and `registerReduction`
 * (register.ts). Modules below the parser import registry.ts itself, never this index (see there).
 */
export {
  findReductionOperation,
  isReductionName,
  reductionNames,
  reductionOperation,
  reductionRegistryVersion,
  type ReductionOperation,
} from './registry.ts';
export { registerReduction, type ReductionDefinition } from './register.ts';
