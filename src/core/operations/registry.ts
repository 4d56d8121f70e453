/**
 * Every operation, by name, in one table: the families' operations (agents.ts, blackboard.ts,
 * delegations.ts, handoffs.ts, decisions.ts, checks.ts, work.ts, history.ts, knowledge-graph.ts,
 * open-items.ts). The engine runs them (`TwiningEngine.run`, and one method per operation made
 * from this table); the CLI, the MCP server, the language model tools and the commands call the
 * engine, so they all run the same entry.
 */
import type { OperationName } from '../schemas/schemas';
import type { AnyOperation } from './operation';
import { agentOperations } from './agents';
import { blackboardOperations } from './blackboard';
import { delegationOperations } from './delegations';
import { handoffOperations } from './handoffs';
import { decisionOperations } from './decisions';
import { checkOperations } from './checks';
import { workOperations } from './work';
import { historyOperations } from './history';
import { graphOperations } from './knowledge-graph';
import { openItemOperations } from './open-items';

export const OPERATION_TABLE = {
  ...agentOperations,
  ...blackboardOperations,
  ...delegationOperations,
  ...handoffOperations,
  ...decisionOperations,
  ...checkOperations,
  ...workOperations,
  ...historyOperations,
  ...graphOperations,
  ...openItemOperations,
} satisfies Record<OperationName, AnyOperation>;

export type OperationTable = typeof OPERATION_TABLE;
