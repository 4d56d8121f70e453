/** The agents' operations: registering (with its knowledge graph steps), listing and discovery by capability. */
import { operation } from './operation';
import * as agentOps from './agent-ops';
import * as graph from './graph-populate-ops';

export const agentOperations = {
  register: operation('register', (store, input) =>
    graph.withGraph(
      store,
      () => agentOps.register(store, input),
      () => graph.onRegister(store, input.agent_id, input.capabilities, input.role),
    ),
  ),
  agents: operation('agents', (store, input) => agentOps.agents(store, input)),
  discover: operation('discover', (store, input) => agentOps.discover(store, input)),
};
