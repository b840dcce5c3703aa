/** `autoSchedule` and its parts: the space, the cost model, the search, the script. */
export {
  autoSchedule,
  type AutoScheduleOptions,
  type AutoScheduleProgress,
  type AutoScheduleResult,
  type MeasuredCandidate,
} from './search.ts';
export type { PredictedCandidate } from './rank.ts';
export { applySchedule, scheduleScript, type ScheduleStep } from './steps.ts';
export type { SpaceRestrictions } from './space.ts';
export { predictScheduleTime, type CostBreakdown } from './cost-model.ts';
