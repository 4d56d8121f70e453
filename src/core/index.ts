/**
 * The Twining core (bundled with what serves agent hosts as `dist/core.js`, src/library.ts): `openWorkspace(projectRoot, options)` gives an
 * engine (`TwiningEngine`, also exported as `Workspace`) with one async method per operation,
 * taking twining-mcp's tool inputs (snake_case).
 */
export { openWorkspace, TwiningEngine, Workspace } from './engine/engine';
export type { ChangeReport, WorkspaceOptions } from './engine/engine';
export { TwiningError, isTwiningError } from './errors';
export { isWriteRefusal, writeRefusal } from './engine/write-trust';
export type { TwiningErrorCode } from './errors';
export {
  inputs,
  parseInput,
  isUlid,
  checkUlid,
  jsonSchemaOf,
  formatIssues,
  OPERATION_NAMES,
  ENTRY_TYPES,
  POSTABLE_TYPES,
  URGENCIES,
  RESULT_STATUSES,
  CONFIDENCES,
  DECISION_STATUSES,
} from './schemas/schemas';
export type { OperationName, InputOf, EntryType, Urgency, ResultStatus, Confidence, DecisionStatus } from './schemas/schemas';
export { overlaps, normaliseTags } from './scope';
export { forgivingInput, withIgnoredFields } from './schemas/forgiving-input';
export { withModelDefaults, WHY_MAX_TOKENS } from './schemas/model-defaults';
export { livenessOf, nextLivenessChange, scoreAgent } from './rules/scoring';
export { snapshotDigest } from './rules/snapshot';
export type { SnapshotChange, SnapshotChanges } from './rules/snapshot-changes';
export { describeSnapshotChanges } from './rules/snapshot-changes';
export { DATA_KINDS, changedKinds } from './engine/data-kinds';
export type { DataKind, Versions } from './engine/data-kinds';
export type { FolderFormat, Backend } from './storage/folder-format';
export { gitSetup, gitMergeState, driverCommand, driverNeedsUpdate, LOCAL_CONFIG_NOTE } from './git/git-setup';
export type { GitSetupResult, GitMergeState } from './git/git-setup';
export { findGitDir, gitBusyReason, GIT_OPERATION_FILES } from './git/git-busy';
export { resolveRecord, describeRoute, routeSummary, ISOLATION_MARKER } from './git/record-location';
export type { RecordRoute, RouteMode, RouteOptions } from './git/record-location';
export type * from './records';
export type { ScopeContext, ContextDecision, ContextDelegation } from './operations/scope-context-ops';
export type { DecisionStory } from './operations/decision-story-ops';
export { claimConflicts, claimState, describeHolder } from './rules/claims';
export type { ClaimRecord, ClaimView, ClaimState, ClaimClock } from './rules/claims';
export { targetsOverlap, normaliseTarget, isGlob } from './rules/claim-paths';
export { checkPath, lapsedClaimsOf, claimsFileOf } from './storage/claims-file';
export type { ClaimResult, ReleaseResult, Conflict } from './operations/claim-ops';
export { briefingText } from './text/briefing-text';
/** The token estimate every budget here uses (briefings, why): a quarter of the characters, rounded up. */
export { estimateTokens } from './rules/assembly';
export type { AssembledContext } from './operations/assemble-ops';
export type { RecordResult } from './operations/record-ops';
export type { SessionView } from './rules/session-board';
export { sessionsTouching } from './rules/session-board';
export type { SessionBoard } from './operations/session-ops';
export { migrate } from './migrate/migrate-ops';
export type { MigrateOptions, MigrateReport, MigrateCounts } from './migrate/migrate-ops';
export { syncStatus, BRANCH as SYNC_BRANCH, DEFAULT_INTERVAL_MS as SYNC_INTERVAL_MS } from './sync/sync-state';
export type { SyncStatus } from './sync/sync-state';
export type { SyncOptions, SyncReport } from './sync/sync-run';
export type { SyncedClaimResult, ClaimSync } from './sync/claim-confirm';
export { SyncScheduler } from './sync/sync-scheduler';
